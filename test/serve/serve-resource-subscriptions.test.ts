// clauses: 2026-07-28
/**
 * `mcpwire serve` and a 2026-07-28 client's resource subscriptions: `subscriptions/listen` with
 * `resourceSubscriptions` subscribes downstream (a handshake-era server with
 * `resources/subscribe`, a 2026-07-28 one with its own `subscriptions/listen`), and the servers'
 * `notifications/resources/updated` come up on the client's subscription, tagged with its id.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';
import { cli, root } from '../support/tap-helpers.js';
import { meta, spawnLinePeer, type LinePeer, type Msg } from '../support/modern-wire.js';
import { jsonLines } from '../support/recorded-mock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-subs-'));
const record = path.join(dir, 'legacy-received.jsonl');
const config = path.join(dir, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    version: 1,
    mcp: {
      serve_names: 'host', servers: {
        modern: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/modern/stdio-server.mjs')] },
        legacy: {
          transport: 'stdio',
          command: process.execPath,
          args: [path.join(root, 'mock-servers/stdio-server.mjs')],
          env: { MOCK_SCENARIO_JSON: JSON.stringify({ extends: 'default', resources: [{ uri: 'mem://legacy', name: 'legacy', mimeType: 'text/plain', text: 'L' }] }), MOCK_RECORD: record },
        },
      },
    },
  }),
);


const clients: McpClient[] = [];
const peers: LinePeer[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const p of peers.splice(0)) await p.close().catch(() => {});
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('mcpwire serve relays resource updates to a 2026-07-28 client', { timeout: 90_000 }, () => {
  // cites basic.patterns.subscriptions#2: mcpwire serve is the server here: the acknowledgement comes first, naming what it honours
  it('basic.patterns.subscriptions#2: the acknowledgement names the resource subscriptions a server behind the gateway took; the gateway declares resources.subscribe', async () => {
    const gw = spawnLinePeer([cli, 'serve', '--config', config], { env: { MCPWIRE_TRACE: '' } });
    peers.push(gw);
    const discover = await gw.request('server/discover', { _meta: meta() });
    expect(discover.result.capabilities.resources).toEqual({ listChanged: true, subscribe: true });
    await gw.request('resources/list', { _meta: meta() });
    const id = gw.nextId();
    gw.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: meta(), notifications: { resourceSubscriptions: ['mem://legacy'] } } });
    const ack = await gw.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id);
    expect(ack.params.notifications).toEqual({ resourceSubscriptions: ['mem://legacy'] });
    await expect.poll(() => jsonLines(record).some((m) => m.method === 'resources/subscribe' && m.params?.uri === 'mem://legacy'), { timeout: 10_000 }).toBe(true);
    const tools = (await gw.request('tools/list', { _meta: meta() })).result.tools as Msg[];
    const update = tools.find((t) => /^mcp_legacy_update_/.test(t.name))!.name;
    await gw.request('tools/call', { name: update, arguments: { uri: 'mem://legacy' }, _meta: meta() });
    const note = await gw.waitFor((m) => m.method === 'notifications/resources/updated');
    expect(note.params).toEqual({ _meta: { 'io.modelcontextprotocol/subscriptionId': id }, uri: 'mem://legacy' });
    // Cancelled: the last watcher of the URI is gone, the server is unsubscribed.
    gw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, _meta: meta() } });
    await expect.poll(() => jsonLines(record).some((m) => m.method === 'resources/unsubscribe' && m.params?.uri === 'mem://legacy'), { timeout: 10_000 }).toBe(true);
  });

  it("McpClient pinned to 2026-07-28 subscribes through the gateway to a handshake-era and a 2026-07-28 server's resources and hears each one's updates, only of what it subscribed", async () => {
    const c = await connect(
      { id: 'gateway', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', config], env: { MCPWIRE_TRACE: '' } },
      { protocolVersion: '2026-07-28', timeoutMs: 30_000 },
    );
    clients.push(c);
    const updates: string[] = [];
    c.on('resourceUpdated', (p: { uri: string }) => updates.push(p.uri));
    const uris = (await c.listResources()).map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['mem://legacy', 'mem://readme']));
    await c.subscribeResource('mem://readme');
    await c.subscribeResource('mem://legacy');
    const tools = await c.listTools();
    const notify = tools.find((t) => /^mcp_modern_notify_/.test(t.name))!.name;
    const update = tools.find((t) => /^mcp_legacy_update_/.test(t.name))!.name;
    // config.json is not subscribed: its update is not relayed (the readme one after it is)
    await c.callTool(notify, { kind: 'updated', uri: 'mem://config.json' });
    await c.callTool(notify, { kind: 'updated', uri: 'mem://readme' });
    await c.callTool(update, { uri: 'mem://legacy' });
    await expect.poll(() => [...updates].sort(), { timeout: 10_000 }).toEqual(['mem://legacy', 'mem://readme']);
    await c.unsubscribeResource('mem://legacy');
    await expect.poll(() => jsonLines(record).some((m) => m.method === 'resources/unsubscribe' && m.params?.uri === 'mem://legacy'), { timeout: 10_000 }).toBe(true);
  });
});
