/**
 * What the client answers and listens to: incoming `ping` (basic/utilities/ping), roots
 * (client/roots), sampling (client/sampling) and elicitation (client/elicitation) when the
 * embedding application supplies handlers, and the server's notifications turned into events.
 * Capabilities are declared only for what is really handled (basic/lifecycle: capability
 * negotiation).
 */
import { ConfigError, JsonRpcError } from '../errors.js';
import { ErrorCode } from '../jsonrpc/types.js';
import type { Connection } from '../protocol/connection.js';
import type { MessageExtra } from '../transport/types.js';
import { checkElicitRequest, finishElicitResult, UrlElicitationTracker } from './elicitation.js';
import { RootsState } from './roots.js';
import { checkCreateMessageRequest, checkCreateMessageResult, type SamplingSupport } from './sampling.js';
import { taskReceiverCapability, type TaskReceiverOptions } from './task-receiver-options.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root,
} from './types.js';

export interface HandlerContext {
  signal: AbortSignal;
  /** The server asking (client.elicitation#32: show the user which server requests information). */
  serverId?: string;
}

export interface ClientFeatureOptions {
  /** Roots offered to the server (client/roots). A function is asked on every `roots/list`. */
  roots?: Root[] | (() => Root[] | Promise<Root[]>);
  /** Answers `sampling/createMessage` (client/sampling); a human should be able to review it. */
  onSampling?: (params: CreateMessageRequestParams, ctx: HandlerContext) => Promise<CreateMessageResult>;
  /** Answers `elicitation/create` (client/elicitation). */
  onElicitation?: (params: ElicitRequestParams, ctx: HandlerContext) => Promise<ElicitResult>;
  /**
   * Elicitation modes supported (default: form only); declared as `elicitation.form` /
   * `elicitation.url`. An empty list is a ConfigError (client.elicitation#5).
   */
  elicitationModes?: ('form' | 'url')[];
  /**
   * Fill an accepted form answer's missing fields with the schema's defaults before it is
   * validated and sent; declared as `elicitation.form.applyDefaults`.
   */
  elicitationApplyDefaults?: boolean;
  /**
   * What `onSampling` supports: `tools` declares `sampling.tools` (tool-enabled requests,
   * tool_use/tool_result content), `context` declares `sampling.context` (`includeContext`).
   */
  samplingSupport?: SamplingSupport;
  /** Capabilities to declare in addition (e.g. `experimental`). */
  capabilities?: ClientCapabilities;
  /**
   * Told of every request for a client feature this client does not handle — `sampling/createMessage`
   * without `onSampling`, `elicitation/create` without `onElicitation`, `roots/list` without
   * `roots`. The request is refused all the same (-32601: fail closed); this makes the refusal
   * visible (the host raises a `diagnostic` naming the server and the method).
   */
  onUnsupportedRequest?: (info: UnsupportedRequest) => void;
  /**
   * The client as task receiver (task-receiver.ts): with `enabled: true`, declares
   * `tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create` (for the
   * handlers given) with `tasks.list` and `tasks.cancel`, and runs task-augmented requests as tasks.
   */
  taskReceiver?: TaskReceiverOptions;
}

/** A server's request for a client feature the client does not handle (refused with -32601). */
export interface UnsupportedRequest {
  method: 'sampling/createMessage' | 'elicitation/create' | 'roots/list';
  serverId?: string;
}

