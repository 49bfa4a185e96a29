/**
 * Executing agent tool calls: resolve the public name, check the arguments against
 * the tool's inputSchema (`validate_input`, default on; the one schema module `src/schema/`),
 * ask permission (`permissions.ts`), wait for a place in the server's queue, then in the host's
 * (`max_parallel`, `call-queue.ts`), send `tools/call`, bound the result (cut content stays readable through
 * `mcp_result_read`, `result-pages.ts`). Every failure — unknown tool, server down, denied,
 * timeout, disconnect mid-call — is a typed error result (`outcome.ts`), never a throw: the
 * agent loop carries on. Transient failures of idempotent calls are retried
 * (`retry.ts`); a retry after a crash waits for the server to be ready again, within the call's
 * deadline. The host tools run in `host-tool-calls.ts`; every result carries its `durationMs`. Nothing a server's config holds secret reaches the agent:
 * results, error texts, rpc error data and `_meta` go through the server's redaction.
 *
 * Timeouts of one call: `timeoutMs` (default: the server's `request_timeout_ms`) bounds each
 * attempt, its wait in the queue included, and restarts on progress when
 * `resetTimeoutOnProgress`; `maxTotalTimeoutMs` (default: the server's `max_total_timeout_ms`,
 * else 10 × timeoutMs) bounds the whole call — queue waits, every attempt, backoff delays and
 * waiting for a reconnect.
 */
import { AbortError, TimeoutError } from '../errors.js';
import type { CallToolOptions } from '../mcp/client.js';
import type { CallToolResult, Tool } from '../mcp/types.js';
import { isAppCallable, isModelVisible } from '../mcp/ui-meta.js';
import type { RequestId } from '../jsonrpc/types.js';
import { compileSchema, type CompiledSchema } from '../schema/index.js';
import { sleep } from '../util/sleep.js';
import { abortSignalOf } from '../util/cancel.js';
import { DEFAULT_MAX_SCHEMA_BYTES } from './tool-schema.js';
import { newCallToken, routeCallNotifications } from './call-notifications.js';
import { CallState } from './call-state.js';
import type { AgentCallOptions, CallContext } from './call-context.js';
import type { RetrySettings } from './config/types.js';
import { decidePermission } from './permissions.js';
import { hostToolError } from './host-tool-results.js';
import { executeHostTool } from './host-tool-calls.js';
import { isHostToolName } from './host-tools.js';
import { boundJson, classifyError, jsonBytes, MAX_META_BYTES, OUTCOME_CODES, typedResult as typed, type HostCallResult, type RpcErrorInfo } from './outcome.js';
import { boundAndStore } from './result-pages.js';
import { withSandboxNote } from './sandbox-call.js';
import { mayRetry, NO_RETRY, retryDelay } from './retry.js';
import { errorText, type HostClient, type ServerSlot } from './server-slot.js';
import { sanitizeText } from './text.js';
import { redactData, redactToolResult } from './tool-result.js';

export { CallState } from './call-state.js';

export type { AgentCallOptions, CallContext } from './call-context.js';

const NOT_READY_WAIT_POLL_MS = 250;

type Origin = { server: string; tool: string };


/** Runs one agent tool call by public name (see the module comment). */
export async function executeToolCall(ctx: CallContext, publicName: string, args: unknown, options: AgentCallOptions = {}): Promise<HostCallResult> {
  const started = Date.now();
  let result: HostCallResult;
  if (isHostToolName(publicName)) result = await executeHostTool(ctx, publicName, args, options);
  else {
    const run = await prepare(ctx, publicName, args, options, started);
    result = 'outcome' in run ? run : await withRetries(run);
  }
  result.durationMs = Math.max(0, Date.now() - started);
  return result;
}

/** Why `caller` may not call `tool` by its MCP Apps visibility, or undefined. */
function visibilityRefusal(tool: Tool, caller: 'agent' | 'app', origin: string): string | undefined {
  if (caller === 'agent' && !isModelVisible(tool)) return `MCP tool ${origin} is for its app's view only (_meta.ui.visibility lacks "model"); not sent`;
  if (caller === 'app' && !isAppCallable(tool)) return `MCP tool ${origin} may not be called by an app view (_meta.ui.visibility lacks "app"); not sent`;
  return undefined;
}

