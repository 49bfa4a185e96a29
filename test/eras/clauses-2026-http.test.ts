// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Client sentences of MCP 2026-07-28's Streamable HTTP transport proven against the modern HTTP
 * mock (mock-servers/modern/http-server.mjs) on 127.0.0.1, whose record of every HTTP request it
 * received (method, headers, body) is the proof.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startModernHttpMock, type ModernHttpMock, type ModernHttpMockOptions } from '../../mock-servers/modern/http-server.mjs';
import { connect, type McpClient } from '../../src/index.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

async function mock(options: ModernHttpMockOptions = {}): Promise<ModernHttpMock> {
  const m = await startModernHttpMock({ port: 0, stderr: () => {}, ...options });
  closers.push(() => m.close());
  return m;
}

async function open(url: string): Promise<McpClient> {
  const c = await connect({ transport: 'http', id: 'h', url }, { timeoutMs: 15_000, protocolVersion: '2026-07-28' });
  closers.push(() => c.close());
  return c;
}

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
};

describe('Streamable HTTP, what the client sends (2026-07-28)', () => {
  it('basic.transports.streamable_http#6/#7/#8/#9/#10/#11/#22/#23: every message is its own POST, Accept lists application/json and text/event-stream, Mcp-Method and MCP-Protocol-Version match the body, the body one request or notification — never a batch, never a response', async () => {
    const m = await mock();
    const c = await open(m.url);
    await c.listTools();
    await Promise.all([c.callTool('echo', { text: 'a' }), c.callTool('echo', { text: 'b' })]);
    await c.callTool('progress', { steps: 2, intervalMs: 5 }, { onProgress: () => {} });
    const ac = new AbortController();
    const slow = c.callTool('slow', { ms: 60_000 }, { signal: ac.signal });
    const end = Date.now() + 10_000;
    while (!m.record.http.some((h) => h.body.includes('"slow"')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await expect(slow).rejects.toThrow();
    await c.callTool('echo', { text: 'last' });

    const http = m.record.http;
    expect(http.length).toBeGreaterThanOrEqual(6);
    for (const h of http) {
      expect(h.method).toBe('POST');
      const accept = (header(h.headers, 'accept') ?? '').split(',').map((s) => s.trim().split(';')[0]);
      expect(accept).toEqual(expect.arrayContaining(['application/json', 'text/event-stream']));
      const body = JSON.parse(h.body) as unknown;
      expect(Array.isArray(body)).toBe(false);
      const msg = body as Record<string, unknown>;
      expect(msg.jsonrpc).toBe('2.0');
      expect(typeof msg.method).toBe('string');
      expect('result' in msg || 'error' in msg).toBe(false);
      expect(header(h.headers, 'mcp-method'), h.body).toBe(msg.method);
      const version = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.['io.modelcontextprotocol/protocolVersion'];
      if ('id' in msg) expect(version, h.body).toBe('2026-07-28');
      if (version !== undefined) expect(header(h.headers, 'mcp-protocol-version'), h.body).toBe(version);
    }
    // one POST per message: as many POSTs as JSON-RPC messages the engine saw
    const ids = http.map((h) => (JSON.parse(h.body) as { id?: unknown }).id).filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(m.record.requests.length);
    expect(m.record.violations).toEqual([]);
  });

  it('basic.transports.streamable_http#15: the client takes an answer as a JSON body and as an SSE stream alike', async () => {
    for (const stream of ['json', 'sse'] as const) {
      const m = await mock({ stream });
      const c = await open(m.url);
      expect((await c.callTool('echo', { text: `over ${stream}` })).content, stream).toEqual([{ type: 'text', text: `over ${stream}` }]);
      expect((await c.listTools()).map((t) => t.name), stream).toContain('echo');
    }
  });
});
