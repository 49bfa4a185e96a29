/**
 * Streamable HTTP as 2026-07-28 defines it (basic/transports/streamable-http), probed over raw
 * undici requests on loopback: the `Mcp-Method` / `Mcp-Name` / `MCP-Protocol-Version` headers
 * validated against the body (-32020 HeaderMismatch, 400), an unknown method as 404 + -32601,
 * a modern-only server stateless (GET and DELETE → 405; no session id minted, echoed or
 * required), and a foreign `Origin` refused with 403 (the DNS-rebinding defence).
 */
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { isLoopback, raw } from '../http/http.js';
import { messageOf } from '../core/probe.js';
import { HEADER_MISMATCH, UNSUPPORTED_VERSION, type Answer } from '../core/modern-wire.js';
import { cheapRequest, handshakeInitialize, modernCheck, outcomeText } from './modern.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';
import { MODERN_REVISIONS } from '../core/revisions.js';
import { describeViolation, MODERN_SCHEMA, serverMessageViolations } from '../core/schema.js';

function httpModern(def: Omit<CheckDef, 'revisions' | 'transport' | 'run'>, run: (ctx: CheckContext) => Promise<Verdict>): CheckDef {
  return {
    ...modernCheck({ ...def, run: async () => pass() }),
    transport: 'http',
    async run(ctx) {
      if (!isLoopback(new URL((ctx.target as { url: string }).url))) return notApplicable('raw HTTP probes only run against loopback servers');
      return run(ctx);
    },
  };
}

function mismatchVerdict(a: Answer, what: string, accept: readonly number[] = [HEADER_MISMATCH]): Verdict {
  const o = a.outcome;
  if (a.status === 400 && o.kind === 'error' && accept.includes(o.error.code)) return pass(`HTTP 400, error ${o.error.code}`);
  return violated(`${what} MUST be rejected with HTTP 400 and HeaderMismatch (-32020); it got ${outcomeText(a)}`, messageOf(o) ?? a.text);
}

const methodHeader = httpModern(
  { id: 'modern.http-method-header', title: 'an Mcp-Method header that disagrees with the body is refused (400, -32020)', clause: 'basic.transports.streamable_http#55', level: 'MUST' },
  async (ctx) => {
    const other = cheapRequest(ctx) === 'server/discover' ? 'tools/list' : 'server/discover';
    const a = await ctx.wire().send(cheapRequest(ctx), {}, { headers: { 'mcp-method': other } });
    return mismatchVerdict(a, `a ${cheapRequest(ctx)} request with "Mcp-Method: ${other}"`);
  },
);

const nameHeader = httpModern(
  { id: 'modern.http-name-header', title: 'an Mcp-Name header that disagrees with the body is refused (400, -32020)', clause: 'basic.transports.streamable_http#61', level: 'MUST' },
  async (ctx) => {
    const c = ctx.modernCapabilities;
    // the body names nothing that exists: a server that ignores the header runs nothing either
    const probe = isObject(c.tools)
      ? { method: 'tools/call', params: { name: 'mcpwire-check-no-such-tool', arguments: {} } }
      : isObject(c.prompts)
        ? { method: 'prompts/get', params: { name: 'mcpwire-check-no-such-prompt' } }
        : isObject(c.resources)
          ? { method: 'resources/read', params: { uri: 'mcpwire-check://no-such-resource/404' } }
          : undefined;
    if (probe === undefined) return notApplicable('the server declares no tools, prompts or resources');
    const a = await ctx.wire().send(probe.method, probe.params, { headers: { 'mcp-name': 'mcpwire-check-other-name' } });
    return mismatchVerdict(a, `a ${probe.method} request whose Mcp-Name names another target`);
  },
);

const versionHeader = httpModern(
  { id: 'modern.http-version-header', title: 'an MCP-Protocol-Version header that disagrees with _meta is refused (400)', clause: 'basic.transports.streamable_http#24', level: 'MUST' },
  async (ctx) => {
    const a = await ctx.wire().send(cheapRequest(ctx), {}, { headers: { 'mcp-protocol-version': '1999-01-01' } });
    // the header also names a version no server implements: -32022 (#25) is as right as -32020
    return mismatchVerdict(a, `a request with "MCP-Protocol-Version: 1999-01-01" and ${ctx.version} in _meta`, [HEADER_MISMATCH, UNSUPPORTED_VERSION]);
  },
);

/** Methods of the handshake era that 2026-07-28 removed (an unknown method at this revision). */
const REMOVED_METHODS = ['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'];

