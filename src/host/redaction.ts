/**
 * What the host hides in what it hands out (issue #9 item 10e). A server's configured secrets
 * reach a host's callers in two ways: in error text (a crashing server's stderr tail, an HTTP
 * error body, an error message quoting a header) and in data a server echoes back.
 *
 * - Error text — `status().lastError`, `diagnostic` events, tool error results the host writes
 *   (call failed, server died, listing failed) and the text of tool results the server marks
 *   `isError` — goes through the trace redactor: every configured value of the server (env and
 *   header values, URL credentials, the OAuth client secret) in all its derived forms, plus the
 *   credential patterns (`Authorization: …`, `?key=…`, `NAME_TOKEN=…`, `scheme://user:pass@`…).
 * - Data — the content of successful tool results, resources, prompts and listings — keeps its
 *   text but for the server's *credentials*: header values, URL credentials, the OAuth client
 *   secret, the values of env variables named like credentials (SECRET, TOKEN, PASSWORD,
 *   API_KEY, …, see `CREDENTIAL_ENV`) and env values that are URLs with credentials in them, in
 *   all their forms. Other env values (a root directory,
 *   a mode, a host name) are configuration the agent may legitimately see in results, and no
 *   pattern rule rewrites data.
 */
import { configSecrets } from '../mcp/client.js';
import { Redactor, urlSecrets } from '../trace/redact.js';
import type { ResolvedServer } from './config/types.js';

/** Env variable names whose values are credentials (matched anywhere in the name, any case). */
export const CREDENTIAL_ENV = /secret|token|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credential|cookie|signature|(?:^|[_-])(?:key|pat|sig|dsn)(?:$|[_-])/i;

/** The most recent run-time secrets (HTTP session ids) kept per server; older ones are dead sessions. */
const KEEP_RUNTIME_SECRETS = 8;

/** The two redactions of one server (see the module comment). */
export interface ServerRedaction {
  /** Error text: every configured secret in all its forms, plus the credential patterns. */
  text(s: string): string;
  /** Data: the server's credentials in all their forms; nothing else changes. */
  data(s: string): string;
  /** Adds credentials learnt at run time (the HTTP session id) to both; a known value costs nothing. */
  addSecrets(values: Iterable<string | undefined>): void;
}

/** No secrets: `text` still applies the patterns. */
export const NO_SECRETS: ServerRedaction = (() => {
  const r = new Redactor();
  return { text: (s) => r.redactString(s), data: (s) => s, addSecrets: () => {} };
})();

/** The redactions for `server`'s configured secrets. */
export function serverRedaction(server: ResolvedServer): ServerRedaction {
  const c = server.config;
  const clientSecret = c.oauth?.clientSecret;
  const all = [...configSecrets({ env: c.env, headers: c.headers, url: c.url }), ...(clientSecret ? [clientSecret] : [])];
  const credentials = [
    ...Object.values(c.headers ?? {}),
    ...configSecrets({ url: c.url }),
    // A URL with credentials in it (`postgres://u:p@db`) is one too, whatever its name.
    ...Object.entries(c.env ?? {}).flatMap(([name, value]) => (CREDENTIAL_ENV.test(name) || urlSecrets(value).length > 0 ? [value] : [])),
    ...(clientSecret ? [clientSecret] : []),
  ].filter((v) => typeof v === 'string' && v !== '');
  const errors = new Redactor({ secrets: all });
  const data = new Redactor({ secrets: credentials });
  /** Run-time secrets, oldest first: session ids, a new one per renewal (bounded, see below). */
  const known: string[] = [];
  return {
    text: (s) => errors.redactString(s),
    data: (s) => (data.hasSecrets ? data.redactSecrets(s) : s),
    addSecrets(values) {
      const added = [...values].filter((v): v is string => typeof v === 'string' && v !== '' && !known.includes(v));
      if (added.length === 0) return;
      known.push(...added);
      errors.addSecrets(added);
      data.addSecrets(added);
      // A long-lived host renews sessions again and again: keeping every dead session id would
      // make each redaction slower and the process bigger without end (issue 13 soak).
      if (known.length > KEEP_RUNTIME_SECRETS) {
        const old = known.splice(0, known.length - KEEP_RUNTIME_SECRETS);
        errors.removeSecrets(old);
        data.removeSecrets(old);
      }
    },
  };
}
