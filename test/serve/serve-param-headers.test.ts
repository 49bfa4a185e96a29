// clauses: 2026-07-28
/**
 * `mcpwire serve` over Streamable HTTP as a 2026-07-28 server checks the headers that mirror the
 * body: `Mcp-Param-*` of a tool whose schema marks `x-mcp-header` parameters (the modern mock's
 * `route`: Region, Tenant (tenant.id, an integer), Dry-Run), and `Mcp-Name` in its Base64 form.
 * Raw POSTs to `serveHttp` on 127.0.0.1, and mcpwire's own client, which mirrors the values.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp, type HttpGateway } from '../../src/serve-api.js';
import { root } from '../support/tap-helpers.js';
import { meta, modernHeaders, post, type Msg } from '../support/modern-wire.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-params-'));
let gw: HttpGateway;
let route: string;
let id = 1;

beforeAll(async () => {
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { modern: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/modern/stdio-server.mjs')] } } } }));
  gw = await serveHttp(await loadConfig({ globalPath: config }), { log: () => {} });
  const list = await post(gw.url, { jsonrpc: '2.0', id: id++, method: 'tools/list', params: { _meta: meta() } }, modernHeaders({ method: 'tools/list', params: { _meta: meta() } }));
  const tool = (list.response!.result.tools as Msg[]).find((t) => /^mcp_modern_route_/.test(t.name))!;
  route = tool.name;
  // The gateway lists the annotations as the server gave them: a client mirrors them.
  expect(tool.inputSchema.properties.region['x-mcp-header']).toBe('Region');
}, 60_000);
afterAll(async () => {
  await gw?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A `tools/call` of `route` with `args`, its standard headers, and `params` as the Mcp-Param-* headers. */
function callRoute(args: Record<string, unknown>, params: Record<string, string>) {
  const body = { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: route, arguments: args, _meta: meta() } };
  const extra = Object.fromEntries(Object.entries(params).map(([k, v]) => [`Mcp-Param-${k}`, v]));
  return post(gw.url, body, modernHeaders(body, extra));
}

