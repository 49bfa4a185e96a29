/**
 * Streamable HTTP specifics (basic/transports), probed with raw undici requests so the checker
 * controls every header: session ids, DELETE then 404, the MCP-Protocol-Version header, and
 * Origin validation. Only against loopback servers (these probes spoof headers on purpose).
 */
import { excerpt } from '../../jsonrpc/types.js';
import { LATEST_PROTOCOL_VERSION } from '../../mcp/versions.js';
import type { HttpServerConfig } from '../../transport/create.js';
import type { CheckContext } from '../core/context.js';
import { isLoopback, raw, type RawResponse } from '../core/raw-http.js';

export { isLoopback, raw, type RawResponse } from '../core/raw-http.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

export const initBody = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } },
});

export interface RawSession {
  res: RawResponse;
  sessionId: string | undefined;
  version: string;
  headers: Record<string, string>;
}

/** initialize + notifications/initialized over raw HTTP. */
export async function rawSession(ctx: CheckContext): Promise<RawSession | Verdict> {
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

export async function end(ctx: CheckContext, s: RawSession): Promise<void> {
  if (s.sessionId === undefined) return;
  await raw(ctx, 'DELETE', s.headers).catch(() => undefined);
}

export function httpCheck(def: Omit<CheckDef, 'run' | 'transport'>, run: (ctx: CheckContext, s: RawSession) => Promise<Verdict>): CheckDef {
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

/** The raw probes' requests carry string ids (`mcpwire-check-<n>`), never a client library's. */
export const ping = (id: number) => ({ jsonrpc: '2.0', id: `mcpwire-check-${id}`, method: 'ping' });

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

/**
 * Two requests with an invalid Origin, each MUST get 403: a foreign Origin with the server's own
 * Host, and the request a browser sends after DNS rebinding — a foreign Host with its own
 * matching Origin (`Host: mcpwire-check.invalid:<port>`, `Origin: http://mcpwire-check.invalid:<port>`),
 * which a server comparing Origin with Host (same-origin) serves.
 */
const origin = httpCheck(
  { id: 'http.origin-forbidden', title: 'an invalid Origin header gets 403 (also with a foreign Host it matches, as after DNS rebinding)', clause: 'basic.transports#9', level: 'MUST' },
  async (ctx) => {
    const url = new URL((ctx.target as HttpServerConfig).url);
    const foreignHost = `mcpwire-check.invalid${url.port ? `:${url.port}` : ''}`;
    const probes: Array<[string, Record<string, string>]> = [
      ['an initialize with Origin "http://mcpwire-check.invalid"', { origin: 'http://mcpwire-check.invalid' }],
      [`an initialize as after DNS rebinding (Host "${foreignHost}", Origin "http://${foreignHost}")`, { host: foreignHost, origin: `http://${foreignHost}` }],
    ];
    for (const [what, headers] of probes) {
      const r = await raw(ctx, 'POST', headers, initBody(5));
      const sid = r.headers['mcp-session-id'];
      if (typeof sid === 'string') await raw(ctx, 'DELETE', { 'mcp-session-id': sid }).catch(() => undefined);
      if (r.status !== 403) return violated(`servers MUST validate Origin; ${what} MUST get 403 Forbidden, it got HTTP ${r.status}`, r.text);
    }
    return pass('a foreign Origin: 403; a foreign Host with its matching Origin: 403');
  },
);

export const ctype = (r: RawResponse) => String(r.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
export const sseMessages = (text: string): unknown[] =>
  text.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => {
    try {
      return JSON.parse(l.slice(5).trim()) as unknown;
    } catch {
      return undefined;
    }
  }).filter((m) => m !== undefined);

const getStream = httpCheck(
  { id: 'http.get-sse-or-405', title: 'GET on the endpoint returns text/event-stream or 405', clause: 'basic.transports#30', level: 'MUST' },
  async (ctx, s) => {
    const r = await raw(ctx, 'GET', { ...s.headers, accept: 'text/event-stream' }, undefined, { readMs: 300 });
    if (r.status === 405) return pass('405: no SSE stream offered');
    if (r.status === 200 && ctype(r) === 'text/event-stream') return pass('SSE stream');
    return violated(`the server MUST either return Content-Type: text/event-stream in response to GET, or 405 Method Not Allowed; it returned HTTP ${r.status} ${ctype(r) || '(no content type)'}`, `HTTP ${r.status} content-type: ${ctype(r)} ${r.text.slice(0, 200)}`);
  },
);

const getNoResponse = httpCheck(
  { id: 'http.get-no-response', title: 'the GET SSE stream carries no JSON-RPC responses', clause: 'basic.transports#32', level: 'MUST' },
  async (ctx, s) => {
    const r = await raw(ctx, 'GET', { ...s.headers, accept: 'text/event-stream' }, undefined, { readMs: 1000 });
    if (r.status !== 200 || ctype(r) !== 'text/event-stream') return notApplicable(`GET got HTTP ${r.status} (no SSE stream)`);
    const resp = sseMessages(r.text).find((m) => m !== null && typeof m === 'object' && ('result' in m || 'error' in m));
    if (resp !== undefined) return violated('the server MUST NOT send a JSON-RPC response on the GET stream unless resuming a stream of a previous request', resp);
    return pass();
  },
);

const postContentType = httpCheck(
  { id: 'http.content-type', title: 'a POSTed request is answered with text/event-stream or application/json', clause: 'basic.transports#18', level: 'MUST' },
  async (ctx, s) => {
    const r = await raw(ctx, 'POST', s.headers, ping(10));
    const ct = ctype(r);
    if (r.status >= 200 && r.status < 300 && (ct === 'text/event-stream' || ct === 'application/json')) return pass(ct);
    return violated(`for a JSON-RPC request the server MUST return Content-Type text/event-stream or application/json; a ping got HTTP ${r.status} ${ct || '(no content type)'}`, `HTTP ${r.status} content-type: ${ct} ${r.text.slice(0, 200)}`);
  },
);

const notification202 = httpCheck(
  { id: 'http.notification-202', title: 'an accepted notification gets 202 Accepted with no body', clause: 'basic.transports#16', level: 'MUST' },
  async (ctx, s) => {
    const r = await raw(ctx, 'POST', s.headers, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'mcpwire-check-never-sent' } });
    if (r.status === 202 && r.text === '') return pass();
    if (r.status >= 400) return notApplicable(`the notification was not accepted (HTTP ${r.status})`);
    return violated(`if the server accepts a notification it MUST return HTTP 202 Accepted with no body; it returned HTTP ${r.status}${r.text ? ` with a body` : ''}`, `HTTP ${r.status} ${r.text.slice(0, 200)}`);
  },
);

