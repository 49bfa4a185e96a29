/**
 * `mcpwire serve` and a 2025-11-25 client's `resources/subscribe` / `resources/unsubscribe`
 * (server/resources "Subscriptions"): two clients over Streamable HTTP subscribe to one URI, the
 * server behind is subscribed once; its `notifications/resources/updated` reach the sessions that
 * subscribed, and the last unsubscribe (or the session's end) unsubscribes downstream.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp } from '../../src/serve-api.js';
import { root } from '../support/tap-helpers.js';
import { jsonLines } from '../support/recorded-mock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-subscribe-'));
const record = path.join(dir, 'received.jsonl');
const configFile = path.join(dir, 'config.json');
fs.writeFileSync(
  configFile,
  JSON.stringify({
    version: 1,
    mcp: {
      servers: {
        legacy: {
          transport: 'stdio',
          command: process.execPath,
          args: [path.join(root, 'mock-servers/stdio-server.mjs')],
          env: { MOCK_SCENARIO_JSON: JSON.stringify({ extends: 'default', resources: [{ uri: 'mem://watched', name: 'watched', mimeType: 'text/plain', text: 'W' }] }), MOCK_RECORD: record },
        },
      },
    },
  }),
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sent = (method: string) => jsonLines(record).filter((m) => m.method === method && m.params?.uri === 'mem://watched').length;

async function client(url: string, name: string, updates: string[]): Promise<Client> {
  const c = new Client({ name, version: '1.0.0' });
  c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

describe('mcpwire serve: resources/subscribe for 2025-11-25 clients', { timeout: 60_000 }, () => {
  it('two clients, one downstream subscription; updates reach the subscribed sessions only; the last unsubscribe goes down', async () => {
    const gw = await serveHttp(await loadConfig({ globalPath: configFile }), { log: () => {} });
    const a: string[] = [];
    const b: string[] = [];
    const ca = await client(gw.url, 'a', a);
    const cb = await client(gw.url, 'b', b);
    try {
      expect(ca.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
      await ca.listResources();
      await ca.subscribeResource({ uri: 'mem://watched' });
      await cb.subscribeResource({ uri: 'mem://watched' });
      await expect.poll(() => sent('resources/subscribe'), { timeout: 10_000 }).toBe(1);
      // one server behind: its own tool names (as-is)
      await ca.callTool({ name: 'update', arguments: { uri: 'mem://watched' } });
      await expect.poll(() => [a.length, b.length], { timeout: 10_000 }).toEqual([1, 1]);
      expect(a).toEqual(['mem://watched']);
      await ca.unsubscribeResource({ uri: 'mem://watched' });
      expect(sent('resources/unsubscribe')).toBe(0); // b still watches it
      await cb.callTool({ name: 'update', arguments: { uri: 'mem://watched' } });
      await expect.poll(() => b.length, { timeout: 10_000 }).toBe(2);
      await ca.ping();
      expect(a).toHaveLength(1);
      await cb.unsubscribeResource({ uri: 'mem://watched' });
      await expect.poll(() => sent('resources/unsubscribe'), { timeout: 10_000 }).toBe(1);
    } finally {
      await ca.close();
      await cb.close();
      await gw.close();
    }
  });

  it('a session that ends releases its subscriptions (the server is unsubscribed when no one else watches)', async () => {
    fs.rmSync(record, { force: true });
    const gw = await serveHttp(await loadConfig({ globalPath: configFile }), { log: () => {} });
    const ca = await client(gw.url, 'a', []);
    try {
      await ca.listResources();
      await ca.subscribeResource({ uri: 'mem://watched' });
      await expect.poll(() => sent('resources/subscribe'), { timeout: 10_000 }).toBe(1);
      await (ca.transport as StreamableHTTPClientTransport).terminateSession();
      await expect.poll(() => sent('resources/unsubscribe'), { timeout: 10_000 }).toBe(1);
    } finally {
      await ca.close();
      await gw.close();
    }
  });
});
