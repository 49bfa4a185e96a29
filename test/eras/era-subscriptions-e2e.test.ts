/**
 * The listen manager and the result cache wired into McpClient, end to end against the
 * 2026-07-28 mocks as real processes and sockets on 127.0.0.1: a change the server fires reaches
 * the client's events (the same events as the handshake era), `listTools()` is served from the
 * cache while fresh and not after a list_changed, closing cancels the listen, and (HTTP) a
 * subscription the server ends is opened again. Generous bounds: CI is a loaded 2-core machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/mcp/client.js';
import { fire } from '../support/modern-notify.js';
import { jsonLines, LEGACY_SERVER, MODERN_SERVER } from '../support/recorded-mock.js';
import { until as poll } from '../support/until.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
/** The same engine with a hook that ends every subscription gracefully (a complete result). */
const ENDING = path.join(root, 'test', 'fixtures', 'modern-stdio-ending.mjs');
const WAIT = 20_000;
const SUB = 'io.modelcontextprotocol/subscriptionId';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Stdio {
  client: McpClient;
  /** Every message the mock received, parsed (MOCK_RECORD). */
  received(): Record<string, any>[];
}

async function stdioClient(server = MODERN_SERVER, pinned: string | undefined = '2026-07-28'): Promise<Stdio> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'era-subs-'));
  const record = path.join(dir, 'in.jsonl');
  const client = await connect(
    { transport: 'stdio', id: 'modern', command: process.execPath, args: [server], env: { MOCK_RECORD: record } },
    { ...(pinned === undefined ? {} : { protocolVersion: pinned }), timeoutMs: WAIT },
  );
  cleanups.push(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { client, received: () => jsonLines(record) };
}

/** Polls `probe` until it gives a value, within WAIT. */
const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) => poll(what, probe, WAIT, 25);

const count = (msgs: Record<string, any>[], method: string): number => msgs.filter((m) => m.method === method && m.id !== undefined).length;

