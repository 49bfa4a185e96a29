// clauses: 2026-07-28
/**
 * Both protocol revisions on each side of `mcpwire serve`: mcpwire's own client, pinned to
 * 2026-07-28 (no initialize: `server/discover`, the `_meta` envelope on every request) and to
 * 2025-11-25 (the handshake), reaches the gateway over stdio (the built CLI) and over Streamable
 * HTTP; behind it a modern-only server (the modern mock: `initialize` is refused) and a
 * handshake-only one (the scripted stdio mock). Through either revision the client lists both
 * servers' tools and calls each.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, JsonRpcError, type McpClient } from '../../src/index.js';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';
import { sharedHttpGateway } from '../support/serve-http-gateway.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-eras-'));
const config = path.join(dir, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    version: 1,
    mcp: {
      serve_names: 'host', servers: {
        modern: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/modern/stdio-server.mjs')] },
        legacy: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')] },
      },
    },
  }),
);

const clients: McpClient[] = [];
const gateways: ChildProcess[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});
afterAll(async () => {
  for (const g of gateways.splice(0)) await stop(g);
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * One stdio gateway per revision, its client shared by the file's tests (closed after them all):
 * they only read through it, except the crash test, the last to use the 2026-07-28 one.
 */
const stdioClients = new Map<string, Promise<McpClient>>();
afterAll(async () => {
  for (const c of stdioClients.values()) await (await c.catch(() => undefined))?.close().catch(() => {});
});
function overStdio(protocolVersion: string): Promise<McpClient> {
  let c = stdioClients.get(protocolVersion);
  if (c === undefined) {
    c = connect(
      { id: 'gateway', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', config], env: { MCPWIRE_TRACE: '' } },
      { protocolVersion, timeoutMs: 30_000 },
    );
    stdioClients.set(protocolVersion, c);
  }
  return c;
}

const httpGateway = sharedHttpGateway(config);

/** A client of one `mcpwire serve --http` for the file's HTTP tests. */
async function overHttp(protocolVersion: string): Promise<McpClient> {
  const c = await connect({ id: 'gateway', transport: 'http', url: await httpGateway.url() }, { protocolVersion, timeoutMs: 30_000 });
  clients.push(c);
  return c;
}

/** Lists the gateway's tools and calls `echo` of each downstream server through it. */
async function bothServersAnswer(c: McpClient): Promise<void> {
  const tools = await c.listTools();
  const echo = (server: string) => tools.find((t) => t.name.startsWith(`mcp_${server}_echo`))?.name;
  expect(echo('modern')).toBeDefined();
  expect(echo('legacy')).toBeDefined();
  for (const server of ['modern', 'legacy']) {
    const r = await c.callTool(echo(server)!, { text: `hello ${server}` });
    expect(r.isError).not.toBe(true);
    expect(JSON.stringify(r.content)).toContain(`hello ${server}`);
  }
  const status = await c.callTool('mcpwire_status', {});
  const rows = (status.structuredContent as { servers: { id: string; state: string; protocolVersion: string | null }[] }).servers;
  expect(rows.map((r) => [r.id, r.state])).toEqual([
    ['legacy', 'ready'],
    ['modern', 'ready'],
  ]);
  expect(rows.find((r) => r.id === 'modern')?.protocolVersion).toBe('2026-07-28');
}

describe('mcpwire serve speaks both revisions, upstream and downstream', { timeout: 90_000 }, () => {
  // cites server.discover#1: mcpwire serve is the server here: the gateway answers server/discover
  // cites basic.versioning#3: mcpwire serve is the server here: the gateway answers server/discover
  it('server.discover#1 / basic.versioning#3: a client pinned to 2026-07-28 discovers the gateway over stdio (no initialize) and reaches a modern-only and a handshake-only server', async () => {
    const c = await overStdio('2026-07-28');
    expect(c.era).toBe('modern');
    expect(c.protocolVersion).toBe('2026-07-28');
    expect(c.serverInfo?.name).toBe('mcpwire-gateway');
    expect(c.serverCapabilities?.tools).toBeDefined();
    await bothServersAnswer(c);
  });

  it('a client pinned to 2025-11-25 opens the gateway with initialize over stdio and reaches the same two servers', async () => {
    const c = await overStdio('2025-11-25');
    expect(c.era).toBe('handshake');
    expect(c.protocolVersion).toBe('2025-11-25');
    await bothServersAnswer(c);
  });

  it('over Streamable HTTP: a 2026-07-28 client is served without a session, a 2025-11-25 one with its session', async () => {
    const modern = await overHttp('2026-07-28');
    expect(modern.era).toBe('modern');
    await bothServersAnswer(modern);
    const old = await overHttp('2025-11-25');
    expect(old.era).toBe('handshake');
    await bothServersAnswer(old);
  });

  // cites basic.patterns.subscriptions#2: mcpwire serve is the server here: it acknowledges a subscription first, then delivers what was asked
  it('basic.patterns.subscriptions#2: a 2026-07-28 client hears a downstream crash as a tools list change on its subscriptions/listen, over stdio and over HTTP', async () => {
    // the gateways the other tests read through (no test after this one uses them): the crash is the last thing they see
    const viaStdio = await overStdio('2026-07-28');
    const viaHttp = await overHttp('2026-07-28');
    for (const c of [viaStdio, viaHttp]) {
      let changes = 0;
      c.on('toolsListChanged', () => void changes++);
      const tools = await c.listTools();
      // The client opens its subscription once it has a listener: wait for the gateway's acknowledgement of it.
      const listen = (c as unknown as { listen: { acknowledged?: { toolsListChanged?: boolean } } }).listen;
      await expect.poll(() => listen.acknowledged?.toolsListChanged, { timeout: 15_000, interval: 20 }).toBe(true);
      const crash = tools.find((t) => t.name.startsWith('mcp_legacy_crash'))!.name;
      const crashed = await c.callTool(crash, { code: 3 });
      expect(crashed.isError).toBe(true);
      await expect.poll(() => changes, { timeout: 15_000 }).toBeGreaterThan(0);
    }
  });

  it("a downstream elicitation during a 2026-07-28 client's call is refused, not put to another client that declared elicitation", async () => {
    const g = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (\S+)/, { MCPWIRE_TRACE: '' });
    gateways.push(g.child);
    // A handshake-era client that answers elicitations starts the gateway (the servers are offered elicitation).
    const other = new Client({ name: 'bystander', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let asked = 0;
    other.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { colour: 'not yours' } };
    });
    await other.connect(new StreamableHTTPClientTransport(new URL(g.match[1]!)));
    try {
      const modern = await connect({ id: 'gateway', transport: 'http', url: g.match[1]! }, { protocolVersion: '2026-07-28', timeoutMs: 30_000 });
      clients.push(modern);
      const ask = (await modern.listTools()).find((t) => t.name.startsWith('mcp_legacy_ask'))!.name;
      const r = await modern.callTool(ask, { method: 'elicitation/create', params: { message: 'Colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain('-32601');
      expect(asked).toBe(0);
    } finally {
      await other.close();
    }
  });

  // cites basic.versioning#1: mcpwire serve is the server here: a version it does not serve is refused naming the ones it does
  it('basic.versioning#1: a modern request naming a version the gateway does not serve is -32022 listing the one it does', async () => {
    const c = await overStdio('2025-11-25');
    const err = await c
      .request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).rpcCode).toBe(-32022);
    expect((err as JsonRpcError).data).toEqual({ supported: ['2026-07-28'], requested: '2099-01-01' });
  });
});

describe('docs/serve.md', () => {
  it("the guide's first paragraph names both revisions the gateway speaks to its clients, not one revision 'on both sides'", () => {
    const doc = fs.readFileSync(path.join(root, 'docs/serve.md'), 'utf8');
    const first = doc.split(/\n\n/).find((p) => p.startsWith('`mcpwire serve`'))!;
    expect(first).toMatch(/2025-11-25/);
    expect(first).toMatch(/2026-07-28/);
    expect(first).not.toMatch(/on both sides/);
  });
});
