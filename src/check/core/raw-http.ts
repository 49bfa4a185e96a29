/**
 * One raw HTTP exchange with the server under test (undici), so a check controls every header:
 * the body read until a JSON-RPC answer shows up (or for a while), bounded, with the event ids
 * of an SSE stream. Only against loopback servers (checks spoof headers on purpose).
 */
import type * as Undici from 'undici';
import type { HttpServerConfig, ServerConfig } from '../../transport/create.js';
import type { HttpAuthProvider } from '../../transport/http-common.js';

/** What a raw request needs of the run (a CheckContext is one). */
export interface RawTarget {
  readonly target: ServerConfig;
  readonly timeoutMs: number;
  readonly options: { authProvider?: HttpAuthProvider };
}

const MAX_BODY = 1024 * 1024;

/** undici, imported on the first raw request: a check of a stdio server never loads it (~30 ms of CPU per `check` process). */
let undici: Promise<typeof Undici> | undefined;
const loadUndici = (): Promise<typeof Undici> => (undici ??= import('undici'));

export interface RawResponse {
  status: number;
  /** SSE event ids seen in the body. */
  eventIds?: string[];
  headers: Record<string, string | string[] | undefined>;
  /** The first JSON-RPC message in the body (JSON or SSE), if any. */
  message: Record<string, unknown> | undefined;
  text: string;
}

export function isLoopback(url: URL): boolean {
  const h = url.hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

function firstMessage(text: string, contentType: string): Record<string, unknown> | undefined {
  const candidates = contentType.includes('text/event-stream')
    ? text.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
    : [text];
  for (const c of candidates) {
    try {
      const v = JSON.parse(c) as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && ('result' in v || 'error' in v)) return v as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
  }
  return undefined;
}

/**
 * readMs: read a stream for at most that long; until: stop reading once the text so far satisfies
 * it (then the connection is dropped), with or without readMs: a check that waits for one event
 * on a stream the server keeps open ends when the event came, not when readMs ran out.
 */
export async function raw(
  ctx: RawTarget,
  method: 'POST' | 'DELETE' | 'GET',
  headers: Record<string, string>,
  body?: unknown,
  opts: { readMs?: number; rawBody?: string; until?: (text: string) => boolean } = {},
): Promise<RawResponse> {
  const { url, headers: userHeaders } = ctx.target as HttpServerConfig;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`no HTTP response within ${ctx.timeoutMs} ms`)), ctx.timeoutMs);
  const payload = opts.rawBody ?? (body !== undefined ? JSON.stringify(body) : undefined);
  try {
    const auth = ctx.options.authProvider !== undefined ? lowerKeys(await ctx.options.authProvider.headers()) : {};
    const { request } = await loadUndici();
    const res = await request(url, {
      method,
      headers: {
        ...lowerKeys(userHeaders),
        ...auth,
        accept: 'application/json, text/event-stream',
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { body: payload } : {}),
      signal: ac.signal,
    });
    const ct = String(res.headers['content-type'] ?? '');
    let text = '';
    if (opts.readMs !== undefined) {
      // A stream read for a while (GET): whatever arrives in readMs, or until `until` holds.
      clearTimeout(timer);
      const stop = setTimeout(() => res.body.destroy(), opts.readMs);
      try {
        for await (const chunk of res.body) {
          text += (chunk as Buffer).toString('utf8');
          if (text.length > MAX_BODY || opts.until?.(text) === true) break;
        }
      } catch {
        /* destroyed when readMs passed */
      } finally {
        clearTimeout(stop);
      }
    } else {
      // Read until the body ends or a JSON-RPC response shows up (an SSE stream may stay open).
      for await (const chunk of res.body) {
        text += (chunk as Buffer).toString('utf8');
        if (text.length > MAX_BODY || (opts.until ?? ((t: string) => firstMessage(t, ct) !== undefined))(text)) break;
      }
    }
    res.body.destroy();
    const eventIds = ct.includes('text/event-stream') ? text.split(/\r?\n/).filter((l) => l.startsWith('id:')).map((l) => l.slice(3).trim()) : [];
    return { status: res.statusCode, headers: res.headers, message: firstMessage(text, ct), text, eventIds };
  } finally {
    clearTimeout(timer);
  }
}

/** `--header` values (auth…) go on every raw request; the probe's own headers win. */
function lowerKeys(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