const methodNotFound = httpModern(
  { id: 'modern.http-method-not-found', title: 'an unknown method (and one 2026-07-28 removed) is 404 Not Found with -32601', clause: 'basic.transports.streamable_http#26', level: 'MUST' },
  async (ctx) => {
    for (const method of ['mcpwire-check/no-such-method', ...REMOVED_METHODS]) {
      const a = await ctx.wire().send(method, method.startsWith('resources/') ? { uri: 'mcpwire-check://no-such-resource/404' } : {});
      const o = a.outcome;
      if (a.status === 404 && o.kind === 'error' && o.error.code === -32601) continue;
      const what = method === 'mcpwire-check/no-such-method' ? 'an unknown method' : `${method} (removed in 2026-07-28)`;
      return violated(`${what} MUST get 404 Not Found and -32601; it got ${outcomeText(a)}`, messageOf(o) ?? a.text);
    }
    return pass(`an unknown method and ${REMOVED_METHODS.join(', ')}: 404, -32601`);
  },
);

const sessionHeader = (h: Record<string, unknown> | undefined) => (h === undefined ? undefined : h['mcp-session-id']);

const stateless = httpModern(
  { id: 'modern.http-stateless', title: 'a modern-only server is stateless: GET and DELETE are 405, no session id minted, echoed or required', clause: 'basic.transports.streamable_http#69', level: 'SHOULD' },
  async (ctx) => {
    const supported = Array.isArray(ctx.discover?.supportedVersions) ? ctx.discover.supportedVersions : [];
    if (supported.some((v) => !MODERN_REVISIONS.includes(String(v)))) return notApplicable(`the server also speaks ${supported.filter((v) => !MODERN_REVISIONS.includes(String(v))).join(', ')}: #69 binds a server that supports only this revision`);
    const init = await handshakeInitialize(ctx);
    if (init.outcome.kind === 'result') return notApplicable(`the server answers initialize (${JSON.stringify(init.outcome.result.protocolVersion)}): it speaks the handshake era too, and #69 binds a server that supports only this revision`);
    const base = { 'mcp-protocol-version': ctx.version ?? '' };
    for (const method of ['GET', 'DELETE'] as const) {
      const r = await raw(ctx, method, method === 'GET' ? { ...base, accept: 'text/event-stream' } : base, undefined, { readMs: 500 });
      if (r.status !== 405) return violated(`HTTP ${method} on the MCP endpoint got ${r.status}, not 405 Method Not Allowed`, r.text.slice(0, 200) || undefined);
    }
    const a = await ctx.wire().send(cheapRequest(ctx), {}, { headers: { 'mcp-session-id': 'mcpwire-check-stray-session' } });
    if (a.outcome.kind !== 'result') return violated(`a request carrying a stray Mcp-Session-Id (to be ignored) got ${outcomeText(a)}`, messageOf(a.outcome) ?? a.text);
    const sid = sessionHeader(a.headers);
    if (sid !== undefined) return violated(`the response carries Mcp-Session-Id ${JSON.stringify(sid)}: a stateless server neither mints nor echoes session ids`, a.headers);
    return pass();
  },
);

const FOREIGN_ORIGIN = 'http://mcpwire-check.invalid';

const origin = httpModern(
  { id: 'modern.http-origin', title: 'a request with a foreign Origin header is refused with 403 Forbidden', clause: 'basic.transports.streamable_http#3', level: 'MUST' },
  async (ctx) => {
    const wire = ctx.wire();
    const own = await wire.send('server/discover', {}, { headers: { origin: new URL((ctx.target as { url: string }).url).origin } });
    if (own.outcome.kind !== 'result') return notApplicable(`server/discover with the server's own Origin got ${outcomeText(own)}`);
    const before = ctx.traffic.records.length;
    const a = await wire.send('server/discover', {}, { headers: { origin: FOREIGN_ORIGIN } });
    // The refusal is judged by its status code here; its body (often an error with id null, as
    // an HTTP-level refusal has no request to name) is this check's to weigh, not modern.schema's.
    const body = ctx.traffic.records.slice(before).filter((r) => r.dir === 'in');
    for (const r of body) r.claims.push('');
    if (a.status === 403) {
      const bad = body.map((r) => ({ r, vs: serverMessageViolations(r.message, undefined, MODERN_SCHEMA) })).find((x) => x.vs.length > 0);
      if (bad === undefined) return pass(`Origin ${FOREIGN_ORIGIN}: HTTP 403`);
      return violated(`Origin ${FOREIGN_ORIGIN}: HTTP 403 as required, but its JSON-RPC body does not validate against the ${MODERN_SCHEMA} schema: ${bad.vs.slice(0, 2).map(describeViolation).join('; ')}`, bad.r.message, { level: 'SHOULD' });
    }
    return violated(
      `servers MUST validate Origin (basic.transports.streamable_http#2); a server/discover with "Origin: ${FOREIGN_ORIGIN}" MUST get 403 Forbidden, it got ${outcomeText(a)}`,
      messageOf(a.outcome) ?? a.text,
    );
  },
);

export const modernHttpChecks: CheckDef[] = [methodHeader, nameHeader, versionHeader, methodNotFound, stateless, origin];
