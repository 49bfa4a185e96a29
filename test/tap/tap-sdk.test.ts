/**
 * A host that is not mcpwire — the official SDK client — talks to server-everything through
 * `mcpwire tap`, over stdio and over HTTP (Streamable HTTP and legacy SSE): its results are the
 * same as without the tap, and the trace holds exactly the messages the SDK sent and received,
 * redacted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace-api.js';
import { canon, capture, cli, everything, freePort, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-tap-sdk-')();
const SECRET = 'sk_live_tapSdkSecret_4f9a2c';
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
});

type AnyTransport = StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport;

/** The same session every time: what the SDK client gets back. */
async function session(transport: AnyTransport) {
  const client = new Client({ name: 'sdk-host', version: '1.0.0' });
  const wire = capture(transport as any);
  await client.connect(transport);
  const tools = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { message: `hello ${SECRET}` } });
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  const prompts = await client.listPrompts();
  const version = client.getServerVersion();
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession(); // DELETE
  await client.close();
  return { results: { tools, echo, sum, prompts, version }, wire };
}

function tracedMessages(file: string) {
  const text = fs.readFileSync(file, 'utf8');
  const records = parseTrace(text).records as any[];
  const msgs = records.filter((r) => r.dir);
  return { text, records, out: msgs.filter((m) => m.dir === 'out').map((m) => m.msg), in: msgs.filter((m) => m.dir === 'in').map((m) => m.msg) };
}

/** The trace holds every message both ways; the secret is redacted wherever it was. */
function expectTraceMatches(file: string, wire: { sent: unknown[]; received: unknown[] }) {
  const t = tracedMessages(file);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(t.text).not.toContain(SECRET);
  const redact = (list: unknown[]) => JSON.parse(JSON.stringify(list).split(SECRET).join('[redacted]'));
  expect(t.out.length).toBe(wire.sent.length);
  expect(t.in.length).toBe(wire.received.length);
  expect(canon(t.out)).toEqual(canon(redact(wire.sent)));
  expect(canon(t.in)).toEqual(canon(redact(wire.received)));
  return t;
}

describe('mcpwire tap with the official SDK client and server-everything', () => {
  it('stdio: same results with and without the tap; the trace holds every message of both directions, redacted', async () => {
    const env = { ...(process.env as Record<string, string>), SERVICE_API_KEY: SECRET };
    const direct = await session(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], env, stderr: 'ignore' }));
    const trace = path.join(dir, 'stdio.jsonl');
    const tapped = await session(
      new StdioClientTransport({ command: process.execPath, args: [cli, 'tap', '--trace', trace, '--name', 'everything', '--', process.execPath, everything, 'stdio'], env, stderr: 'ignore' }),
    );
    expect(tapped.results).toEqual(direct.results);
    expect((tapped.results.echo.content as any)[0].text).toContain(SECRET); // the host saw the real value
    expect(tapped.wire.sent.length).toBeGreaterThanOrEqual(6);
    const t = expectTraceMatches(trace, tapped.wire);
    expect(t.records.every((r) => r.server === 'everything')).toBe(true);
    expect(t.records.filter((r) => r.dir === 'in' && r.kind === 'result').every((r) => typeof r.latency_ms === 'number')).toBe(true);
  });

  it('Streamable HTTP: same results through the proxy (POST, GET stream, DELETE, session header); trace complete, redacted, session hashed', async () => {
    const port = await freePort();
    const server = await startUntil([everything, 'streamableHttp'], /listening on port/, { PORT: String(port) });
    cleanup.push(() => stop(server.child));
    const upstream = `http://127.0.0.1:${port}/mcp`;
    const trace = path.join(dir, 'http.jsonl');
    const proxy = await startUntil([cli, 'tap', '--listen', '127.0.0.1:0', '--upstream', upstream, '--trace', trace, '--name', 'everything-http'], /listening on (http:\/\/\S+)/);
    cleanup.push(() => stop(proxy.child));
    const headers = { Authorization: `Bearer ${SECRET}` };

    const direct = await session(new StreamableHTTPClientTransport(new URL(upstream), { requestInit: { headers } }));
    const tapped = await session(new StreamableHTTPClientTransport(new URL(proxy.match[1]), { requestInit: { headers } }));
    expect(tapped.results).toEqual(direct.results);
    const exit = await stop(proxy.child, 'SIGTERM');
    expect(exit.code).toBe(0);

    const t = expectTraceMatches(trace, tapped.wire);
    // Every message but the initialize request (sent before the server chose the session) carries the session's hash.
    expect(t.records.filter((r) => r.dir && r.session === undefined).map((r) => `${r.dir}:${r.method}`)).toEqual(['out:initialize']);
    const sessions = new Set(t.records.filter((r) => r.dir && r.session).map((r) => r.session));
    expect(sessions.size).toBe(1);
    expect([...sessions][0]).toMatch(/^sha256:[0-9a-f]{8}$/);
    const http = t.records.filter((r) => r.event === 'transport' && r.type === 'http').map((r) => r.method);
    expect(http).toContain('POST');
    expect(http).toContain('DELETE');
  });

  it('legacy HTTP+SSE: the GET event stream and its POST endpoint pass through; same results; trace complete', async () => {
    const port = await freePort();
    const server = await startUntil([everything, 'sse'], /running on port/, { PORT: String(port) });
    cleanup.push(() => stop(server.child));
    const upstream = `http://127.0.0.1:${port}/sse`;
    const trace = path.join(dir, 'sse.jsonl');
    const proxy = await startUntil([cli, 'tap', '--listen', '127.0.0.1:0', '--upstream', upstream, '--trace', trace], /listening on (http:\/\/\S+)/);
    cleanup.push(() => stop(proxy.child));
    const headers = { Authorization: `Bearer ${SECRET}` };
    const direct = await session(new SSEClientTransport(new URL(upstream), { requestInit: { headers } }));
    const tapped = await session(new SSEClientTransport(new URL(proxy.match[1]), { requestInit: { headers } }));
    expect(tapped.results).toEqual(direct.results);
    await stop(proxy.child, 'SIGTERM');
    const t = expectTraceMatches(trace, tapped.wire);
    expect(t.records.some((r) => r.event === 'transport' && r.type === 'sse-endpoint')).toBe(true);
  });
});