/** The call checked (known tool, object arguments valid for its schema, permission) and its limits; or why not. */
async function prepare(ctx: CallContext, publicName: string, args: unknown, options: AgentCallOptions, started: number): Promise<Run | HostCallResult> {
  const state = ctx.state ?? new CallState();
  const entry = state.lookup(ctx.catalog, ctx.slots, publicName);
  if (entry === undefined) return typed(hostToolError(`unknown tool "${sanitizeText(publicName, 128, true)}"`), 'unknown_tool', OUTCOME_CODES.unknownTool);
  const where: Origin = { server: entry.server, tool: entry.tool.name };
  const origin = `${entry.server}/${sanitizeText(entry.tool.name, 128, true)}`;
  const refused = visibilityRefusal(entry.tool, options.caller ?? 'agent', origin);
  if (refused !== undefined) return typed(hostToolError(refused), 'denied', OUTCOME_CODES.denied, where);
  const first = ctx.slots.get(entry.server);
  if (first === undefined) return typed(hostToolError(`MCP server "${entry.server}" is not connected (unknown)`), 'unavailable', OUTCOME_CODES.unavailable, where);
  const cfg = first.server.config;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return typed(hostToolError(`MCP tool ${origin}: arguments must be a JSON object`), 'invalid_arguments', OUTCOME_CODES.invalidArguments, where);
  }
  const argObject = args as Record<string, unknown>;
  if (cfg.validateInput !== false) {
    const problem = inputProblem(entry.tool, argObject);
    if (problem !== undefined) return typed(hostToolError(`invalid arguments for MCP tool ${origin} (not sent): ${problem}`), 'invalid_arguments', OUTCOME_CODES.invalidArguments, where);
  }
  const decision = await decidePermission(
    { server: entry.server, tool: entry.tool.name, publicName, arguments: argObject, annotations: entry.tool.annotations, annotationsTrusted: cfg.trustAnnotations === true, signal: typeof ctx.permission === 'function' ? abortSignalOf(options.signal) : undefined },
    cfg.permissions,
    ctx.permission,
  );
  if (!decision.allowed) return typed(hostToolError(`permission denied for MCP tool ${origin} (${decision.reason})`), 'denied', OUTCOME_CODES.denied, where);
  const timeoutMs = options.timeoutMs ?? cfg.requestTimeoutMs;
  const deadline = started + (options.maxTotalTimeoutMs ?? cfg.maxTotalTimeoutMs ?? timeoutMs * 10);
  const policy = cfg.retry ?? ctx.retry ?? NO_RETRY;
  return { ctx, state, where, origin, tool: entry.tool, args: argObject, options, timeoutMs, deadline, policy, reset: options.resetTimeoutOnProgress ?? cfg.resetTimeoutOnProgress ?? false };
}

/** Attempts until one answers, the failure may not be retried, the retries run out or the deadline passes. */
async function withRetries(run: Run): Promise<HostCallResult> {
  const { ctx, state, where, options, policy } = run;
  let attempts = 0;
  let failedClient: HostClient | undefined;
  for (let retry = 0; ; retry++) {
    const slot = ctx.slots.get(where.server);
    const client = slot?.state === 'ready' && slot.client !== failedClient ? slot.client : undefined;
    let failure: HostCallResult;
    if (slot === undefined || client === undefined) {
      failure = typed(hostToolError(`MCP server "${where.server}" is not connected (${slot?.state ?? 'unknown'})`), 'unavailable', slot?.state === 'auth_required' ? 'MCPWIRE_AUTH_REQUIRED' : OUTCOME_CODES.unavailable, where);
    } else {
      // The HTTP session id is a bearer credential of this server: never the agent's to see.
      slot.redaction.addSecrets([(client as { sessionId?: string }).sessionId]);
      const mark = slot.denials.count;
      const sent = await attempt(run, slot, client);
      if (sent.sent) attempts++;
      if ('result' in sent) return withSandboxNote(finish(run, slot, sent.result, attempts), slot, mark);
      failure = withSandboxNote(failed(run, slot, sent.error, attempts), slot, mark);
      failedClient = failure.outcome === 'transport' ? client : undefined;
    }
    failure.attempts = attempts;
    // server.tools#6: the tool's hints count only for a server the user marked trust_annotations
    failure.retryable = mayRetry(failure.outcome, run.tool.annotations, policy, { code: failure.code, rpcCode: failure.rpcError?.code }, slot?.server.config.trustAnnotations === true);
    if (!failure.retryable || retry >= policy.maxRetries || options.signal?.aborted) return failure;
    const delay = retryDelay(retry, policy, ctx.random);
    if (Date.now() + delay >= run.deadline) return failure;
    try {
      const signal = abortSignalOf(options.signal);
      await sleep(delay, signal);
      if (!(await waitReady(ctx, state, where.server, failedClient, run.deadline, signal))) return failure;
    } catch (err) {
      return failed(run, ctx.slots.get(where.server), abortOf(err, where.server), attempts);
    }
  }
}

