/**
 * The legacy HTTP+SSE `endpoint` event through the HTTP tap (the HTTP mock's 2024-11-05
 * transport on 127.0.0.1, raw GETs and mcpwire's own legacy client): a relative endpoint passes
 * unchanged (the client resolves it against the tap); an absolute one on the upstream's origin is
 * rewritten to the tap's origin, so the client's POSTs come through the tap and are traced; one
 * on any other origin is withheld, the stream ends and the trace says why. Every other byte of
 * the stream passes unchanged, whatever the chunking and line endings.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { connect } from '../../src/index.js';
import { startHttpTap, type HttpTap } from '../../src/tap/index.js';
import { EndpointRewriter, endpointVerdict } from '../../src/tap/sse-endpoint.js';
import { parseTrace } from '../../src/trace-api.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-tap-sse-endpoint-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>;
const UP = new URL('http://127.0.0.1:4001/sse');
const TAP = new URL('http://127.0.0.1:5002/sse');

/** Everything `input` becomes through a rewriter, fed in chunks of `size` bytes. */
function through(input: string, size: number, refused: string[] = []): string {
  const r = new EndpointRewriter(
    (data) => endpointVerdict(data, UP, TAP),
    (origin) => refused.push(origin),
  );
  const bytes = Buffer.from(input, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(...r.push(bytes.subarray(i, i + size)));
  out.push(...r.end());
  return Buffer.concat(out).toString('utf8');
}

/** The first `endpoint` event a raw GET of `url` gets (undefined: the stream ended without one). */
async function endpointOf(url: string): Promise<{ data?: string; rest: string }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { rest: text };
    text += Buffer.from(value).toString('utf8');
    const m = /event: endpoint\ndata: ([^\n]*)\n\n/.exec(text);
    if (m) {
      controller.abort();
      return { data: m[1], rest: text };
    }
  }
}

async function tapTo(upstream: string, name: string): Promise<{ tap: HttpTap; file: string }> {
  const file = path.join(dir, `${name}.jsonl`);
  return { tap: await startHttpTap({ listen: '127.0.0.1:0', upstream, trace: file, name }), file };
}

const records = (file: string) => parseTrace(fs.readFileSync(file, 'utf8')).records as Rec[];

describe('the endpoint verdict and the stream rewriter', () => {
  it('relative: kept; absolute on the upstream origin: the tap origin; any other origin: refused', () => {
    expect(endpointVerdict('/messages?sessionId=a', UP, TAP)).toEqual({ kind: 'keep' });
    expect(endpointVerdict('messages?sessionId=a', UP, TAP)).toEqual({ kind: 'keep' });
    expect(endpointVerdict('http://127.0.0.1:4001/messages?sessionId=a', UP, TAP)).toEqual({ kind: 'rewrite', data: 'http://127.0.0.1:5002/messages?sessionId=a' });
    expect(endpointVerdict(' //127.0.0.1:4001/m?x=1 ', UP, TAP)).toEqual({ kind: 'rewrite', data: 'http://127.0.0.1:5002/m?x=1' });
    expect(endpointVerdict('http://127.0.0.2:4001/messages', UP, TAP)).toEqual({ kind: 'refuse', origin: 'http://127.0.0.2:4001' });
    expect(endpointVerdict('https://127.0.0.1:4001/messages', UP, TAP)).toEqual({ kind: 'refuse', origin: 'https://127.0.0.1:4001' });
    expect(endpointVerdict('//evil.example/messages', UP, TAP)).toEqual({ kind: 'refuse', origin: 'http://evil.example' });
    expect(endpointVerdict('/\\evil.example/messages', UP, TAP)).toEqual({ kind: 'refuse', origin: 'http://evil.example' });
    expect(endpointVerdict('http://[', UP, TAP)).toEqual({ kind: 'keep' });
  });

  it('every byte but an endpoint event passes unchanged, at any chunking and with LF, CRLF or CR line ends', () => {
    const others = ': keep-alive\n\nid: 7\nevent: message\ndata: {"a":"ü"}\n\nretry: 10\r\ndata: x\r\ndata: y\r\n\r\ndata: z\r\revent: message\r\r';
    for (const size of [1, 2, 3, 7, 1000]) expect(through(others, size), `chunks of ${size}`).toBe(others);
    const stream = `id: 1\r\nevent: endpoint\r\ndata: http://127.0.0.1:4001/messages?sessionId=s\r\n\r\n${others}`;
    for (const size of [1, 5, 1000]) expect(through(stream, size), `chunks of ${size}`).toBe(`id: 1\nevent: endpoint\ndata: http://127.0.0.1:5002/messages?sessionId=s\n\n${others}`);
    // An unfinished last block is passed on at the end.
    expect(through('data: tail', 3)).toBe('data: tail');
  });

  it('a block too long to hold back passes as it comes; an endpoint event on another origin never passes', () => {
    const big = `data: ${'x'.repeat(200 * 1024)}\n\n`;
    const r = new EndpointRewriter(() => ({ kind: 'keep' }), () => {});
    const first = r.push(Buffer.from(big.slice(0, 100 * 1024)));
    // Not held back whole: most of it passes before the block ends.
    expect(Buffer.concat(first).length).toBeGreaterThan(90 * 1024);
    expect(Buffer.concat([...first, ...r.push(Buffer.from(big.slice(100 * 1024))), ...r.end()]).toString()).toBe(big);
    const refused: string[] = [];
    expect(through('data: before\n\nevent: endpoint\ndata: http://127.0.0.9:1/m\n\ndata: after\n\n', 4, refused)).toBe('data: before\n\n');
    expect(refused).toEqual(['http://127.0.0.9:1']);
  });
});

