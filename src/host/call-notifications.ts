/**
 * Which server notifications belong to which host tool call (`onLog`, `onNotification` of
 * `host.callTool`). MCP has no general "this notification is about that request" field, so the
 * host ties them by these rules, in order:
 *
 * 0. **By stream.** Over Streamable HTTP a server sends what relates to a request on that
 *    request's POST SSE stream (basic.transports#25); the transport reports the request id whose
 *    stream (or resumed stream) carried the notification (`relatedRequestId`). A notification
 *    that came on the stream of one of a running call's `tools/call` requests (`requestIds`, from
 *    `CallToolOptions.onRequestId`) goes to that call only, however many calls are in flight. One
 *    that came on another request's stream (a listing, a task's poll), or with no stream to tell
 *    (stdio, legacy SSE, the standalone GET stream), is tied by the rules below.
 * 1. **By task.** Everything a task sends about itself carries `_meta["io.modelcontextprotocol/
 *    related-task"].taskId` (basic.utilities.tasks#39). A notification naming the task of a
 *    running task-augmented call (`taskIds`, learned from the call's first task status) goes to
 *    that call only. One naming a task no running call is known to follow goes by the rules
 *    below (its call may not have heard of its task yet: a server can send about a task in the
 *    same read as the CreateTaskResult), except to a call that follows another task.
 * 2. **By token.** A call that wants notifications is sent with a progress token of its own
 *    (`_meta.progressToken`). A notification whose `params._meta.progressToken` (or, for
 *    progress, `params.progressToken`) equals a running call's token goes to that call only.
 *    A token that is no running call's goes to none.
 * 3. **By exclusivity.** A notification without a token goes to the call when that call is the
 *    only host tool call in flight to that server (sent, not yet settled; queued calls do not
 *    count). With two or more in flight it goes to none of them: it cannot be told apart.
 *
 * `notifications/message` goes to `onLog` (its params: level, logger, data); any other
 * notification the engine gives no meaning to (`notifications/<anything>`, or a custom method
 * such as `tool_event`) goes to `onNotification(method, params)`. Progress goes to `onProgress`
 * through the request itself; list_changed, resources/updated, tasks/status and cancelled are
 * server-wide and stay with the host's events. One listener pair per client, however many calls.
 *
 * What no call's listener receives — no call in flight, two calls and nothing to tell them
 * apart, a token no running call holds, a tied call without a listener for it — goes to the
 * client's `unrouted` receiver (`watchNotifications`): the host's `notification` event.
 */
import type { RequestId } from '../jsonrpc/types.js';
import { RELATED_TASK_META_KEY } from '../mcp/tasks.js';
import type { HostClient } from './host-client.js';
import { IdTable } from '../util/id-table.js';

/** Receives the server's log messages tied to a call. */
export type CallLogListener = (params: Record<string, unknown>) => void;
/** Receives the other notifications tied to a call. */
export type CallNotificationListener = (method: string, params: Record<string, unknown> | undefined) => void;

interface RoutedCall {
  token: string | number | undefined;
  /** The JSON-RPC ids of the call's `tools/call` requests so far (rule 0); filled while it runs. */
  requestIds?: RequestId[];
  /** The ids of the tasks a task-augmented call created (rule 1); filled while it runs. */
  taskIds?: string[];
  onLog?: CallLogListener;
  onNotification?: CallNotificationListener;
}

/** Receives a notification no call's listener received. */
export type UnroutedListener = (method: string, params: Record<string, unknown> | undefined) => void;

class Router {
  /**
   * The calls in flight, by the number `routeCallNotifications` gave each (a table, not a Set:
   * one comes and goes per call, and a churning Set keeps what it held reachable, see IdTable).
   */
  readonly calls = new IdTable<number, RoutedCall>();
  private nextCall = 0;
  unrouted: UnroutedListener | undefined;

