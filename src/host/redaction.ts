/**
 * What the host hides in what it hands out. A server's configured secrets reach a host's callers
 * in two ways: in error text (a crashing server's stderr tail, an HTTP error body, an error
 * message quoting a header) and in data a server echoes back.
 *
 * The secrets are the configured values that are credentials (`configuredSecrets`,
 * src/trace/configured-secrets.ts): env and header values whose name says so (TOKEN, SECRET,
 * PASSWORD, API_KEY, Authorization, Cookie, …) or that look like one (`Bearer …`, `sk-…`,
 * `ghp_…`, a JWT, a URL with credentials, a long random token), values the entry's
 * `secret_names` marks, the URL's credentials and the OAuth client secret. Other values (a root
 * directory, a workspace name, a protocol version) are configuration: blanking every occurrence
 * of their text would garble paths and messages (`/tmp/[redacted]-cli-…`).
 *
 * - Error text — `status().lastError`, `diagnostic` events, tool error results the host writes
 *   (call failed, server died, listing failed) and the text of tool results the server marks
 *   `isError` — goes through the trace redactor: the secrets in all their derived forms, plus the
 *   credential patterns (`Authorization: …`, `?key=…`, `NAME_TOKEN=…`, `scheme://user:pass@`…).
 * - Data — the content of successful tool results, resources, prompts and listings — keeps its
 *   text but for the secrets in all their forms: no pattern rule rewrites data.
 */
import { Redactor } from '../trace/redact.js';
import { configuredSecrets } from '../trace/configured-secrets.js';
import type { ResolvedServer } from './config/types.js';
import type { ClientOptions } from '../mcp/client-options.js';

/** The most recent run-time secrets (HTTP session ids) kept per server; older ones are dead sessions. */
const KEEP_RUNTIME_SECRETS = 8;

/** The two redactions of one server (see the module comment). */
export interface ServerRedaction {
  /** Error text: the server's secrets in all their forms, plus the credential patterns. */
  text(s: string): string;
  /** Data: the server's secrets in all their forms; nothing else changes. */
  data(s: string): string;
  /** Adds credentials learnt at run time (the HTTP session id) to both; a known value costs nothing. */
  addSecrets(values: Iterable<string | undefined>): void;
}

/** The redactions for `server`'s configured secrets. */
export function serverRedaction(server: ResolvedServer): ServerRedaction {
  const c = server.config;
  const clientSecret = c.oauth?.clientSecret;
  const idpSecret = c.oauth?.enterprise?.clientSecret;
  const secrets = [...configuredSecrets(c), ...(clientSecret ? [clientSecret] : []), ...(idpSecret ? [idpSecret] : [])];
  const r = new Redactor({ secrets });
  /** Run-time secrets, oldest first: session ids, a new one per renewal (bounded, see below). */
  const known: string[] = [];
  return {
    text: (s) => r.redactString(s),
    data: (s) => (r.hasSecrets ? r.redactSecrets(s) : s),
    addSecrets(values) {
      const added = [...values].filter((v): v is string => typeof v === 'string' && v !== '' && !known.includes(v));
      if (added.length === 0) return;
      known.push(...added);
      r.addSecrets(added);
      // A long-lived host renews sessions again and again: keeping every dead session id would
      // make each redaction slower and the process bigger without end.
      if (known.length > KEEP_RUNTIME_SECRETS) {
        const old = known.splice(0, known.length - KEEP_RUNTIME_SECRETS);
        r.removeSecrets(old);
      }
    },
  };
}

/**
 * `trace` of a client of `server`, knowing every configured secret of its entry — not only those
 * its connect config shows (an HTTP entry's env, where a secret inside its URL's path is read from,
 * is not part of it).
 */
export function traceWithConfiguredSecrets(trace: ClientOptions['trace'], server: ResolvedServer): ClientOptions['trace'] {
  if (trace === undefined || trace === false) return trace;
  const spec = typeof trace === 'string' ? { file: trace } : trace;
  return { ...spec, secrets: [...(spec.secrets ?? []), ...configuredSecrets(server.config)] };
}