const missingSession = httpCheck(
  { id: 'http.missing-session-400', title: 'a request without MCP-Session-Id (not initialize) gets 400', clause: 'basic.transports#43', level: 'SHOULD' },
  async (ctx, s) => {
    if (s.sessionId === undefined) return notApplicable('the server assigns no session id');
    const { 'mcp-session-id': _omit, ...headers } = s.headers;
    const r = await raw(ctx, 'POST', headers, ping(11));
    if (r.status === 400) return pass();
    return violated(`servers that require a session id SHOULD answer requests without MCP-Session-Id with 400 Bad Request; a ping got HTTP ${r.status}`, `HTTP ${r.status} ${r.text.slice(0, 200)}`);
  },
);

const unknownSession = httpCheck(
  { id: 'http.unknown-session-404', title: 'a request with a session id the server never issued gets 404 (or 400)', clause: 'basic.transports#44', level: 'SHOULD' },
  async (ctx, s) => {
    if (s.sessionId === undefined) return notApplicable('the server assigns no session id');
    const r = await raw(ctx, 'POST', { ...s.headers, 'mcp-session-id': 'mcpwire-check-no-such-session' }, ping(12));
    if (r.status === 404 || r.status === 400) return pass(`HTTP ${r.status}`);
    return violated(`a session id the server does not know should be refused (404 Not Found, as for a terminated session); a ping got HTTP ${r.status}`, `HTTP ${r.status} ${r.text.slice(0, 200)}`);
  },
);

const batchRefused = httpCheck(
  { id: 'http.batch-refused', title: 'a POSTed JSON array (batch) gets an HTTP error status', clause: 'basic.transports#17', level: 'SHOULD' },
  async (ctx, s) => {
    if (s.version < '2025-06-18') return notApplicable(`negotiated ${s.version}, which had batches`);
    const r = await raw(ctx, 'POST', s.headers, [ping(13), ping(14)]);
    if (r.status >= 400) return pass(`HTTP ${r.status}`);
    return violated(`the body of a POST MUST be a single JSON-RPC message (basic.transports#15); a server that cannot accept the input MUST return an HTTP error status, but a batch got HTTP ${r.status}`, `HTTP ${r.status} ${r.text.slice(0, 200)}`);
  },
);