describe('subscriptions/listen end to end (stdio mock)', () => {
  it('a tools list change reaches the toolsListChanged event, tagged with the subscription it came on', async () => {
    const { client, received } = await stdioClient();
    const got = new Promise<Record<string, any>>((resolve) => client.on('toolsListChanged', resolve));
    await fire(client, 'tools');
    const payload = await got;
    const listens = received().filter((m) => m.method === 'subscriptions/listen');
    expect(listens.map((m) => m.params.notifications)).toEqual([{ toolsListChanged: true }]);
    expect(payload._meta[SUB]).toBe(listens[0].id);
  });

  it('the era found by the stdio probe (no pin) listens the same way', async () => {
    const { client, received } = await stdioClient(MODERN_SERVER, undefined);
    expect(client.era).toBe('modern');
    const got = new Promise((resolve) => client.on('resourcesListChanged', resolve));
    await fire(client, 'resources');
    await got;
    expect(received().filter((m) => m.method === 'subscriptions/listen').map((m) => m.params.notifications)).toEqual([{ resourcesListChanged: true }]);
  });

  it('a resource update reaches the resourceUpdated event once subscribeResource resolved', async () => {
    const { client, received } = await stdioClient();
    const updates: Record<string, any>[] = [];
    client.on('resourceUpdated', (p: Record<string, any>) => updates.push(p));
    await client.subscribeResource('mem://readme');
    const listen = received().find((m) => m.method === 'subscriptions/listen');
    expect(listen?.params.notifications).toEqual({ resourceSubscriptions: ['mem://readme'] });
    await fire(client, 'updated', 'mem://readme');
    await until('the update', () => (updates.length > 0 ? true : undefined));
    expect(updates[0]).toMatchObject({ uri: 'mem://readme' });
    // nothing subscribed to resources/subscribe: the modern era has no such request
    expect(count(received(), 'resources/subscribe')).toBe(0);
  });

  it('listTools() is served from the cache while fresh, asks again after a tools list change and with { fresh: true }', async () => {
    const { client, received } = await stdioClient();
    client.on('toolsListChanged', () => {});
    const first = await client.listTools();
    const second = await client.listTools();
    expect(second).toEqual(first);
    expect(count(received(), 'tools/list')).toBe(1);
    await fire(client, 'tools');
    await client.listTools();
    expect(count(received(), 'tools/list')).toBe(2);
    await client.listTools({ fresh: true });
    expect(count(received(), 'tools/list')).toBe(3);
  });

  it('readResource() is served from the cache while fresh and asks again once the resource was updated', async () => {
    const { client, received } = await stdioClient();
    client.on('resourceUpdated', () => {});
    await client.subscribeResource('mem://readme');
    const first = await client.readResource('mem://readme');
    expect(await client.readResource('mem://readme')).toEqual(first);
    await client.readResource('mem://config.json');
    expect(count(received(), 'resources/read')).toBe(2);
    await fire(client, 'updated', 'mem://readme');
    await client.callTool('echo', { text: 'barrier' }); // the update is in before this answer (one ordered channel)
    await client.readResource('mem://readme');
    await client.readResource('mem://config.json');
    expect(count(received(), 'resources/read')).toBe(3);
  });

  it('close() cancels the listen (notifications/cancelled naming it, stdio)', async () => {
    const { client, received } = await stdioClient();
    client.on('promptsListChanged', () => {});
    await fire(client, 'prompts');
    const listen = received().find((m) => m.method === 'subscriptions/listen')!;
    await client.close();
    const cancelled = received().filter((m) => m.method === 'notifications/cancelled');
    expect(cancelled.map((m) => m.params.requestId)).toContain(listen.id);
  });

  it('basic.transports.stdio#7 / basic.patterns.subscriptions#4: a change tagged with another subscription on the same channel is no event', async () => {
    const { client } = await stdioClient();
    // a subscription on the same stdio channel that the listen manager did not open
    const other = new AbortController();
    client.request('subscriptions/listen', { notifications: { toolsListChanged: true } }, { signal: other.signal, timeoutMs: Infinity }).catch(() => {});
    await fire(client, 'tools'); // that one is open
    let events = 0;
    client.on('toolsListChanged', () => void events++);
    await until('our own subscription to be open too', async () => {
      const r = await client.callTool('notify', { kind: 'tools' });
      return /delivered to 2/.test((r.content[0] as { text?: string }).text ?? '') ? true : undefined;
    });
    // stdio is one ordered channel: once this answer is here, every notification sent before it is too
    await client.callTool('echo', { text: 'barrier' });
    other.abort();
    // every change before ours was open went to the other subscription only; the last went to both
    expect(events).toBe(1);
  });

  it('a subscription the server ends is opened again (after the backoff), and a later change still arrives', async () => {
    const { client, received } = await stdioClient(ENDING);
    const payloads: Record<string, any>[] = [];
    client.on('toolsListChanged', (p: Record<string, any>) => payloads.push(p));
    await fire(client, 'tools');
    await until('the first change', () => (payloads.length > 0 ? true : undefined));
    const listens = (): Record<string, any>[] => received().filter((m) => m.method === 'subscriptions/listen');
    expect(listens()).toHaveLength(1);
    await client.notify('notifications/test/end_subscriptions');
    await until('a second listen', () => (listens().length >= 2 ? true : undefined));
    expect(listens()[1].params.notifications).toEqual({ toolsListChanged: true });
    const before = payloads.length;
    await fire(client, 'tools');
    await until('a change on the new subscription', () => (payloads.length > before ? true : undefined));
    expect(payloads[payloads.length - 1]._meta[SUB]).toBe(listens()[1].id);
  });
});

describe('the handshake era is unchanged', () => {
  it('no subscriptions/listen for listeners; subscribeResource is resources/subscribe', async () => {
    const { client, received } = await stdioClient(LEGACY_SERVER, '2025-11-25');
    expect(client.era).toBe('handshake');
    client.on('toolsListChanged', () => {});
    await client.subscribeResource('mem://readme');
    expect(count(received(), 'subscriptions/listen')).toBe(0);
    expect(count(received(), 'resources/subscribe')).toBe(1);
  });
});