describe('mcpwire tap with a legacy HTTP+SSE upstream', () => {
  it('an absolute endpoint on the upstream origin is rewritten to the tap: the POSTs pass the tap and are traced', async () => {
    const mock = await startHttpMock({ legacy: true, path: '/sse', legacyEndpointOrigin: 'self' });
    const { tap, file } = await tapTo(mock.url, 'absolute');
    try {
      // Directly, the server names its own origin.
      expect((await endpointOf(mock.url)).data).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${mock.port}/messages\\?sessionId=`));
      expect((await endpointOf(tap.url)).data).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${tap.port}/messages\\?sessionId=`));
      // mcpwire's legacy client refuses an endpoint on another origin than the URL it opened: it connects only through the rewrite.
      const c = await connect({ transport: 'http', legacySse: true, id: 'legacy', url: tap.url }, { timeoutMs: 15_000 });
      try {
        expect((await c.callTool('echo', { text: 'through the tap' })).content).toEqual([{ type: 'text', text: 'through the tap' }]);
      } finally {
        await c.close();
      }
    } finally {
      await tap.close();
      await mock.close();
    }
    const recs = records(file);
    const out = recs.filter((r) => r.dir === 'out').map((r) => r.method);
    expect(out).toEqual(expect.arrayContaining(['initialize', 'tools/call']));
    expect(recs.filter((r) => r.dir === 'in' && r.kind === 'result').map((r) => r.method)).toEqual(expect.arrayContaining(['initialize', 'tools/call']));
    expect(recs.filter((r) => r.event === 'transport' && r.type === 'sse-endpoint-rewritten')).toHaveLength(2);
    expect(recs.find((r) => r.type === 'sse-endpoint-rewritten')).toMatchObject({ from: `http://127.0.0.1:${mock.port}`, to: `http://127.0.0.1:${tap.port}` });
  }, 30_000);

  it('a relative endpoint passes unchanged and works', async () => {
    const mock = await startHttpMock({ legacy: true, path: '/sse' });
    const { tap, file } = await tapTo(mock.url, 'relative');
    try {
      expect((await endpointOf(tap.url)).data).toMatch(/^\/messages\?sessionId=[0-9a-f-]+$/);
      const c = await connect({ transport: 'http', legacySse: true, id: 'legacy', url: tap.url }, { timeoutMs: 15_000 });
      try {
        expect((await c.callTool('echo', { text: 'relative' })).content).toEqual([{ type: 'text', text: 'relative' }]);
      } finally {
        await c.close();
      }
    } finally {
      await tap.close();
      await mock.close();
    }
    const recs = records(file);
    expect(recs.some((r) => r.dir === 'out' && r.method === 'tools/call')).toBe(true);
    expect(recs.some((r) => r.type === 'sse-endpoint-rewritten')).toBe(false);
  }, 30_000);

  it('an endpoint on another origin is withheld: the stream ends without it, the trace flags it, nothing was POSTed', async () => {
    const mock = await startHttpMock({ legacy: true, path: '/sse', legacyEndpointOrigin: 'http://127.0.0.2:9' });
    const { tap, file } = await tapTo(mock.url, 'foreign');
    try {
      expect((await endpointOf(mock.url)).data).toMatch(/^http:\/\/127\.0\.0\.2:9\/messages\?sessionId=/);
      const got = await endpointOf(tap.url);
      expect(got.data).toBeUndefined();
      expect(got.rest).not.toContain('127.0.0.2');
      await expect(connect({ transport: 'http', legacySse: true, id: 'legacy', url: tap.url }, { timeoutMs: 5_000 })).rejects.toThrow();
    } finally {
      await tap.close();
      await mock.close();
    }
    expect(mock.record.messages).toEqual([]);
    const flagged = records(file).filter((r) => r.event === 'diagnostic' && r.code === 'MCPWIRE_TAP_ENDPOINT');
    expect(flagged.length).toBeGreaterThanOrEqual(2);
    expect(flagged[0].message).toContain('another origin (http://127.0.0.2:9)');
    expect(flagged[0].message).not.toMatch(/sessionId/);
  }, 30_000);
});
