/**
 * Which server notifications belong to which host tool call (`onLog`, `onNotification` of
 * `host.callTool`). MCP has no general "this notification is about that request" field, so the
 * host ties them by these rules, in order:
 *
 * 1. **By token.** A call that wants notifications is sent with a progress token of its own
 *    (`_meta.progressToken`). A notification whose `params._meta.progressToken` (or, for
 *    progress, `params.progressToken`) equals a running call's token goes to that call only.
 *    A token that is no running call's goes to none.
 * 2. **By exclusivity.** A notification without a token goes to the call when that call is the
 *    only host tool call in flight to that server (sent, not yet settled; queued calls do not
 *    count). With two or more in flight it goes to none of them: it cannot be told apart.
 *
 * `notifications/message` goes to `onLog` (its params: level, logger, data); any other
 * notification the engine gives no meaning to (`notifications/<anything>`, or a custom method
 * such as `tool_event`) goes to `onNotification(method, params)`. Progress goes to `onProgress`
 * through the request itself; list_changed, resources/updated, tasks/status and cancelled are
 * server-wide and stay with the host's events. One listener pair per client, however many calls.
 */
import type { HostClient } from './server-slot.js';

/** Receives the server's log messages tied to a call. */
export type CallLogListener = (params: Record<string, unknown>) => void;
/** Receives the other notifications tied to a call. */
export type CallNotificationListener = (method: string, params: Record<string, unknown> | undefined) => void;

interface RoutedCall {
  token: string | number | undefined;
  onLog?: CallLogListener;
  onNotification?: CallNotificationListener;
}

class Router {
  readonly calls = new Set<RoutedCall>();

  constructor(client: HostClient) {
    client.on('log', (params: unknown) => this.route('notifications/message', params as Record<string, unknown> | undefined));
    client.on('notification', (event: unknown) => {
      const e = event as { method?: unknown; params?: unknown } | undefined;
      if (typeof e?.method === 'string') this.route(e.method, e.params as Record<string, unknown> | undefined);
    });
  }

  private route(method: string, params: Record<string, unknown> | undefined): void {
    if (this.calls.size === 0) return;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const token = meta?.progressToken ?? (method === 'notifications/progress' ? params?.progressToken : undefined);
    let target: RoutedCall | undefined;
    if (token !== undefined) {
      for (const c of this.calls) if (c.token !== undefined && c.token === token) target = c;
    } else if (this.calls.size === 1) {
      target = this.calls.values().next().value;
    }
    if (target === undefined) return;
    try {
      if (method === 'notifications/message') target.onLog?.(params ?? {});
      else target.onNotification?.(method, params);
    } catch {
      // a caller's listener throwing must not break the connection's dispatch
    }
  }
}

const routers = new WeakMap<HostClient, Router>();

/**
 * Registers a call on `client` for the rules above (every call counts for exclusivity, with or
 * without listeners); returns the function that ends its window.
 */
export function routeCallNotifications(client: HostClient, call: RoutedCall): () => void {
  let r = routers.get(client);
  if (r === undefined) routers.set(client, (r = new Router(client)));
  const router = r;
  router.calls.add(call);
  return () => void router.calls.delete(call);
}

let counter = 0;
const PREFIX = `mcpwire-host-${Math.random().toString(36).slice(2, 8)}-`;

/** A progress token for one host call attempt (unique in this process). */
export function newCallToken(): string {
  return PREFIX + ++counter;
}
