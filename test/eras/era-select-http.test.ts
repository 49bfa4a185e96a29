// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The era of a Streamable HTTP server (eras/select.ts; basic/transports/streamable-http
 * "Backward Compatibility"): a modern request first, the transport stateless; a modern answer
 * keeps the client modern (request metadata headers on every POST, no session); a 4xx without a
 * modern error, or a 2xx that is no answer, falls back to `initialize`; a 401 or a 5xx is never
 * era evidence. Real servers on 127.0.0.1: the modern HTTP mock in its modes, the handshake-era
 * HTTP mock, the SDK v2 and tmcp peers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { startModernHttpMock, type ModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { AuthRequiredError, connect, TransportError, type McpClient } from '../../src/index.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

async function modernMock(scenario?: Record<string, unknown>): Promise<ModernHttpMock> {
  const m = await startModernHttpMock({ port: 0, ...(scenario ? { scenario } : {}), stderr: () => {} });
  closers.push(() => m.close());
  return m;
}

async function open(url: string, extra: Record<string, unknown> = {}): Promise<McpClient> {
  const c = await connect({ transport: 'http', id: 'h', url }, { timeoutMs: 15_000, eraProbeTimeoutMs: 3_000, ...extra });
  closers.push(() => c.close());
  return c;
}

const dualWith = (discover: object) => ({ extends: 'default', mode: 'dual', behavior: { methods: { 'server/discover': discover } } });
const header = (h: Record<string, string | string[] | undefined> | undefined, name: string) => h?.[name.toLowerCase()];

describe('era per HTTP server', () => {
  it('a modern server: discovery, then every request stateless with its metadata headers and no session id', async () => {
    const m = await modernMock();
    const c = await open(m.url);
    expect(c.era).toBe('modern');
    expect(c.protocolVersion).toBe('2026-07-28');
    expect((await c.callTool('echo', { text: 'over http' })).content).toEqual([{ type: 'text', text: 'over http' }]);
    const calls = m.record.requests.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(header(calls[0]!.headers, 'Mcp-Method')).toBe('tools/call');
    expect(header(calls[0]!.headers, 'Mcp-Name')).toBe('echo');
    expect(header(calls[0]!.headers, 'MCP-Protocol-Version')).toBe('2026-07-28');
    expect(m.record.http.some((r) => header(r.headers, 'Mcp-Session-Id') !== undefined)).toBe(false);
    expect(m.record.requests.map((r) => r.method)).not.toContain('initialize');
    expect(m.record.violations).toEqual([]);
  });

  it('basic.transports.streamable_http#30/#31: x-mcp-header parameters of a listed tool travel as Mcp-Param-* headers the server checks', async () => {
    const m = await modernMock();
    const c = await open(m.url);
    await c.listTools();
    const r = await c.callTool('route', { region: 'eu-west', tenant: { id: 7 }, dryRun: true, query: 'q' });
    expect(r.isError ?? false).toBe(false);
    expect(m.record.requests.find((x) => x.method === 'tools/call')!.rejected).toBeUndefined();
    expect(m.record.violations).toEqual([]);
  });

  it('basic.transports.streamable_http#40/#41/#42, server.tools#26/#27: a tool with an invalid x-mcp-header annotation is left out of tools/list, with a warning naming it and why', async () => {
    const bad = { name: 'bad', inputSchema: { type: 'object', properties: { list: { type: 'array', 'x-mcp-header': 'List' } } }, result: { content: [] } };
    const m = await modernMock({ extends: 'default', tools: ['echo', bad] });
    const c = await open(m.url);
    const warnings: Array<{ code: string; message: string }> = [];
    c.on('diagnostic', (d) => warnings.push(d));
    const names = (await c.listTools()).map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('bad');
    expect(warnings.filter((w) => w.code === 'MCPWIRE_TOOL_REJECTED').map((w) => w.message)).toEqual([expect.stringMatching(/"bad".*x-mcp-header/)]);
  });

  it('a response stream that breaks loses the request: it is re-issued once with a new id, then the error stands', async () => {
    const m = await modernMock({ extends: 'default', tools: ['echo', { name: 'drop', builtin: 'slow', behavior: { dropStream: true } }] });
    const c = await open(m.url);
    const err = await c.callTool('drop', { ms: 10 }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('MCPWIRE_STREAM_BROKEN');
    const calls = m.record.requests.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect((await c.callTool('echo', { text: 'after' })).content).toEqual([{ type: 'text', text: 'after' }]);
  });

  it('a handshake-only server refusing the modern request (a 4xx without a modern error) gets initialize with a session', async () => {
    const legacy = (await startHttpMock({ mode: 'json' })) as { url: string; close(): Promise<void> };
    closers.push(() => legacy.close());
    const c = await open(legacy.url);
    expect(c.era).toBe('handshake');
    expect(c.protocolVersion).toBe('2025-11-25');
    expect(c.sessionId).toBeDefined();
    expect((await c.listTools()).length).toBeGreaterThan(0);
  });

  it('a dual server whose modern answer is a 404, non-JSON, an empty 2xx or an error with id null falls back to initialize', async () => {
    for (const discover of [
      { error: { code: -32601, message: 'Method not found', httpStatus: 404 } },
      { garbage: true },
      { http: { status: 200 } },
      { nullIdError: true },
    ]) {
      const m = await modernMock(dualWith(discover));
      const c = await open(m.url);
      expect(c.era, JSON.stringify(discover)).toBe('handshake');
      expect((await c.callTool('echo', { text: 'legacy' })).content, JSON.stringify(discover)).toEqual([{ type: 'text', text: 'legacy' }]);
      await c.close();
    }
  });

  it('a 401 is an auth challenge and a 503 an error: neither falls back to initialize', async () => {
    const auth = await modernMock(dualWith({ http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } }));
    const e1 = await open(auth.url).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(AuthRequiredError);
    const down = await modernMock(dualWith({ http: { status: 503, body: 'unavailable' } }));
    const e2 = await open(down.url).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(TransportError);
    expect((e2 as TransportError).status).toBe(503);
    for (const m of [auth, down]) expect(m.record.http.some((r) => r.body.includes('"initialize"'))).toBe(false);
  });

  it('a 400 carrying -32022 is a modern server: an error naming its versions, never initialize', async () => {
    const m = await modernMock({ extends: 'default', protocolVersions: ['2099-01-01'] });
    const err = await open(m.url).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/2099-01-01/);
    expect(m.record.http.some((r) => r.body.includes('"initialize"'))).toBe(false);
  });

  it('cancelling a modern HTTP call closes its stream: no notifications/cancelled is posted', async () => {
    const m = await modernMock();
    const c = await open(m.url);
    const ac = new AbortController();
    const p = c.callTool('slow', { ms: 30_000 }, { signal: ac.signal });
    const end = Date.now() + 10_000;
    while (!m.record.requests.some((r) => r.method === 'tools/call') && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await expect(p).rejects.toThrow();
    const end2 = Date.now() + 10_000;
    while (m.record.cancelled.length === 0 && Date.now() < end2) await new Promise((r) => setTimeout(r, 20));
    expect(m.record.cancelled.length).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(m.record.http.some((r) => r.body.includes('notifications/cancelled'))).toBe(false);
    expect(m.record.violations).toEqual([]);
  });
});

describe('the real peers over HTTP', () => {
  for (const [name, args] of [
    ['sdk v2 modern-only', ['interop/sdk-v2-server.mjs', 'http', '--legacy', 'reject']],
    ['sdk v2 dual', ['interop/sdk-v2-server.mjs', 'http']],
    ['tmcp dual', ['interop/tmcp-server.mjs', 'http']],
  ] as const) {
    it(`${name}: modern, echo and an MRTR elicitation`, async () => {
      const child: ChildProcess = spawn(process.execPath, [path.join(root, 'mock-servers', args[0]), ...args.slice(1)], { stdio: ['ignore', 'pipe', 'pipe'] });
      closers.push(async () => void child.kill());
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const hit = /LISTEN (\S+)/.exec(out);
          if (hit) resolve(hit[1]!);
        });
        child.once('exit', () => reject(new Error(`peer exited: ${out}`)));
      });
      const c = await open(url, { onElicitation: async () => ({ action: 'accept', content: { ok: true } }) });
      expect(c.era).toBe('modern');
      expect((await c.callTool('echo', { text: 'peer' })).content).toEqual([{ type: 'text', text: 'peer' }]);
      expect(JSON.stringify((await c.callTool('confirm', { message: 'ok?' })).content)).toMatch(/accept/);
    }, 30_000);
  }
});
