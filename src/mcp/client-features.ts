/**
 * What the client answers and listens to: incoming `ping` (basic/utilities/ping), roots
 * (client/roots), sampling (client/sampling) and elicitation (client/elicitation) when the
 * embedding application supplies handlers, and the server's notifications turned into events.
 * Capabilities are declared only for what is really handled (basic/lifecycle: capability
 * negotiation).
 */
import { JsonRpcError } from '../errors.js';
import { ErrorCode } from '../jsonrpc/types.js';
import type { Connection } from '../protocol/connection.js';
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
}

export interface ClientFeatureOptions {
  /** Roots offered to the server (client/roots). A function is asked on every `roots/list`. */
  roots?: Root[] | (() => Root[] | Promise<Root[]>);
  /** Answers `sampling/createMessage` (client/sampling); a human should be able to review it. */
  onSampling?: (params: CreateMessageRequestParams, ctx: HandlerContext) => Promise<CreateMessageResult>;
  /** Answers `elicitation/create` (client/elicitation). */
  onElicitation?: (params: ElicitRequestParams, ctx: HandlerContext) => Promise<ElicitResult>;
  /** Elicitation modes supported (default: form only). */
  elicitationModes?: ('form' | 'url')[];
  /** Capabilities to declare in addition (e.g. `experimental`). */
  capabilities?: ClientCapabilities;
}

export function clientCapabilities(o: ClientFeatureOptions): ClientCapabilities {
  const caps: ClientCapabilities = { ...(o.capabilities ?? {}) };
  if (o.roots !== undefined) caps.roots = { listChanged: true };
  if (o.onSampling !== undefined) caps.sampling = {};
  if (o.onElicitation !== undefined) {
    const modes = o.elicitationModes ?? ['form'];
    caps.elicitation = Object.fromEntries(modes.map((m) => [m, {}]));
  }
  return caps;
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
  'notifications/elicitation/complete': 'elicitationComplete',
};

export function installClientFeatures(
  connection: Connection,
  o: ClientFeatureOptions,
  emit: (event: string, payload: unknown) => void,
): void {
  // basic.utilities.ping#1: the receiver MUST respond promptly with an empty response.
  connection.setRequestHandler('ping', () => ({}));

  if (o.roots !== undefined) {
    const roots = o.roots;
    connection.setRequestHandler('roots/list', async () => ({
      roots: typeof roots === 'function' ? await roots() : roots,
    }));
  }
  if (o.onSampling !== undefined) {
    const handler = o.onSampling;
    connection.setRequestHandler('sampling/createMessage', (params, ctx) => {
      const p = params as CreateMessageRequestParams | undefined;
      if (!p || !Array.isArray(p.messages) || typeof p.maxTokens !== 'number') {
        throw new JsonRpcError(ErrorCode.InvalidParams, 'sampling/createMessage needs "messages" and "maxTokens"');
      }
      return handler(p, { signal: ctx.signal }) as Promise<Record<string, unknown>>;
    });
  }
  if (o.onElicitation !== undefined) {
    const handler = o.onElicitation;
    const modes = new Set(o.elicitationModes ?? ['form']);
    connection.setRequestHandler('elicitation/create', (params, ctx) => {
      const p = params as ElicitRequestParams | undefined;
      const mode = p?.mode ?? 'form';
      if (!p || typeof p.message !== 'string') {
        throw new JsonRpcError(ErrorCode.InvalidParams, 'elicitation/create needs a "message"');
      }
      if (!modes.has(mode)) {
        throw new JsonRpcError(ErrorCode.InvalidParams, `elicitation mode "${mode}" is not supported by this client`);
      }
      return handler(p, { signal: ctx.signal }) as Promise<Record<string, unknown>>;
    });
  }
  for (const [method, event] of Object.entries(NOTIFICATION_EVENTS)) {
    connection.setNotificationHandler(method, (params) => emit(event, params ?? {}));
  }
}
