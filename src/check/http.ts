/**
 * Streamable HTTP specifics (basic/transports), probed with raw undici requests so the checker
 * controls every header: session ids, DELETE then 404, the MCP-Protocol-Version header, and
 * Origin validation. Only against loopback servers (these probes spoof headers on purpose).
 */
import { request } from 'undici';
import { excerpt } from '../jsonrpc/types.js';
import { LATEST_PROTOCOL_VERSION } from '../mcp/versions.js';
import type { HttpServerConfig } from '../transport/create.js';
import type { CheckContext } from './context.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from './types.js';

const MAX_BODY = 1024 * 1024;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The first JSON-RPC message in the body (JSON or SSE), if any. */
  message: Record<string, unknown> | undefined;
  text: string;
}

function isLoopback(url: URL): boolean {
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

async function raw(ctx: CheckContext, method: 'POST' | 'DELETE', headers: Record<string, string>, body?: unknown): Promise<RawResponse> {
  const { url, headers: userHeaders } = ctx.target as HttpServerConfig;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`no HTTP response within ${ctx.timeoutMs} ms`)), ctx.timeoutMs);
  try {
    const res = await request(url, {
      method,
      headers: {
        ...lowerKeys(userHeaders),
        accept: 'application/json, text/event-stream',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: ac.signal,
    });
    const ct = String(res.headers['content-type'] ?? '');
    let text = '';
    // Read until the body ends or a JSON-RPC response shows up (an SSE stream may stay open).
    for await (const chunk of res.body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > MAX_BODY || firstMessage(text, ct) !== undefined) break;
    }
    res.body.destroy();
    return { status: res.statusCode, headers: res.headers, message: firstMessage(text, ct), text };
  } finally {
    clearTimeout(timer);
  }
}

/** `--header` values (auth…) go on every raw request; the probe's own headers win. */
function lowerKeys(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

const initBody = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } },
});

interface RawSession {
  res: RawResponse;
  sessionId: string | undefined;
  version: string;
  headers: Record<string, string>;
}

/** initialize + notifications/initialized over raw HTTP. */
async function rawSession(ctx: CheckContext): Promise<RawSession | Verdict> {
  const res = await raw(ctx, 'POST', {}, initBody());
  const result = res.message?.result as { protocolVersion?: unknown } | undefined;
  if (res.status !== 200 || result === undefined) {
    return skip(`blocked: a raw initialize got HTTP ${res.status} ${excerpt(res.text, 120)}`);
  }
  const sid = res.headers['mcp-session-id'];
  const sessionId = Array.isArray(sid) ? sid[0] : sid;
  const version = typeof result.protocolVersion === 'string' ? result.protocolVersion : LATEST_PROTOCOL_VERSION;
  const headers: Record<string, string> = { 'mcp-protocol-version': version, ...(sessionId !== undefined ? { 'mcp-session-id': sessionId } : {}) };
  await raw(ctx, 'POST', headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return { res, sessionId, version, headers };
}

async function end(ctx: CheckContext, s: RawSession): Promise<void> {
  if (s.sessionId === undefined) return;
  await raw(ctx, 'DELETE', s.headers).catch(() => undefined);
}

function httpCheck(def: Omit<CheckDef, 'run' | 'transport'>, run: (ctx: CheckContext, s: RawSession) => Promise<Verdict>): CheckDef {
  return {
    ...def,
    transport: 'http',
    async run(ctx) {
      if (!isLoopback(new URL((ctx.target as { url: string }).url))) return notApplicable('raw HTTP probes only run against loopback servers');
      const s = await rawSession(ctx);
      if ('status' in s) return s;
      try {
        return await run(ctx, s);
      } finally {
        await end(ctx, s);
      }
    },
  };
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

const sessionId = httpCheck(
  { id: 'http.session-id', title: 'MCP-Session-Id holds only visible ASCII (0x21–0x7E)', clause: 'basic.transports#40', level: 'MUST' },
  async (_ctx, s) => {
    if (s.sessionId === undefined) return notApplicable('the server assigns no session id');
    if (/^[\x21-\x7e]+$/.test(s.sessionId)) return pass();
    return violated(`the session id MUST only contain visible ASCII characters (0x21 to 0x7E): ${JSON.stringify(s.sessionId)}`, `MCP-Session-Id: ${s.sessionId}`);
  },
);

const deleteThen404 = httpCheck(
  { id: 'http.delete-then-404', title: 'after DELETE ends the session, a request with its id gets 404', clause: 'basic.transports#44', level: 'MUST' },
  async (ctx, s) => {
    if (s.sessionId === undefined) return notApplicable('the server assigns no session id');
    const del = await raw(ctx, 'DELETE', s.headers);
    if (del.status === 405) return notApplicable('the server does not let clients end sessions (DELETE → 405)');
    if (del.status >= 300) return notApplicable(`DELETE got HTTP ${del.status}`);
    const after = await raw(ctx, 'POST', s.headers, ping(2));
    if (after.status === 404) return pass();
    return violated(`after the session was terminated, requests with its id MUST get HTTP 404; a ping got HTTP ${after.status}`, after.text);
  },
);

const versionBad = httpCheck(
  { id: 'http.protocol-version-bad', title: 'an unsupported MCP-Protocol-Version header gets 400', clause: 'basic.transports#50', level: 'MUST' },
  async (ctx, s) => {
    const r = await raw(ctx, 'POST', { ...s.headers, 'mcp-protocol-version': '1999-01-01' }, ping(3));
    if (r.status === 400) return pass();
    return violated(`a request with an unsupported MCP-Protocol-Version ("1999-01-01") MUST get 400 Bad Request; it got HTTP ${r.status}`, r.text);
  },
);

const versionMissing = httpCheck(
  {
    id: 'http.protocol-version-missing',
    title: 'a request without MCP-Protocol-Version is processed (negotiated version or 2025-03-26 assumed)',
    clause: 'basic.transports#49',
    level: 'SHOULD',
  },
  async (ctx, s) => {
    const { 'mcp-protocol-version': _omit, ...headers } = s.headers;
    const r = await raw(ctx, 'POST', headers, ping(4));
    if (r.status >= 200 && r.status < 300) return pass(`HTTP ${r.status}`);
    return violated(
      `without an MCP-Protocol-Version header the server SHOULD use the negotiated version (or assume 2025-03-26) rather than refuse; it got HTTP ${r.status}`,
      r.text,
    );
  },
);

const origin = httpCheck(
  { id: 'http.origin-forbidden', title: 'an invalid Origin header gets 403', clause: 'basic.transports#9', level: 'MUST' },
  async (ctx) => {
    const r = await raw(ctx, 'POST', { origin: 'http://mcpwire-check.invalid' }, initBody(5));
    const sid = r.headers['mcp-session-id'];
    if (typeof sid === 'string') await raw(ctx, 'DELETE', { 'mcp-session-id': sid }).catch(() => undefined);
    if (r.status === 403) return pass();
    return violated(
      `servers MUST validate Origin; an initialize with Origin "http://mcpwire-check.invalid" MUST get 403 Forbidden, it got HTTP ${r.status}`,
      r.text,
    );
  },
);

export const httpChecks: CheckDef[] = [sessionId, deleteThen404, versionBad, versionMissing, origin];
