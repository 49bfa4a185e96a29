/**
 * Executing agent tool calls (seed §7.3): resolve the public name, check the arguments against
 * the tool's inputSchema (`validate_input`, default on; the one schema module `src/schema/`),
 * ask permission (`permissions.ts`), wait for a place in the server's queue (`max_parallel`,
 * `call-queue.ts`), send `tools/call`, bound the result (cut content stays readable through
 * `mcp_result_read`, `result-pages.ts`). Every failure — unknown tool, server down, denied,
 * timeout, disconnect mid-call — is a typed error result (`outcome.ts`), never a throw: the
 * agent loop carries on (seed §6). Transient failures of idempotent calls are retried
 * (`retry.ts`); a retry after a crash waits for the server to be ready again, within the call's
 * deadline. Also runs the host tools. Nothing a server's config holds secret reaches the agent:
 * results, error texts, rpc error data and `_meta` go through the server's redaction.
 *
 * Timeouts of one call: `timeoutMs` (default: the server's `request_timeout_ms`) bounds each
 * attempt, its wait in the queue included, and restarts on progress when
 * `resetTimeoutOnProgress`; `maxTotalTimeoutMs` (default: the server's `max_total_timeout_ms`,
 * else 10 × timeoutMs) bounds the whole call — queue waits, every attempt, backoff delays and
 * waiting for a reconnect.
 */
import type { EventEmitter } from 'node:events';
import { AbortError, TimeoutError } from '../errors.js';
import type { CallToolOptions } from '../mcp/client.js';
import type { CallToolResult, ServerCapabilities, Tool } from '../mcp/types.js';
import type { RequestId } from '../jsonrpc/types.js';
import { compileSchema, type CompiledSchema } from '../schema/index.js';
import { DEFAULT_MAX_SCHEMA_BYTES } from './tool-schema.js';
import { CallQueue } from './call-queue.js';
import { newCallToken, routeCallNotifications, type CallLogListener, type CallNotificationListener } from './call-notifications.js';
import { decidePermission, type PermissionHook } from './permissions.js';
import { hostToolError, promptGetResult, promptsListResult, resourceReadResult, resourcesListResult } from './host-tool-results.js';
import { isHostToolName, parseHostToolArgs, type HostToolCall } from './host-tools.js';
import { boundJson, classifyError, jsonBytes, MAX_META_BYTES, OUTCOME_CODES, type CallOutcome, type HostCallResult, type RpcErrorInfo } from './outcome.js';
import { boundAndStore, defaultPageBytes, ResultStore, type ResultStoreOptions } from './result-pages.js';
import { mayRetry, NO_RETRY, retryDelay, sleep } from './retry.js';
import { errorText, type HostClient, type ServerSlot } from './server-slot.js';
import { sanitizeText } from './text.js';
import { redactData, redactToolResult, type BoundOptions, type ToolResultForAgent } from './tool-result.js';
import type { ToolCatalog } from './tools.js';

/** What lives across calls: one queue per server, the store of cut results. */
export class CallState {
  private readonly queues = new Map<string, CallQueue>();
  readonly results: ResultStore;

  constructor(options: { results?: ResultStoreOptions } = {}) {
    this.results = new ResultStore(options.results);
  }

  private readonly wakers = new Map<string, Set<() => void>>();
  /** Tools seen in earlier catalogs: a call to a server that is reconnecting is `unavailable`, not `unknown_tool`. */
  private readonly known = new Map<string, { server: string; tool: Tool }>();
  private knownFrom: ToolCatalog | undefined;

  /** The catalog entry of `publicName`, or the last one seen when its server is not ready now. */
  lookup(catalog: ToolCatalog, slots: ReadonlyMap<string, ServerSlot>, publicName: string): { server: string; tool: Tool } | undefined {
    if (this.knownFrom !== catalog) {
      this.knownFrom = catalog;
      for (const [name, entry] of catalog.byName) this.known.set(name, entry);
    }
    const entry = catalog.byName.get(publicName);
    if (entry !== undefined) return entry;
    const last = this.known.get(publicName);
    const slot = last === undefined ? undefined : slots.get(last.server);
    return slot !== undefined && slot.state !== 'ready' ? last : undefined;
  }

