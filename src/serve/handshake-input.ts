/**
 * A 2025-11-25 session's own client side on the requests the gateway makes for it to a
 * 2026-07-28 server: the capabilities that session declared at `initialize` go down as the
 * request's `io.modelcontextprotocol/clientCapabilities` (basic#44: capabilities travel on every
 * request; the host's client would otherwise announce the first client's), and the server's
 * multi round-trip input requests go up to that session, each as the 2025-11-25 request it is
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`: the same methods and params,
 * basic.patterns.mrtr#6), the answers going back under the server's keys. A handshake-era server
 * reads none of this: it was told the host's capabilities at its own `initialize`.
 */
import { JsonRpcError } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';
import type { InputRequests, RequestInputOptions } from '../mcp/client-options.js';
import { TASKS_EXTENSION } from '../mcp/capabilities.js';
import { authorizedDirectoryRoots } from '../mcp/roots.js';
import type { ClientCapabilities } from '../mcp/types.js';

/** The input request methods of 2026-07-28 and the capability each needs (basic.patterns.mrtr#13). */
const FEATURE_OF: Readonly<Record<string, 'elicitation' | 'sampling' | 'roots'>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** How long a 2025-11-25 client may take to answer one input request (a human may be asked), as for its server requests (gateway.ts). */
const ANSWER_TIMEOUT_MS = 10 * 60_000;

/** What the input rounds need of the session: its connection's requests, and the server's redaction of what goes up. */
export interface HandshakeSide {
  /** What the session declared at `initialize`. */
  declared: ClientCapabilities;
  /** Sends a request to the session's client. */
  request<T>(method: string, params: Record<string, unknown> | undefined, options: { signal: AbortSignal; timeoutMs: number }): Promise<T>;
  /** The serving server's redaction (what goes up went through it, as its results do). */
  redact<T>(value: T): T;
  /** The directories the config authorizes for the serving server (`roots`): the gateway answers its roots itself. */
  configuredRoots?: readonly string[];
}

/**
 * The 2026-07-28 capabilities of a 2025-11-25 client's declaration: only what it declared, in
 * the newer revision's shape — `elicitation`, `sampling`, `experimental`, `extensions` and any
 * other key as declared; `roots` without `listChanged` (2026-07-28 has no
 * `notifications/roots/list_changed`: its changelog removed it); `tasks` left out (2025-11-25's
 * task-augmented sampling and elicitation have no 2026-07-28 counterpart: an input request is
 * answered within its round).
 *
 * Two features are the gateway's own, declared whoever the client is, because the gateway does
 * them itself (client.roots#2, basic/versioning's extension negotiation: a client declares what
 * it supports on each request; basic#48: the server may then rely on it, and can):
 * - roots for a server whose directories the config gives (`roots`): the gateway answers that
 *   server's `roots/list` from the config, not the client;
 * - the tasks extension (`io.modelcontextprotocol/tasks`): the host follows a task handle to
 *   its result itself and the client gets the result (host/server-slot.ts declares it for every
 *   server), so a task-required tool runs for a client that never heard of tasks.
 */
export function modernClientCapabilities(declared: ClientCapabilities, rootsConfigured: boolean): ClientCapabilities {
  const { tasks: _tasks, roots, extensions, ...rest } = declared;
  const out: ClientCapabilities = { ...rest };
  if (roots !== undefined || rootsConfigured) out.roots = {};
  const theirs = extensions !== null && typeof extensions === 'object' ? (extensions as Record<string, unknown>) : {};
  out.extensions = { ...theirs, [TASKS_EXTENSION]: {} };
  return out;
}

/** The request options of a 2025-11-25 session's request to a 2026-07-28 server (see the module comment). */
export function handshakeInput(side: HandshakeSide): RequestInputOptions {
  const configured = side.configuredRoots;
  const capabilities = modernClientCapabilities(side.declared, configured !== undefined);
  return {
    clientCapabilities: capabilities,
    onInputRequests: async (requests: InputRequests, signal: AbortSignal) => {
      const entries = Object.entries(requests);
      // basic.patterns.mrtr#13: a server asking what the request did not declare is refused, naming what it asked
      const undeclared = entries.filter(([, r]) => {
        const feature = FEATURE_OF[r?.method];
        return feature === undefined || capabilities[feature] === undefined;
      });
      if (undeclared.length > 0) {
        throw new JsonRpcError(-32603, `the server asks for input its client did not declare: ${undeclared.map(([k, r]) => `${JSON.stringify(excerpt(k, 100))} (${excerpt(String(r?.method), 100)})`).join(', ')}`);
      }
      const answers: Record<string, unknown> = {};
      // one at a time, as a client answers its own (each may ask a human)
      for (const [key, r] of entries) {
        signal.throwIfAborted();
        if (r.method === 'roots/list' && configured !== undefined) answers[key] = { roots: authorizedDirectoryRoots(configured)() };
        else answers[key] = await side.request(r.method, r.params === undefined ? undefined : side.redact(r.params), { signal, timeoutMs: ANSWER_TIMEOUT_MS });
      }
      return answers;
    },
  };
}