describe('mcpwire serve checks Mcp-Param-* headers against the body', { timeout: 60_000 }, () => {
  // cites basic.transports.streamable_http#54: mcpwire serve is the server here: it checks each mirrored value against the body
  // cites basic.transports.streamable_http#61: mcpwire serve is the server here: it refuses headers that disagree with the body
  // cites basic.transports.streamable_http#55: mcpwire serve is the server here: the refusal is 400 with -32020
  it('basic.transports.streamable_http#54 / #61 / #55: matching headers are served; a value that differs is 400 with -32020', async () => {
    const ok = await callRoute({ query: 'q', region: 'us-west1', tenant: { id: 7 }, dryRun: true }, { Region: 'us-west1', Tenant: '7', 'Dry-Run': 'true' });
    expect(ok.status).toBe(200);
    expect(ok.response?.result?.isError).not.toBe(true);
    const bad = await callRoute({ query: 'q', region: 'us-west1' }, { Region: 'eu-north1' });
    expect(bad.status).toBe(400);
    expect(bad.response?.error?.code).toBe(-32020);
    expect(bad.response?.error?.message).toMatch(/Mcp-Param-Region/);
  });

  // cites basic.transports.streamable_http#24: mcpwire serve is the server here: a header that disagrees with _meta is -32020 even when _meta names a version it does not serve
  // cites basic.transports.streamable_http#25: mcpwire serve is the server here: both naming an unserved version is -32022
  it('basic.transports.streamable_http#24 / #25: MCP-Protocol-Version unlike _meta is 400 -32020 before the version is judged; both unserved is -32022', async () => {
    const body = (version: string) => ({ jsonrpc: '2.0', id: id++, method: 'server/discover', params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': version }) } });
    const unlike = body('v999.0.0');
    const mismatch = await post(gw.url, unlike, modernHeaders(unlike, { 'mcp-protocol-version': '2026-07-28' }));
    expect([mismatch.status, mismatch.response?.error?.code]).toEqual([400, -32020]);
    const both = body('v999.0.0');
    const unsupported = await post(gw.url, both, modernHeaders(both));
    expect([unsupported.status, unsupported.response?.error?.code]).toEqual([400, -32022]);
    expect(unsupported.response?.error?.data).toMatchObject({ requested: 'v999.0.0' });
  });

  // cites basic.transports.streamable_http#22: mcpwire serve is the server here: a POST without MCP-Protocol-Version is refused
  // cites basic.transports.streamable_http#28: mcpwire serve is the server here: the standard headers are required
  it('basic.transports.streamable_http#22 / #28: a 2026-07-28 request missing MCP-Protocol-Version, Mcp-Method, or (tools/call) Mcp-Name is 400 -32020', async () => {
    const call = { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: route, arguments: { query: 'q' }, _meta: meta() } };
    const without = (name: string) => Object.fromEntries(Object.entries(modernHeaders(call)).filter(([k]) => k !== name));
    for (const h of ['mcp-protocol-version', 'mcp-method', 'mcp-name']) {
      const r = await post(gw.url, { ...call, id: id++ }, without(h));
      expect([h, r.status, r.response?.error?.code]).toEqual([h, 400, -32020]);
      expect(r.response?.error?.message).toMatch(/required .* header is missing/);
    }
    const served = await post(gw.url, { ...call, id: id++ }, modernHeaders(call));
    expect(served.status).toBe(200);
  });

  // cites basic.transports.streamable_http#59: mcpwire serve is the server here: a value in the body with no header is refused
  // cites basic.transports.streamable_http#57: mcpwire serve is the server here: a null value needs no header
  // cites basic.transports.streamable_http#58: mcpwire serve is the server here: an absent value needs no header
  it('basic.transports.streamable_http#59 / #57 / #58: a body value without its header is refused; null or absent values need none', async () => {
    const missing = await callRoute({ query: 'q', dryRun: false }, {});
    expect(missing.status).toBe(400);
    expect(missing.response?.error?.message).toMatch(/Mcp-Param-Dry-Run header is missing/);
    const absent = await callRoute({ query: 'q', tenant: {} }, {});
    expect(absent.status).toBe(200);
    expect(absent.response?.result?.isError).not.toBe(true);
    // null is no value to mirror: no header expected (the tool's own argument check is another matter)
    const nulled = await callRoute({ query: 'q', region: null }, {});
    expect(nulled.status).toBe(200);
    expect(nulled.response?.error).toBeUndefined();
  });

  // cites basic.transports.streamable_http#62: mcpwire serve is the server here: integers compare as numbers
  // cites basic.transports.streamable_http#60: mcpwire serve is the server here: header names compare ignoring case
  it('basic.transports.streamable_http#62 / #60: an integer compares as a number (42.0 is 42), header names in any case', async () => {
    const r = await callRoute({ query: 'q', tenant: { id: 42 } }, { TENANT: '42.0' });
    expect(r.status).toBe(200);
    const wrong = await callRoute({ query: 'q', tenant: { id: 42 } }, { tenant: '43' });
    expect(wrong.status).toBe(400);
  });

  // cites basic.transports.streamable_http#64: mcpwire serve is the server here: it decodes the Base64 form before comparing
  // cites basic.transports.streamable_http#48: mcpwire serve is the server here: an encoded Mcp-Param value is decoded
  // cites basic.transports.streamable_http#53: mcpwire serve is the server here: a recognized header with invalid characters is refused
  it('basic.transports.streamable_http#64 / #48 / #53: a Base64 sentinel value is decoded before comparing; invalid characters or Base64 are refused', async () => {
    const region = 'Zürich  ';
    const encoded = `=?base64?${Buffer.from(region, 'utf8').toString('base64')}?=`;
    const ok = await callRoute({ query: 'q', region }, { Region: encoded });
    expect(ok.status).toBe(200);
    expect(ok.response?.result?.isError).not.toBe(true);
    const badBase64 = await callRoute({ query: 'q', region }, { Region: '=?base64?not*base64?=' });
    expect(badBase64.status).toBe(400);
    expect(badBase64.response?.error?.code).toBe(-32020);
    const latin1 = await callRoute({ query: 'q', region: 'Zürich' }, { Region: 'Z\u00fcrich' });
    expect(latin1.status).toBe(400);
    expect(latin1.response?.error?.message).toMatch(/characters a header value may not carry/);
  });

  // cites basic.transports.streamable_http#48: mcpwire serve is the server here: an encoded Mcp-Name is decoded
  it('basic.transports.streamable_http#48: an encoded Mcp-Name is decoded before it is compared with the body', async () => {
    const uri = 'mem://readme';
    const body = { jsonrpc: '2.0', id: id++, method: 'resources/read', params: { uri, _meta: meta() } };
    const r = await post(gw.url, body, modernHeaders(body, { 'mcp-name': `=?base64?${Buffer.from(uri).toString('base64')}?=` }));
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.response?.result)).toContain('Hello from the modern mock.');
    const other = await post(gw.url, body, modernHeaders(body, { 'mcp-name': `=?base64?${Buffer.from('mem://other').toString('base64')}?=` }));
    expect(other.status).toBe(400);
    expect(other.response?.error?.code).toBe(-32020);
  });

  it("mcpwire's own 2026-07-28 client mirrors the values (a non-ASCII one encoded) and the gateway accepts them", async () => {
    const c = await connect({ id: 'gateway', transport: 'http', url: gw.url }, { protocolVersion: '2026-07-28', timeoutMs: 30_000 });
    try {
      // the client learns the annotations from the listing
      expect((await c.listTools()).some((t) => t.name === route)).toBe(true);
      const r = await c.callTool(route, { query: 'q', region: 'São Paulo', tenant: { id: 9 }, dryRun: false });
      expect(r.isError).not.toBe(true);
      expect(JSON.parse((r.content[0] as { text: string }).text).arguments).toEqual({ query: 'q', region: 'São Paulo', tenant: { id: 9 }, dryRun: false });
    } finally {
      await c.close();
    }
  });
});