  constructor(client: HostClient) {
    client.on('log', (params: unknown, extra: unknown) =>
      this.route('notifications/message', params as Record<string, unknown> | undefined, (extra as { relatedRequestId?: RequestId } | undefined)?.relatedRequestId),
    );
    client.on('notification', (event: unknown) => {
      const e = event as { method?: unknown; params?: unknown; relatedRequestId?: RequestId } | undefined;
      if (typeof e?.method === 'string') this.route(e.method, e.params as Record<string, unknown> | undefined, e.relatedRequestId);
    });
  }

  /** Adds a call; returns the function that removes it. */
  add(call: RoutedCall): () => void {
    const n = this.nextCall++;
    this.calls.set(n, call);
    return () => void this.calls.delete(n);
  }

  private route(method: string, params: Record<string, unknown> | undefined, related: RequestId | undefined): void {
    const target = this.calls.size === 0 ? undefined : this.target(method, params, related);
    if (target !== undefined && deliver(target, method, params)) return;
    try {
      this.unrouted?.(method, params);
    } catch {
      // a listener throwing must not break the connection's dispatch
    }
  }

  /** The call a notification is tied to by the rules of the module comment, if any. */
  private target(method: string, params: Record<string, unknown> | undefined, related: RequestId | undefined): RoutedCall | undefined {
    let target: RoutedCall | undefined;
    const calls = this.calls.entries().map(([, c]) => c);
    if (related !== undefined) {
      for (const c of calls) if (c.requestIds !== undefined && c.requestIds.includes(related)) target = c;
      if (target !== undefined) return target;
    }
    const meta = params?._meta as Record<string, unknown> | undefined;
    const task = relatedTaskId(meta);
    if (task !== undefined) {
      for (const c of calls) if (c.taskIds !== undefined && c.taskIds.includes(task)) target = c;
      if (target !== undefined) return target;
    }
    const token = meta?.progressToken ?? (method === 'notifications/progress' ? params?.progressToken : undefined);
    if (token !== undefined) {
      for (const c of calls) if (c.token !== undefined && c.token === token) target = c;
    } else if (calls.length === 1) {
      const only = calls[0];
      // not a notification about another task than the one this call is known to follow
      if (task === undefined || only.taskIds === undefined || only.taskIds.length === 0) target = only;
    }
    return target;
  }
}

/** `_meta["io.modelcontextprotocol/related-task"].taskId` when it is a string. */
function relatedTaskId(meta: Record<string, unknown> | undefined): string | undefined {
  const related = meta?.[RELATED_TASK_META_KEY];
  const id = related !== null && typeof related === 'object' ? (related as { taskId?: unknown }).taskId : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Hands the notification to the call's listener; false when the call has none for it. */
function deliver(target: RoutedCall, method: string, params: Record<string, unknown> | undefined): boolean {
  const log = method === 'notifications/message';
  if (log ? target.onLog === undefined : target.onNotification === undefined) return false;
  try {
    if (log) target.onLog!(params ?? {});
    else target.onNotification!(method, params);
  } catch {
    // a caller's listener throwing must not break the connection's dispatch
  }
  return true;
}

const routers = new WeakMap<HostClient, Router>();

function routerOf(client: HostClient): Router {
  let r = routers.get(client);
  if (r === undefined) routers.set(client, (r = new Router(client)));
  return r;
}

/**
 * Starts routing `client`'s notifications now (not only from its first call on) and hands
 * every one no call's listener receives to `unrouted`.
 */
export function watchNotifications(client: HostClient, unrouted: UnroutedListener): void {
  routerOf(client).unrouted = unrouted;
}

/**
 * Registers a call on `client` for the rules above (every call counts for exclusivity, with or
 * without listeners); returns the function that ends its window.
 */
export function routeCallNotifications(client: HostClient, call: RoutedCall): () => void {
  return routerOf(client).add(call);
}

let counter = 0;
const PREFIX = `mcpwire-host-${Math.random().toString(36).slice(2, 8)}-`;

/** A progress token for one host call attempt (unique in this process). */
export function newCallToken(): string {
  return PREFIX + ++counter;
}