export function clientCapabilities(o: ClientFeatureOptions): ClientCapabilities {
  const caps: ClientCapabilities = { ...(o.capabilities ?? {}) };
  // client.roots#1: declared when roots are offered; setRoots() notifies (client.roots#2).
  if (o.roots !== undefined) caps.roots = { listChanged: true };
  // client.sampling#5 (sampling), #3 (sampling.tools only when the handler runs tools).
  if (o.onSampling !== undefined) {
    const s: { tools?: object; context?: object } = {};
    if (o.samplingSupport?.tools === true) s.tools = {};
    if (o.samplingSupport?.context === true) s.context = {};
    caps.sampling = s;
  }
  // client.elicitation#4/#5: declared with the modes really handled, at least one.
  if (o.onElicitation !== undefined) {
    const modes = elicitationModes(o);
    caps.elicitation = Object.fromEntries(
      [...modes].map((m) => [m, m === 'form' && o.elicitationApplyDefaults === true ? { applyDefaults: true } : {}]),
    );
  }
  // basic.utilities.tasks#1: task-augmented sampling/elicitation only when the host enables it.
  const tasks = taskReceiverCapability(o);
  if (tasks !== undefined) caps.tasks = tasks;
  return caps;
}

function elicitationModes(o: ClientFeatureOptions): Set<'form' | 'url'> {
  const modes = new Set<'form' | 'url'>(o.elicitationModes ?? ['form']);
  for (const m of modes) if (m !== 'form' && m !== 'url') throw new ConfigError(`unknown elicitation mode "${String(m)}"`);
  if (modes.size === 0) throw new ConfigError('elicitationModes is empty: a client declaring elicitation must support form or url mode');
  return modes;
}

/** What the client features keep across connections: the roots, URL elicitations in flight. */
export interface ClientFeatureState {
  serverId?: string;
  roots?: RootsState;
  urlElicitations: UrlElicitationTracker;
}

export function createClientFeatureState(o: ClientFeatureOptions, serverId?: string): ClientFeatureState {
  return {
    ...(serverId !== undefined ? { serverId } : {}),
    ...(o.roots !== undefined ? { roots: new RootsState(o.roots) } : {}),
    urlElicitations: new UrlElicitationTracker(),
  };
}

/**
 * Answers one `sampling/createMessage`: checks the request (-32602), runs the handler, checks
 * its result (-32603). Also for task-augmented requests (the task receiver calls it).
 */
export async function answerCreateMessage(
  o: ClientFeatureOptions,
  params: unknown,
  ctx: HandlerContext,
): Promise<CreateMessageResult> {
  if (o.onSampling === undefined) throw new JsonRpcError(ErrorCode.MethodNotFound, 'this client does not support sampling');
  const support = o.samplingSupport ?? {};
  const req = checkCreateMessageRequest(params, support);
  return checkCreateMessageResult(req, await o.onSampling(req, ctx), support);
}

/**
 * Answers one `elicitation/create`: checks mode and request (-32602), runs the handler, applies
 * defaults and validates the answer (-32603 rather than an invalid answer). URL mode ids the user
 * accepted are remembered for `notifications/elicitation/complete`.
 */
export async function answerElicit(
  o: ClientFeatureOptions,
  state: ClientFeatureState,
  params: unknown,
  ctx: HandlerContext,
): Promise<ElicitResult> {
  if (o.onElicitation === undefined) throw new JsonRpcError(ErrorCode.MethodNotFound, 'this client does not support elicitation');
  const req = checkElicitRequest(params, elicitationModes(o));
  const result = finishElicitResult(req, await o.onElicitation(req, ctx), o.elicitationApplyDefaults === true);
  if (req.mode === 'url' && result.action === 'accept') state.urlElicitations.add(req.elicitationId as string);
  return result;
}

/** Events the client emits for server notifications. */
const NOTIFICATION_EVENTS: Readonly<Record<string, string>> = {
  'notifications/message': 'log',
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/updated': 'resourceUpdated',
  'notifications/progress': 'progress',
  'notifications/tasks/status': 'taskStatus',
};

