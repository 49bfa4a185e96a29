/**
 * The loopback redirect receiver of a native client (RFC 8252 §7.3): a one-shot HTTP server on
 * 127.0.0.1 with a port the OS picks, whose `redirectUri` is registered with the authorization
 * server (basic.authorization#75, #83). The first request to its path that carries `code` or
 * `error` (and, when `state` is given, the right `state`) resolves `wait()` with the full redirect
 * URL; the server then closes. Other requests get 404 (other paths) or 400 (a wrong `state`, so a
 * stray or forged request cannot end the wait: basic.authorization#85). `wait()` rejects on
 * timeout or abort, and the server is closed either way.
 *
 * The page shown to the browser says only whether it worked; it never echoes a parameter.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AbortError, McpWireError, TimeoutError } from '../errors.js';

/** Options of `startLoopbackReceiver`. */
export interface LoopbackOptions {
  /** Path of the redirect URI (default `/callback`). */
  path?: string;
  /** Port (default 0: the OS picks a free one). */
  port?: number;
  /** How long `wait()` waits for the redirect (default 300 000 ms). */
  timeoutMs?: number;
  /** The `state` sent in the authorization request; a redirect with another one is refused. */
  state?: string;
}

/** A started receiver. */
export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port><path>` */
  readonly redirectUri: string;
  /** The redirect URL the browser was sent to (resolves once). */
  wait(signal?: AbortSignal): Promise<URL>;
  /** Stops listening (idempotent); a pending `wait()` rejects. */
  close(): Promise<void>;
  /** Sets the expected `state` once the authorization URL is built. */
  expectState(state: string | undefined): void;
}

const DONE_PAGE = '<!doctype html><meta charset="utf-8"><title>mcpwire</title><p>Authorization received. You can close this window and return to the terminal.</p>\n';
const ERROR_PAGE = '<!doctype html><meta charset="utf-8"><title>mcpwire</title><p>The authorization server reported an error. Return to the terminal for details.</p>\n';

/** Starts the receiver (see the module comment). */
export async function startLoopbackReceiver(options: LoopbackOptions = {}): Promise<LoopbackReceiver> {
  const cbPath = options.path ?? '/callback';
  let expected = options.state;
  let settle: { resolve: (u: URL) => void; reject: (e: Error) => void } | undefined;
  let result: { url?: URL; error?: Error } | undefined;
  const finish = (r: { url?: URL; error?: Error }): void => {
    if (result) return;
    result = r;
    void close();
    if (settle) (r.url ? settle.resolve(r.url) : settle.reject(r.error!));
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const url = new URL(req.url ?? '/', base);
    if (req.method !== 'GET' || url.pathname !== cbPath || result) return reply(res, 404, 'not found\n', 'text/plain');
    const p = url.searchParams;
    if (!p.has('code') && !p.has('error')) return reply(res, 400, 'missing code\n', 'text/plain');
    if (expected !== undefined && p.get('state') !== expected) return reply(res, 400, 'state mismatch\n', 'text/plain');
    reply(res, 200, p.has('error') ? ERROR_PAGE : DONE_PAGE, 'text/html; charset=utf-8');
    finish({ url });
  });
  server.keepAliveTimeout = 1_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const timeoutMs = options.timeoutMs ?? 300_000;
  const timer = setTimeout(() => finish({ error: new TimeoutError('authorization redirect', timeoutMs, { phase: 'auth' }) }), timeoutMs);
  timer.unref();

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    clearTimeout(timer);
    if (!result) finish({ error: new McpWireError('MCPWIRE_LOOPBACK_CLOSED', 'the redirect receiver was closed before the redirect arrived', { phase: 'auth' }) });
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return closing;
  }

  return {
    redirectUri: `http://127.0.0.1:${port}${cbPath}`,
    expectState(state) {
      expected = state;
    },
    close,
    wait(signal) {
      if (result) return result.url ? Promise.resolve(result.url) : Promise.reject(result.error);
      return new Promise<URL>((resolve, reject) => {
        const onAbort = (): void => finish({ error: new AbortError('waiting for the authorization redirect was aborted', { phase: 'auth' }) });
        if (signal?.aborted) return void (onAbort(), reject(result!.error));
        signal?.addEventListener('abort', onAbort, { once: true });
        settle = {
          resolve: (u) => (signal?.removeEventListener('abort', onAbort), resolve(u)),
          reject: (e) => (signal?.removeEventListener('abort', onAbort), reject(e)),
        };
      });
    },
  };
}

function reply(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', connection: 'close' });
  res.end(body);
}

/**
 * Reads what a user pasted after authorizing in a browser elsewhere: the full redirect URL, or
 * just the `code`. A bare code becomes `<redirectUri>?code=…&state=<state>` so the flow can
 * check it like any redirect. Returns undefined for an empty line.
 */
export function parsePastedRedirect(line: string, redirectUri: string, state: string | undefined): URL | undefined {
  const text = line.trim();
  if (!text) return undefined;
  if (/^https?:\/\//i.test(text)) return new URL(text);
  if (text.startsWith('?') || /(^|&)(code|error)=/.test(text)) return new URL(`${redirectUri}?${text.replace(/^\?/, '')}`);
  const url = new URL(redirectUri);
  url.searchParams.set('code', text);
  if (state !== undefined) url.searchParams.set('state', state);
  return url;
}