  private watching: unknown;

  /** Calls `wake` on the next `status` event of server `id` (one host listener for all waits). */
  onNextStatus(events: Pick<EventEmitter, 'on' | 'off'> | undefined, id: string, wake: () => void): () => void {
    if (events === undefined) return () => {};
    if (this.watching !== events) {
      this.watching = events;
      events.on('status', (s: { id?: string } | undefined) => {
        const set = s?.id === undefined ? undefined : this.wakers.get(s.id);
        if (set !== undefined) for (const w of [...set]) w();
      });
    }
    let set = this.wakers.get(id);
    if (set === undefined) this.wakers.set(id, (set = new Set()));
    set.add(wake);
    const own = set;
    return () => {
      own.delete(wake);
      if (own.size === 0 && this.wakers.get(id) === own) this.wakers.delete(id);
    };
  }

  /** The queue of server `id`; its limit is read from `slots` on every acquire. */
  queue(id: string, slots: ReadonlyMap<string, ServerSlot>): CallQueue {
    let q = this.queues.get(id);
    if (q === undefined) this.queues.set(id, (q = new CallQueue(() => slots.get(id)?.server.config.maxParallel ?? Infinity, id)));
    return q;
  }
}

/** What a call needs from the host. */
export interface CallContext {
  catalog: ToolCatalog;
  slots: ReadonlyMap<string, ServerSlot>;
  permission: PermissionHook | 'allow' | undefined;
  bound: BoundOptions;
  /** Queues and cut results (default: fresh for this call: no limit shared, no handle kept). */
  state?: CallState;
  /** The host: its `status` events wake a retry waiting for its server to be ready. */
  events?: Pick<EventEmitter, 'on' | 'off'>;
  /** Jitter of retry delays (default Math.random). */
  random?: () => number;
}

/**
 * Options of one agent tool call. A task-required tool runs as a task (basic/utilities/tasks):
 * still one awaited result; `onTaskStatus` sees its status changes, aborting sends `tasks/cancel`.
 * `onLog` and `onNotification` get the server's notifications tied to this call by the rules of
 * `call-notifications.ts` (by the request's own Streamable HTTP stream, else by progress token, else
 * only while this is the server's one call in flight).
 */
export interface AgentCallOptions
  extends Pick<CallToolOptions, 'signal' | 'timeoutMs' | 'onProgress' | 'progressIntervalMs' | 'onTaskStatus' | 'resetTimeoutOnProgress' | 'maxTotalTimeoutMs'> {
  /** `notifications/message` from the server during this call (params: level, logger, data). */
  onLog?: CallLogListener;
  /** Any other notification the engine gives no meaning to (e.g. `notifications/tool_event`). */
  onNotification?: CallNotificationListener;
}

const NOT_READY_WAIT_POLL_MS = 250;

type Origin = { server: string; tool: string };

function typed(base: ToolResultForAgent, outcome: CallOutcome, code: string, extra: Partial<HostCallResult> = {}): HostCallResult {
  return { ...base, outcome, code, retryable: false, attempts: 0, ...extra };
}