export function installClientFeatures(
  connection: Connection,
  o: ClientFeatureOptions,
  emit: (event: string, payload: unknown, extra?: MessageExtra) => void,
  state: ClientFeatureState = createClientFeatureState(o),
): void {
  // basic.utilities.ping#1: the receiver MUST respond promptly with an empty response.
  connection.setRequestHandler('ping', () => ({}));
  const context = (signal: AbortSignal): HandlerContext => ({ signal, ...(state.serverId !== undefined ? { serverId: state.serverId } : {}) });

  const roots = state.roots;
  if (roots !== undefined) {
    connection.setRequestHandler('roots/list', async () => {
      try {
        return { roots: await roots.list() };
      } catch (err) {
        // client.roots#4: an internal failure is -32603, never a list with a bad root.
        throw new JsonRpcError(ErrorCode.InternalError, `cannot list roots: ${(err as Error).message}`);
      }
    });
  }
  if (o.onSampling !== undefined) {
    connection.setRequestHandler('sampling/createMessage', (params, ctx) =>
      answerCreateMessage(o, params, context(ctx.signal)) as Promise<Record<string, unknown>>,
    );
  }
  if (o.onElicitation !== undefined) {
    connection.setRequestHandler('elicitation/create', (params, ctx) =>
      answerElicit(o, state, params, context(ctx.signal)) as Promise<Record<string, unknown>>,
    );
  }
  // Fail closed, visibly: an undeclared client feature is still -32601, and the embedder is told.
  const onUnsupported = o.onUnsupportedRequest;
  if (onUnsupported !== undefined) {
    const refuse = (method: UnsupportedRequest['method'], feature: string): void =>
      connection.setRequestHandler(method, () => {
        try {
          onUnsupported({ method, ...(state.serverId !== undefined ? { serverId: state.serverId } : {}) });
        } catch {
          // an observer's failure must not turn the refusal into something else
        }
        throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method} (this client does not support ${feature})`);
      });
    if (roots === undefined) refuse('roots/list', 'roots');
    if (o.onSampling === undefined) refuse('sampling/createMessage', 'sampling');
    if (o.onElicitation === undefined) refuse('elicitation/create', 'elicitation');
  }
  for (const [method, event] of Object.entries(NOTIFICATION_EVENTS)) {
    // `extra.relatedRequestId`: it came on that request's stream (Streamable HTTP), a second event argument
    connection.setNotificationHandler(method, (params, extra) => emit(event, params ?? {}, extra));
  }
  // client.elicitation#15: only ids this client knows and has not seen complete.
  connection.setNotificationHandler('notifications/elicitation/complete', (params) => {
    const id = (params as { elicitationId?: unknown } | undefined)?.elicitationId;
    if (state.urlElicitations.complete(id)) emit('elicitationComplete', params);
  });
}

/**
 * The methods an `input_required` result may ask the client for (basic.patterns.mrtr#6), and
 * the handler option that answers each: the same handlers as the server→client requests.
 */
const INPUT_HANDLERS: Readonly<Record<string, keyof ClientFeatureOptions>> = {
  'elicitation/create': 'onElicitation',
  'sampling/createMessage': 'onSampling',
  'roots/list': 'roots',
};

/** What is missing to answer an input request of `method` (its handler option), or undefined. */
export function missingInputHandler(o: ClientFeatureOptions, state: ClientFeatureState, method: unknown): string | undefined {
  const option = typeof method === 'string' ? INPUT_HANDLERS[method] : undefined;
  if (option === undefined) return `an input request of unknown method ${JSON.stringify(method)}`;
  if (option === 'roots' ? state.roots === undefined : o[option] === undefined) return `${method as string} (no \`${option}\` option)`;
  return undefined;
}

/** Answers one input request of a multi round-trip request (mrtr.ts) with the client's handlers. */
export async function answerInputRequest(o: ClientFeatureOptions, state: ClientFeatureState, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
  const ctx: HandlerContext = { signal, ...(state.serverId !== undefined ? { serverId: state.serverId } : {}) };
  if (method === 'sampling/createMessage') return answerCreateMessage(o, params, ctx);
  if (method === 'elicitation/create') return answerElicit(o, state, params, ctx);
  return { roots: await state.roots!.list() };
}
