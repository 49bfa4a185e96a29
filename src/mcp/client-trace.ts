/**
 * The client's observer: the caller's, a tracer (option `trace` or MCPWIRE_TRACE: every message
 * and event to a JSON-lines file, secrets redacted; src/trace), or both. The tracer is loaded
 * only when tracing is on. It redacts the server config's secrets and, for as long as the client
 * lives, the OAuth secrets its auth provider reports — a listener on a provider that may outlive
 * many connections, so `close()` removes it.
 */
import { configuredSecrets, type ConfiguredValues } from '../trace/configured-secrets.js';
import type { ProtocolObserver } from '../protocol/observer.js';
import type { ServerConfig } from '../transport/create.js';
import type { ClientOptions } from './client-options.js';

/** What the client keeps of a tracer. */
export interface ClientTrace {
  setSessionId(id: string | undefined): void;
  /** Stops listening to the auth provider, then flushes and closes the tracer. Idempotent. */
  close(): Promise<void>;
}

export interface ClientObserver {
  observer: ProtocolObserver | undefined;
  trace: ClientTrace | undefined;
}

/** An auth provider that reports the secrets it obtains (src/auth); others are not traced for. */
interface SecretSource {
  secrets(): string[];
  onSecrets(listener: (values: string[]) => void): () => void;
}

export async function clientObserver(
  options: ClientOptions,
  config: ServerConfig,
  serverId: string,
  transportKind: string,
  diagnostic: (code: string, message: string) => void,
): Promise<ClientObserver> {
  const given = options.observer;
  const t = options.trace;
  const spec = t === false ? undefined : t ?? process.env.MCPWIRE_TRACE;
  if (spec === undefined || spec === '') return { observer: given, trace: undefined };
  const { file, strict, secrets, maxFileBytes } = typeof spec === 'string' ? { file: spec, strict: false, secrets: [], maxFileBytes: undefined } : spec;
  const { createTracer } = await import('../trace/tracer.js');
  const tracer = await createTracer({
    file,
    serverId,
    transport: transportKind,
    strict,
    maxFileBytes,
    secrets: [...configSecrets(config), ...(secrets ?? [])],
    onWarning: (w) => diagnostic('MCPWIRE_TRACE_WARNING', String((w as { message?: unknown }).message ?? 'trace warning')),
  });
  // OAuth secrets (tokens, client secrets, codes, verifiers, state) are redacted from the trace.
  const auth = options.authProvider as Partial<SecretSource> | undefined;
  let unsubscribe: (() => void) | undefined;
  if (typeof auth?.secrets === 'function' && typeof auth.onSecrets === 'function') {
    tracer.addSecrets(auth.secrets());
    unsubscribe = auth.onSecrets((v) => tracer.addSecrets(v));
  }
  let closing: Promise<void> | undefined;
  const trace: ClientTrace = {
    setSessionId: (id) => tracer.setSessionId(id),
    close: () =>
      (closing ??= (async () => {
        unsubscribe?.();
        await tracer.close();
      })()),
  };
  if (given === undefined) return { observer: tracer, trace };
  return {
    observer: {
      message: (d, m, i) => {
        given.message(d, m, i);
        tracer.message(d, m, i);
      },
      event: (e) => {
        given.event(e);
        tracer.event(e);
      },
    },
    trace,
  };
}

/**
 * The values of a server's config that must never appear in a trace or an error: the env and
 * header values that are secrets (named or shaped like credentials, or listed in `secretNames`)
 * and the credentials in the URL; see src/trace/configured-secrets.ts.
 */
export function configSecrets(config: ServerConfig | ConfiguredValues): string[] {
  return configuredSecrets(config);
}
