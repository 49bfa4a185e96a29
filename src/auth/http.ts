/**
 * The HTTP the auth layer does itself (metadata, registration): bounded JSON GET/POST through an
 * injectable fetch, with a per-call timeout combined with the caller's signal. Responses are
 * untrusted: sizes capped, JSON checked to be an object.
 */
import { AuthError } from './errors.js';

export const MAX_METADATA_BYTES = 256 * 1024;

export interface AuthHttp {
  fetch: typeof fetch;
  timeoutMs: number;
}

export function callSignal(http: AuthHttp, signal?: AbortSignal): AbortSignal {
  const t = AbortSignal.timeout(http.timeoutMs);
  return signal === undefined ? t : AbortSignal.any([signal, t]);
}

/** Reads a JSON object body (at most `cap` bytes). */
export async function readJsonObject(res: Response, what: string, cap = MAX_METADATA_BYTES): Promise<Record<string, unknown>> {
  const text = await readCapped(res, cap, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AuthError(`${what}: the response is not JSON`, 'MCPWIRE_AUTH_BAD_METADATA');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AuthError(`${what}: the response is not a JSON object`, 'MCPWIRE_AUTH_BAD_METADATA');
  }
  return value as Record<string, unknown>;
}

async function readCapped(res: Response, cap: number, what: string): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => {});
      throw new AuthError(`${what}: the response exceeds ${cap} bytes`, 'MCPWIRE_AUTH_BAD_METADATA');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GET a JSON document; `undefined` for a 4xx (not there), an error for anything else. */
export async function getJson(http: AuthHttp, url: URL, what: string, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
  let res: Response;
  try {
    res = await http.fetch(url, { headers: { accept: 'application/json' }, signal: callSignal(http, signal), redirect: 'manual' });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new AuthError(`${what}: GET ${url.origin}${url.pathname} failed: ${(err as Error).message}`, 'MCPWIRE_AUTH_NETWORK', { cause: err });
  }
  if (res.status >= 400 && res.status < 500) {
    await res.body?.cancel().catch(() => {});
    return undefined;
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    throw new AuthError(`${what}: GET ${url.origin}${url.pathname} answered HTTP ${res.status}`, 'MCPWIRE_AUTH_BAD_METADATA');
  }
  return readJsonObject(res, what);
}

/** Loopback hosts may use plain http (tests, local servers); anything else must be https. */
export function isLoopback(url: URL): boolean {
  const h = url.hostname;
  return h === 'localhost' || h === '127.0.0.1' || h === '[::1]' || h === '::1' || h.endsWith('.localhost');
}

export function checkHttps(url: URL, what: string): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopback(url)) return;
  throw new AuthError(`${what} must use https (got ${url.protocol}//${url.host})`, 'MCPWIRE_AUTH_INSECURE');
}