/** Runs one agent tool call by public name (see the module comment). */
export async function executeToolCall(ctx: CallContext, publicName: string, args: unknown, options: AgentCallOptions = {}): Promise<HostCallResult> {
  const started = Date.now();
  if (isHostToolName(publicName)) return executeHostTool(ctx, publicName, args, options);
  const state = ctx.state ?? new CallState();
  const entry = state.lookup(ctx.catalog, ctx.slots, publicName);
  if (entry === undefined) return typed(hostToolError(`unknown tool "${sanitizeText(publicName, 128, true)}"`), 'unknown_tool', OUTCOME_CODES.unknownTool);
  const where: Origin = { server: entry.server, tool: entry.tool.name };
  const origin = `${entry.server}/${sanitizeText(entry.tool.name, 128, true)}`;
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
    { server: entry.server, tool: entry.tool.name, publicName, arguments: argObject, annotations: entry.tool.annotations, signal: options.signal },
    cfg.permissions,
    ctx.permission,
  );
  if (!decision.allowed) return typed(hostToolError(`permission denied for MCP tool ${origin} (${decision.reason})`), 'denied', OUTCOME_CODES.denied, where);

  const policy = cfg.retry ?? NO_RETRY;
  const timeoutMs = options.timeoutMs ?? cfg.requestTimeoutMs;
  const deadline = started + (options.maxTotalTimeoutMs ?? cfg.maxTotalTimeoutMs ?? timeoutMs * 10);
  const run: Run = { ctx, state, where, origin, tool: entry.tool, args: argObject, options, timeoutMs, deadline, reset: options.resetTimeoutOnProgress ?? cfg.resetTimeoutOnProgress ?? false };
  let attempts = 0;
  let failedClient: HostClient | undefined;
  for (let retry = 0; ; retry++) {
    const slot = ctx.slots.get(entry.server);
    const client = slot?.state === 'ready' && slot.client !== failedClient ? slot.client : undefined;
    let failure: HostCallResult;
    if (slot === undefined || client === undefined) {
      failure = typed(hostToolError(`MCP server "${entry.server}" is not connected (${slot?.state ?? 'unknown'})`), 'unavailable', slot?.state === 'auth_required' ? 'MCPWIRE_AUTH_REQUIRED' : OUTCOME_CODES.unavailable, where);
    } else {
      // The HTTP session id is a bearer credential of this server: never the agent's to see.
      slot.redaction.addSecrets([(client as { sessionId?: string }).sessionId]);
      const sent = await attempt(run, slot, client);
      if (sent.sent) attempts++;
      if ('result' in sent) return finish(run, slot, sent.result, attempts);
      failure = failed(run, slot, sent.error, attempts);
      failedClient = failure.outcome === 'transport' ? client : undefined;
    }
    failure.attempts = attempts;
    failure.retryable = mayRetry(failure.outcome, entry.tool.annotations, policy);
    if (!failure.retryable || retry >= policy.maxRetries || options.signal?.aborted) return failure;
    const delay = retryDelay(retry, policy, ctx.random);
    if (Date.now() + delay >= deadline) return failure;
    try {
      await sleep(delay, options.signal);
      if (!(await waitReady(ctx, state, entry.server, failedClient, deadline, options.signal))) return failure;
    } catch (err) {
      return failed(run, ctx.slots.get(entry.server), abortOf(err, entry.server), attempts);
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
  reset: boolean;
}

/** One attempt: a place in the queue, then `tools/call`. `sent`: the request went out. */
async function attempt(run: Run, slot: ServerSlot, client: HostClient): Promise<{ sent: boolean; result: CallToolResult } | { sent: boolean; error: unknown }> {
  const { options } = run;
  const begin = Date.now();
  const queue = run.state.queue(run.where.server, run.ctx.slots);
  let release = options.signal?.aborted ? undefined : queue.tryAcquire();
  const waited = release === undefined;
  if (release === undefined) {
    try {
      release = await queue.acquire(Math.min(run.timeoutMs, run.deadline - begin), options.signal);
    } catch (error) {
      return { sent: false, error };
    }
  }
  try {
    const now = Date.now();
    // The queue wait counts against this attempt's timeout (and the whole call's deadline).
    const left = Math.min(waited ? run.timeoutMs - (now - begin) : run.timeoutMs, run.deadline - now);
    if (left <= 0) return { sent: false, error: new TimeoutError('tools/call', run.timeoutMs, { serverId: run.where.server, phase: 'request' }) };
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
      if (token !== undefined) {
        call._meta = { progressToken: token };
        const user = options.onProgress;
        call.onProgress = user ?? (() => {});
        if (options.progressIntervalMs !== undefined) call.progressIntervalMs = options.progressIntervalMs;
      }
      return { sent: true, result: await client.callTool(run.tool.name, run.args, call) };
    } catch (error) {
      return { sent: true, error };
    } finally {
      unroute();
    }
  } finally {
    release();
  }
}

