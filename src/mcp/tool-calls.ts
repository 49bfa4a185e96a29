/**
 * `tools/call` as the client makes it (server/tools): plain, or task-augmented when the tool's
 * `execution.taskSupport` and the server's capability say so (tasks.ts `toolCallMode`, followed
 * to its result by the task requester), or — when the era has server-directed task handles
 * (2026-07-28's tasks extension) — plain with any task handle in its answer followed; the result's shape checked by the era's codec and its
 * `structuredContent` against the tool's `outputSchema` (structured.ts).
 */
import { CapabilityError } from '../errors.js';
import type { RequestOptions, ResultMap } from '../protocol/connection.js';
import type { CallToolOptions, McpRequestOptions } from './client-options.js';
import type { EraCodec } from './eras/codec.js';
import { checkStructuredContent } from './structured.js';
import { withAbortSignal } from '../util/cancel.js';
import { toolCallMode, type TaskRequester } from './tasks.js';
import type { ToolCatalog } from './tool-catalog.js';
import type { CallToolResult } from './types.js';

export interface ToolCallDeps {
  serverId: string;
  codec: EraCodec;
  tasks: TaskRequester;
  catalog: ToolCatalog;
  /**
   * The client's request path (lifecycle and capability checks, session renewal); with
   * `mapResult`, resolves with what that makes of the result (protocol/connection.ts `ResultMap`).
   */
  request<T>(method: string, params: Record<string, unknown>, options: McpRequestOptions, mapResult?: ResultMap): Promise<T>;
  /** Lists the tools when that is possible now (fills the catalog); false when it is not. */
  listTools(options: RequestOptions): Promise<boolean>;
  validateStructuredContent: 'error' | 'warn' | 'off';
  assertFormats: boolean;
  diagnostic(code: string, message: string): void;
  /** What the mode of a call depends on, memoised (`modeFacts`). */
  problemMemo?: ModeFacts;
}

/**
 * What decides a call's mode: whether the era has task handles, and the server's task problem
 * (`toolsCallProblem`, computed from the capabilities and whether the revision has tasks).
 */
interface ModeFacts {
  /** The negotiation these were read for (the codec's `negotiated` object). */
  negotiated: object | undefined;
  taskHandles: boolean;
  caps: object | undefined;
  tasks: boolean;
  problem: string | undefined;
}

/**
 * Calls a tool. Resolves with the whole CallToolResult; `isError: true` is a result (the tool
 * failed), distinct from a JSON-RPC error (the request failed), which rejects. The plain call
 * (the hot path) is no async function: its result is read where the request settles
 * (`ToolCallDeps.request`'s `mapResult`), with no promise chained after the request's own.
 */
export function callTool(d: ToolCallDeps, name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult> {
  try {
    // 2026-07-28 with the tasks extension: the server decides; a task handle is followed (tasks.ts)
    if (modeFacts(d).taskHandles) return d.tasks.callDirected(name, args, options).then((raw) => finish(d, name, raw));
    if (plainAtOnce(d, name, options)) return plainCall(d, name, args, options);
  } catch (err) {
    return Promise.reject(err);
  }
  return decidedCall(d, name, args, options);
}

/** A plain `tools/call`, its result read by `finish`. */
function plainCall(d: ToolCallDeps, name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult> {
  const params: Record<string, unknown> = { name, arguments: args };
  if (options._meta !== undefined) params._meta = options._meta;
  return d.request<CallToolResult>('tools/call', params, options, (raw) => finish(d, name, raw));
}

/** A call whose mode waits for `modeOf` (a listing, a refusal): plain or task-augmented. */
async function decidedCall(d: ToolCallDeps, name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult> {
  // a task's exchange (its deadline, polls and waits) listens on a standard AbortSignal
  if ((await modeOf(d, name, options)) === 'task') return finish(d, name, await d.tasks.callTool(name, args, withAbortSignal(options)));
  return plainCall(d, name, args, options);
}

/** The result's shape checked by the era's codec and its `structuredContent` against the tool's `outputSchema` (structured.ts). */
function finish(d: ToolCallDeps, name: string, raw: unknown): CallToolResult | Promise<CallToolResult> {
  const result = d.codec.result<CallToolResult>('tools/call', raw);
  const schema = d.catalog.outputSchemaOf(name);
  const mode = d.validateStructuredContent;
  if (schema === undefined || result.isError || mode === 'off') return result;
  return checkStructuredContent(name, schema, result, { serverId: d.serverId, mode, assertFormats: d.assertFormats, diagnostic: d.diagnostic }).then(() => result);
}

/**
 * Whether the call is plain, decided without waiting (the usual case, and the hot path): what
 * `modeOf` would answer with no listing to wait for, no refusal to make and no message to build.
 * A known tool that does not require tasks, called without `task: true`, is plain whatever the
 * server can do; an unknown one called with `task` unset (or 'auto') is plain when the server cannot take
 * task-augmented calls (`toolsCallProblem`, memoised: it depends only on the capabilities and the
 * negotiated revision, and building its message on every call is what is saved).
 */
function plainAtOnce(d: ToolCallDeps, name: string, options: CallToolOptions): boolean {
  const wanted = options.task;
  if (wanted === true) return false;
  if (d.catalog.knows(name)) return d.catalog.taskSupportOf(name) !== 'required';
  return (wanted === undefined || wanted === 'auto') && modeFacts(d).problem !== undefined;
}

/**
 * The mode's facts, read once per negotiation: the codec's `negotiated` object stands for them
 * (a new negotiation is a new object), so a call reads no capability and builds no message. Read
 * again under another object, the task problem is computed again only when the capabilities or
 * the revision's tasks changed.
 */
function modeFacts(d: ToolCallDeps): ModeFacts {
  const negotiated = d.codec.negotiated;
  const memo = d.problemMemo;
  if (memo !== undefined && negotiated !== undefined && memo.negotiated === negotiated) return memo;
  const caps = negotiated?.capabilities;
  const tasks = d.codec.has('tasks');
  const taskHandles = d.codec.has('taskHandles');
  const problem = memo !== undefined && memo.caps === caps && memo.tasks === tasks ? memo.problem : d.tasks.toolsCallProblem();
  return (d.problemMemo = { negotiated, taskHandles, caps, tasks, problem });
}

/**
 * Plain or task-augmented (tasks.ts `toolCallMode`). A server taking task-augmented calls gets
 * its tools listed once when the tool is unknown, so a task-required tool is never called as a
 * plain request (basic.utilities.tasks#7); other servers pay nothing.
 */
async function modeOf(d: ToolCallDeps, name: string, options: CallToolOptions): Promise<'task' | 'plain'> {
  const wanted = options.task ?? 'auto';
  const problem = d.tasks.toolsCallProblem();
  if (wanted === 'auto' && problem !== undefined && !d.catalog.knows(name)) return 'plain';
  if (!d.catalog.knows(name) && !d.catalog.listed) await d.listTools({ signal: options.signal, timeoutMs: options.timeoutMs });
  const decided = toolCallMode(name, d.catalog.taskSupportOf(name), problem, wanted);
  if ('refuse' in decided) throw new CapabilityError(decided.refuse, { serverId: d.serverId, phase: 'request' });
  return decided.mode;
}