interface Run {
  ctx: CallContext;
  state: CallState;
  where: Origin;
  origin: string;
  tool: Tool;
  args: Record<string, unknown>;
  options: AgentCallOptions;
  timeoutMs: number;
  deadline: number;
  policy: RetrySettings;
  reset: boolean;
}

type Sent = { sent: boolean; result: CallToolResult } | { sent: boolean; error: unknown };

/** One attempt: a place in the server's queue and in the host's, then `tools/call`. `sent`: the request went out. */
async function attempt(run: Run, slot: ServerSlot, client: HostClient): Promise<Sent> {
  const begin = Date.now();
  const places = await takePlaces(run, begin);
  if ('error' in places) return { sent: false, error: places.error };
  try {
    const now = Date.now();
    // The queue waits count against this attempt's timeout (and the whole call's deadline).
    const left = Math.min(places.waited ? run.timeoutMs - (now - begin) : run.timeoutMs, run.deadline - now);
    if (left <= 0) return { sent: false, error: new TimeoutError('tools/call', run.timeoutMs, { serverId: run.where.server, phase: 'request' }) };
    return await send(run, slot, client, left, now);
  } finally {
    places.release();
  }
}

/**
 * A place in the server's `max_parallel` queue, then in the host's (always in that order: a
 * call never holds a host place while it waits for its server). `waited`: a queue made it wait.
 */
async function takePlaces(run: Run, begin: number): Promise<{ release: () => void; waited: boolean } | { error: unknown }> {
  const signal = run.options.signal;
  const held: (() => void)[] = [];
  const release = (): void => held.splice(0).reverse().forEach((r) => r());
  let waited = false;
  for (const queue of [run.state.queue(run.where.server, run.ctx.slots), run.state.hostQueue]) {
    const now = Date.now();
    const free = signal?.aborted ? undefined : queue.tryAcquire();
    if (free !== undefined) {
      held.push(free);
      continue;
    }
    waited = true;
    try {
      held.push(await queue.acquire(Math.min(run.timeoutMs - (now - begin), run.deadline - now), abortSignalOf(signal)));
    } catch (error) {
      release();
      return { error };
    }
  }
  return { release, waited };
}

/** Sends `tools/call` with `left` ms, its notifications routed to the call's listeners while it runs. */
async function send(run: Run, slot: ServerSlot, client: HostClient, left: number, now: number): Promise<Sent> {
  const { options } = run;
  const wants = options.onProgress !== undefined || options.onLog !== undefined || options.onNotification !== undefined || run.reset;
  const token = wants ? newCallToken() : undefined;
  // What the server sends goes to the embedder with the server's credentials taken out, as results do.
  const { onLog, onNotification } = options;
  // rule 0: the ids of this attempt's tools/call requests (a session renewal replays with a new one)
  const requestIds: RequestId[] = [];
  // rule 1: the task a task-augmented call created (its first status report names it)
  const taskIds: string[] = [];
  const unroute = routeCallNotifications(client, {
    token,
    requestIds,
    taskIds,
    onLog: onLog && ((p) => onLog(redactData(p, slot.redaction))),
    onNotification: onNotification && ((m, p) => onNotification(m, p === undefined ? p : redactData(p, slot.redaction))),
  });
  try {
    const call: CallToolOptions = {
      signal: options.signal,
      timeoutMs: left,
      maxTotalTimeoutMs: Math.max(1, run.deadline - now),
      resetTimeoutOnProgress: run.reset,
      onTaskStatus: (task) => {
        if (!taskIds.includes(task.taskId)) taskIds.push(task.taskId);
        options.onTaskStatus?.(task);
      },
      onRequestId: (id) => void requestIds.push(id),
    };
    // a caller standing for another client (the gateway): its capabilities and its answers to input rounds
    if (options.clientCapabilities !== undefined) call.clientCapabilities = options.clientCapabilities;
    if (options.onInputRequests !== undefined) call.onInputRequests = options.onInputRequests;
    if (options._meta !== undefined) {
      const { progressToken: _ignored, ...rest } = options._meta;
      if (Object.keys(rest).length > 0) call._meta = rest;
    }
    if (token !== undefined) {
      call._meta = { ...call._meta, progressToken: token };
      call.onProgress = options.onProgress ?? (() => {});
      if (options.progressIntervalMs !== undefined) call.progressIntervalMs = options.progressIntervalMs;
    }
    return { sent: true, result: await client.callTool(run.tool.name, run.args, call) };
  } catch (error) {
    return { sent: true, error };
  } finally {
    unroute();
  }
}