/** A result the server answered: redacted, bounded (the whole kept for `mcp_result_read`), typed. */
function finish(run: Run, slot: ServerSlot, raw: CallToolResult, attempts: number): HostCallResult {
  const redacted = redactToolResult(raw, slot.redaction);
  const bounded = boundAndStore(redacted, run.ctx.bound, run.ctx.state ? run.state.results : undefined, run.where);
  const isError = bounded.isError;
  const out = typed(bounded, isError ? 'tool_error' : 'ok', isError ? OUTCOME_CODES.toolError : OUTCOME_CODES.ok, { ...run.where, attempts });
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
  const extra: Partial<HostCallResult> = { ...run.where, attempts };
  if (c.rpcError !== undefined) extra.rpcError = c.rpcError as RpcErrorInfo;
  return typed(hostToolError(`MCP tool ${run.origin} failed: ${errorText(err, redaction.text)}`), c.outcome, queued ? OUTCOME_CODES.queueTimeout : c.code, extra);
}

function abortOf(err: unknown, serverId: string): unknown {
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return new AbortError(`tools/call aborted while waiting to retry: ${err.message}`, { serverId, phase: 'request' });
  return new AbortError(`tools/call aborted while waiting to retry${err === undefined ? '' : `: ${String(err)}`}`, { serverId, phase: 'request' });
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

async function executeHostTool(ctx: CallContext, name: string, args: unknown, options: AgentCallOptions): Promise<HostCallResult> {
  const parsed = parseHostToolArgs(name, args);
  if (!parsed.ok) return typed(hostToolError(parsed.error), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
  const call = parsed.call;
  if (call.tool === 'mcp_result_read') return readResult(ctx, call.resultId, call.cursor);
  // Which server failed is not known here: every server's secrets are taken out.
  const all = {
    text: (s: string) => [...ctx.slots.values()].reduce((t, slot) => slot.redaction.text(t), s),
    data: (s: string) => [...ctx.slots.values()].reduce((t, slot) => slot.redaction.data(t), s),
  };
  try {
    const r = await runHostTool(ctx, call, options);
    if ('outcome' in r) return r as HostCallResult;
    return typed(r, r.isError ? 'tool_error' : 'ok', r.isError ? OUTCOME_CODES.toolError : OUTCOME_CODES.ok, { attempts: 1, ...(call.server !== undefined ? { server: call.server } : {}) });
  } catch (err) {
    const c = classifyError(err, all);
    const extra: Partial<HostCallResult> = { attempts: 1, ...(call.server !== undefined ? { server: call.server } : {}) };
    if (c.rpcError !== undefined) extra.rpcError = c.rpcError;
    return typed(hostToolError(`${call.tool} failed: ${errorText(err, all.text)}`), c.outcome, c.code, extra);
  }
}

/** `mcp_result_read`: one page of a result that was cut for size. */
function readResult(ctx: CallContext, id: string, cursor: string | undefined): HostCallResult {
  const store = ctx.state?.results;
  const page = store?.read(id, cursor, defaultPageBytes(ctx.bound)) ?? { error: `unknown result "${sanitizeText(id, 64, true)}"` };
  if ('error' in page) return typed(hostToolError(`mcp_result_read: ${sanitizeText(page.error, 300, true)}`), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
  const content = [...page.content];
  const structuredContent: Record<string, unknown> = { resultId: id, server: page.server, tool: page.tool };
  if (page.nextCursor !== undefined) {
    structuredContent.nextCursor = page.nextCursor;
    content.push({ type: 'text', text: `[mcpwire: more of this result: call mcp_result_read with {"resultId":"${id}","cursor":"${page.nextCursor}"}]` });
  } else {
    content.push({ type: 'text', text: '[mcpwire: end of this result]' });
  }
  return typed({ content, structuredContent, isError: false }, 'ok', OUTCOME_CODES.ok, { server: page.server, tool: page.tool, resultId: id });
}

async function runHostTool(ctx: CallContext, call: Exclude<HostToolCall, { tool: 'mcp_result_read' }>, options: AgentCallOptions): Promise<ToolResultForAgent | HostCallResult> {
  const feature = call.tool === 'mcp_resources_list' || call.tool === 'mcp_resource_read' ? 'resources' : 'prompts';
  const targets = pickServers(ctx, call.server, feature);
  if (typeof targets === 'string') return typed(hostToolError(targets), 'unavailable', OUTCOME_CODES.unavailable, call.server !== undefined ? { server: call.server } : {});
  for (const s of targets) s.redaction.addSecrets([(s.client as { sessionId?: string } | undefined)?.sessionId]);
  const req = (slot: ServerSlot) => ({ signal: options.signal, timeoutMs: options.timeoutMs ?? slot.server.config.requestTimeoutMs });
  switch (call.tool) {
    case 'mcp_resources_list': {
      const { ok, failed } = await eachServer(targets, async (s) => ({
        server: s.server.id,
        resources: redactData(await s.client!.listResources(req(s)), s.redaction),
        templates: redactData(s.client!.listResourceTemplates ? await s.client!.listResourceTemplates(req(s)).catch(() => []) : [], s.redaction),
      }));
      return withFailures(resourcesListResult(ok, { ...ctx.bound, cursor: call.cursor }), failed, targets.length);
    }
    case 'mcp_prompts_list': {
      const { ok, failed } = await eachServer(targets, async (s) => ({ server: s.server.id, prompts: redactData(await s.client!.listPrompts(req(s)), s.redaction) }));
      return withFailures(promptsListResult(ok, { ...ctx.bound, cursor: call.cursor }), failed, targets.length);
    }
    case 'mcp_resource_read':
      return resourceReadResult(call.server, call.uri, redactData(await targets[0].client!.readResource(call.uri, req(targets[0])), targets[0].redaction), ctx.bound);
    case 'mcp_prompt_get':
      return promptGetResult(call.server, call.name, redactData(await targets[0].client!.getPrompt(call.name, call.arguments, req(targets[0])), targets[0].redaction), ctx.bound);
  }
}

/** Runs `fn` on every server; one server failing does not fail the others. */
async function eachServer<T>(slots: ServerSlot[], fn: (s: ServerSlot) => Promise<T>): Promise<{ ok: T[]; failed: string[] }> {
  const settled = await Promise.allSettled(slots.map(fn));
  const ok: T[] = [];
  const failed: string[] = [];
  settled.forEach((r, i) => (r.status === 'fulfilled' ? ok.push(r.value) : failed.push(`${slots[i].server.id}: ${errorText(r.reason, slots[i].redaction.text)}`)));
  return { ok, failed };
}

/** Notes the servers whose listing failed; an error result when all of them failed. */
function withFailures(result: ToolResultForAgent, failed: string[], total: number): ToolResultForAgent | HostCallResult {
  if (failed.length === 0) return result;
  if (failed.length === total) return typed(hostToolError(`listing failed on every server: ${failed.join('; ')}`), 'transport', 'MCPWIRE_LISTING_FAILED', { attempts: 1 });
  result.content.push({ type: 'text', text: `[mcpwire: listing failed on ${failed.length} server(s): ${failed.join('; ')}]` });
  return result;
}

/** The ready servers offering `feature` (one when `id` is given), or why there are none. */
function pickServers(ctx: CallContext, id: string | undefined, feature: keyof ServerCapabilities & ('resources' | 'prompts')): ServerSlot[] | string {
  const offers = (s: ServerSlot) => s.state === 'ready' && s.client !== undefined && s.client.serverCapabilities?.[feature] !== undefined;
  if (id !== undefined) {
    const slot = ctx.slots.get(id);
    if (slot === undefined) return `unknown MCP server "${sanitizeText(id, 64, true)}"`;
    if (slot.state !== 'ready' || slot.client === undefined) return `MCP server "${id}" is not connected (${slot.state})`;
    if (!offers(slot)) return `MCP server "${id}" does not offer ${feature}`;
    return [slot];
  }
  return [...ctx.slots.values()].filter(offers).sort((a, b) => (a.server.id < b.server.id ? -1 : 1));
}