const invalidJson = httpCheck(
  { id: 'http.invalid-json', title: 'a POST body that is not JSON gets an HTTP error status', clause: 'basic.transports#17', level: 'MUST' },
  async (ctx, s) => {
    const r = await raw(ctx, 'POST', s.headers, undefined, { rawBody: '{"jsonrpc": "2.0", "id": 15, "method": "ping"' });
    if (r.status >= 400 && r.status < 500) return pass(`HTTP ${r.status}`);
    return violated(`if the server cannot accept the input it MUST return an HTTP error status code (e.g. 400); a body that is not JSON got HTTP ${r.status}`, `HTTP ${r.status} ${r.text.slice(0, 200)}`);
  },
);

const eventIdsUnique = httpCheck(
  { id: 'http.event-ids-unique', title: 'SSE event ids are unique across the streams of a session', clause: 'basic.transports#35', level: 'MUST' },
  async (ctx, s) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(...((await raw(ctx, 'POST', s.headers, ping(20 + i))).eventIds ?? []));
    const g = await raw(ctx, 'GET', { ...s.headers, accept: 'text/event-stream' }, undefined, { readMs: 300 });
    ids.push(...(g.eventIds ?? []));
    const real = ids.filter((x) => x !== '');
    if (real.length === 0) return notApplicable('the server sends no SSE event ids');
    const seen = new Set<string>();
    for (const id of real) {
      if (seen.has(id)) return violated(`event ids MUST be globally unique across all streams within the session; ${JSON.stringify(id)} was used twice`, `id: ${id}`);
      seen.add(id);
    }
    return pass(`${real.length} distinct event ids`);
  },
);

const replay = httpCheck(
  { id: 'http.last-event-id-replay', title: 'resuming with Last-Event-ID replays only that stream (never another stream\'s messages)', clause: 'basic.transports#38', level: 'MUST' },
  async (ctx, s) => {
    const a = await raw(ctx, 'POST', s.headers, ping(30));
    await raw(ctx, 'POST', s.headers, ping(31));
    const first = (a.eventIds ?? []).find((x) => x !== '');
    if (first === undefined) return notApplicable('the server sends no SSE event ids (no resumability)');
    const g = await raw(ctx, 'GET', { ...s.headers, accept: 'text/event-stream', 'last-event-id': first }, undefined, { readMs: 800 });
    if (g.status !== 200 || ctype(g) !== 'text/event-stream') return notApplicable(`GET with Last-Event-ID got HTTP ${g.status}`);
    const other = sseMessages(g.text).find((m) => m !== null && typeof m === 'object' && ('result' in m || 'error' in m) && (m as { id?: unknown }).id !== 'mcpwire-check-30');
    if (other !== undefined) return violated(`resuming after event ${JSON.stringify(first)} (the stream of request "mcpwire-check-30") replayed a message of another stream`, other);
    return pass(sseMessages(g.text).length > 0 ? 'replayed that stream only' : 'nothing replayed');
  },
);

const sessionUnique = httpCheck(
  { id: 'http.session-id-unique', title: 'each session gets its own session id', clause: 'basic.transports#39', level: 'SHOULD' },
  async (ctx, s) => {
    if (s.sessionId === undefined) return notApplicable('the server assigns no session id');
    const again = await rawSession(ctx);
    if ('status' in again) return again;
    try {
      if (again.sessionId === s.sessionId) return violated(`the session id SHOULD be globally unique and cryptographically secure; two sessions both got ${JSON.stringify(s.sessionId)}`, `MCP-Session-Id: ${s.sessionId}`);
      return pass();
    } finally {
      await end(ctx, again);
    }
  },
);

const sessionOnlyOnInit = httpCheck(
  { id: 'http.session-id-stable', title: 'responses after initialize do not assign a different session id', clause: 'basic/transports §Session Management', level: 'SHOULD' },
  async (ctx, s) => {
    if (s.sessionId === undefined) return notApplicable('the server assigns no session id');
    const r = await raw(ctx, 'POST', s.headers, ping(40));
    const sid = r.headers['mcp-session-id'];
    const v = Array.isArray(sid) ? sid[0] : sid;
    if (v !== undefined && v !== s.sessionId) return violated(`a session id is assigned on the response containing the InitializeResult; a later response carried a different MCP-Session-Id (${JSON.stringify(v)})`, `MCP-Session-Id: ${v}`);
    return pass();
  },
);

export const httpChecks: CheckDef[] = [
  sessionId,
  sessionUnique,
  sessionOnlyOnInit,
  deleteThen404,
  missingSession,
  unknownSession,
  versionBad,
  versionMissing,
  origin,
  postContentType,
  notification202,
  batchRefused,
  invalidJson,
  getStream,
  getNoResponse,
  eventIdsUnique,
  replay,
];