/** A result the server answered: redacted, bounded (the whole kept for `mcp_result_read`), typed. */
function finish(run: Run, slot: ServerSlot, raw: CallToolResult, attempts: number): HostCallResult {
  const redacted = redactToolResult(raw, slot.redaction);
  const bounded = boundAndStore(redacted, run.ctx.bound, run.ctx.state ? run.state.results : undefined, run.where);
  const isError = bounded.isError;
  const out = typed(bounded, isError ? 'tool_error' : 'ok', isError ? OUTCOME_CODES.toolError : OUTCOME_CODES.ok, { server: run.where.server, tool: run.where.tool, attempts });
  const meta = raw?._meta;
  if (meta !== undefined && meta !== null && typeof meta === 'object') {
    const clean = redactData(meta as Record<string, unknown>, slot.redaction);
    if (boundJson(clean, MAX_META_BYTES) !== undefined) out._meta = clean;
    else out.metaDropped = jsonBytes(clean);
  }
  return out;
}

/** A failed attempt as a typed error result (text for the model, fields for the host). */
function failed(run: Run, slot: ServerSlot | undefined, err: unknown, attempts: number): HostCallResult {
  const redaction = slot?.redaction ?? { text: (s: string) => s, data: (s: string) => s };
  const c = classifyError(err, redaction);
  const queued = c.outcome === 'timeout' && err instanceof TimeoutError && err.method.startsWith('tools/call (waiting');
  const extra: Partial<HostCallResult> = { server: run.where.server, tool: run.where.tool, attempts };
  if (c.rpcError !== undefined) extra.rpcError = c.rpcError as RpcErrorInfo;
  return typed(hostToolError(`MCP tool ${run.origin} failed: ${errorText(err, redaction.text)}`), c.outcome, queued ? OUTCOME_CODES.queueTimeout : c.code, extra);
}

/** The caller's abort during a retry wait (the signal's reason: any value) as the call's AbortError. */
function abortOf(err: unknown, serverId: string): unknown {
  const why = err instanceof Error ? err.message : err === undefined ? '' : String(err);
  return new AbortError(`tools/call aborted while waiting to retry${why === '' ? '' : `: ${why}`}`, { serverId, phase: 'request' });
}

/** Compiled inputSchemas per listed tool object (a re-listing brings new objects). */
const validators = new WeakMap<Tool, CompiledSchema | undefined>();

/**
 * Why `args` do not match the tool's inputSchema (fields named), or undefined. An unusable
 * schema checks nothing, nor does one over the adapter's size cap (untrusted: the server checks).
 */
function inputProblem(tool: Tool, args: Record<string, unknown>): string | undefined {
  let compiled = validators.get(tool);
  if (!validators.has(tool)) {
    compiled = jsonBytes(tool.inputSchema) <= DEFAULT_MAX_SCHEMA_BYTES ? compileSchema(tool.inputSchema) : undefined;
    validators.set(tool, compiled);
  }
  if (compiled === undefined || !compiled.ok) return undefined;
  const problems = compiled.validate(args);
  if (problems.length === 0) return undefined;
  return problems
    .slice(0, 5)
    .map((p) => `${sanitizeText(p.path, 200, true)}: ${sanitizeText(p.message, 200, true)}`)
    .join('; ');
}

/**
 * Waits until server `id` is ready with a client other than `failed` (the one a call just lost),
 * woken by the host's `status` events (and a slow poll). False when it cannot become ready
 * (removed, disabled, closed, waiting for login, out of reconnect attempts) or `deadline` passes;
 * rejects when `signal` aborts.
 */
async function waitReady(ctx: CallContext, state: CallState, id: string, failed: HostClient | undefined, deadline: number, signal: AbortSignal | undefined): Promise<boolean> {
  for (;;) {
    signal?.throwIfAborted();
    const slot = ctx.slots.get(id);
    if (slot === undefined) return false;
    if (slot.state === 'ready' && slot.client !== undefined && slot.client !== failed) return true;
    if (slot.state === 'disabled' || slot.state === 'stopped' || slot.state === 'untrusted' || slot.state === 'closed' || slot.state === 'auth_required') return false;
    if (slot.state === 'error' && slot.nextRetryAt === undefined) return false;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        unwatch();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, NOT_READY_WAIT_POLL_MS));
      const unwatch = state.onNextStatus(ctx.events, id, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

