/**
 * HTTP GETs of the registry room: the API's JSON answers and MCPB bundles, each body bounded in
 * bytes (read as a stream, cut at the bound), each request bounded in time. Failures are
 * RegistryErrors naming the URL: unreachable, an HTTP error, a body over the bound, not JSON.
 */
import { RegistryError } from './errors.js';

export interface GetOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Statuses the caller handles itself (e.g. 404): returned, not thrown. */
  pass?: readonly number[];
}

export interface GetResult {
  status: number;
  body: Uint8Array;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** GETs `url`, reading at most `maxBytes` of its body. */
export async function getBytes(url: string, o: GetOptions): Promise<GetResult> {
  const timeout = AbortSignal.timeout(o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { accept: 'application/json, */*' }, redirect: 'follow' });
  } catch (err) {
    throw new RegistryError('unreachable', `${shortUrl(url)} could not be reached: ${reasonOf(err)}`, { cause: err });
  }
  if (!res.ok && !(o.pass ?? []).includes(res.status)) {
    await res.body?.cancel().catch(() => undefined);
    throw new RegistryError('unreachable', `${shortUrl(url)} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText.slice(0, 60)}` : ''}`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > o.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(url, o.maxBytes);
  }
  return { status: res.status, body: await readBounded(res, url, o.maxBytes) };
}

/** GETs `url` and parses its body as JSON (a RegistryError when it is not). */
export async function getJson(url: string, o: GetOptions): Promise<{ status: number; value: unknown }> {
  const { status, body } = await getBytes(url, o);
  try {
    return { status, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) };
  } catch {
    throw new RegistryError('bad-response', `${shortUrl(url)} answered HTTP ${status} with a body that is not JSON`);
  }
}

async function readBounded(res: Response, url: string, max: number): Promise<Uint8Array> {
  if (res.body === null) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(url, max);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    throw new RegistryError('unreachable', `${shortUrl(url)}: the answer broke off: ${reasonOf(err)}`, { cause: err });
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function tooLarge(url: string, max: number): RegistryError {
  return new RegistryError('too-large', `${shortUrl(url)} answered more than ${max} bytes (the bound for this request)`);
}

function reasonOf(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer in time';
  return String(e?.cause?.code ?? e?.cause?.message ?? e?.message ?? err).slice(0, 200);
}

/** The URL without its query (and never its user info), for messages. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return url.slice(0, 200);
  }
}
