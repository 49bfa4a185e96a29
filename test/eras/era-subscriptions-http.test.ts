/**
 * The listen manager wired into McpClient over the 2026-07-28 Streamable HTTP mock
 * (mock-servers/modern/http-server.mjs) on 127.0.0.1: a change reaches the client's events over
 * the long-lived POST stream of `subscriptions/listen`, a resource update reaches
 * `resourceUpdated`, a subscription the server ends is opened again, and close() ends the
 * stream. Generous bounds: CI is a loaded 2-core machine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/mcp/client.js';
import { fire } from '../support/modern-notify.js';
import { until as poll } from '../support/until.js';
import { startModernHttpMock, type ModernHttpMock } from '../../mock-servers/modern/http-server.mjs';

const WAIT = 20_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Polls `probe` until it gives a value, within WAIT. */
const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) => poll(what, probe, WAIT, 25);

describe('subscriptions/listen end to end (Streamable HTTP mock)', () => {
  async function httpClient(idleStreamTimeoutMs?: number): Promise<{ client: McpClient; mock: ModernHttpMock }> {
    const mock = await startModernHttpMock({ stderr: () => {} });
    cleanups.push(() => mock.close());
    const client = await connect(
      { transport: 'http', id: 'modern-http', url: mock.url },
      { protocolVersion: '2026-07-28', timeoutMs: WAIT, ...(idleStreamTimeoutMs === undefined ? {} : { http: { idleStreamTimeoutMs } }) },
    );
    cleanups.push(() => client.close());
    return { client, mock };
  }

  it('a tools list change reaches toolsListChanged over the long-lived POST stream', async () => {
    const { client } = await httpClient();
    const got = new Promise((resolve) => client.on('toolsListChanged', resolve));
    await fire(client, 'tools');
    await got;
  });

  it('a subscription the server ends is opened again, and a later change still arrives', async () => {
    const { client, mock } = await httpClient();
    let changes = 0;
    client.on('resourcesListChanged', () => void changes++);
    await fire(client, 'resources');
    await until('the first change', () => (changes > 0 ? true : undefined));
    const listens = (): number => mock.record.requests.filter((r) => r.method === 'subscriptions/listen').length;
    expect(listens()).toBe(1);
    mock.endSubscriptions();
    await until('a second listen', () => (listens() >= 2 ? true : undefined));
    await fire(client, 'resources');
    await until('a change on the new subscription', () => (changes > 1 ? true : undefined));
  });

  it('a resource update reaches resourceUpdated once subscribeResource resolved', async () => {
    const { client, mock } = await httpClient();
    const updates: Record<string, any>[] = [];
    client.on('resourceUpdated', (p: Record<string, any>) => updates.push(p));
    await client.subscribeResource('mem://config.json');
    await fire(client, 'updated', 'mem://config.json');
    await until('the update', () => (updates.length > 0 ? true : undefined));
    expect(updates[0]).toMatchObject({ uri: 'mem://config.json' });
    expect(mock.record.requests.filter((r) => r.method === 'resources/subscribe')).toHaveLength(0);
  });

  it('the listen stream is not cut by the idle-stream bound (it is long-lived): one listen, changes still arrive after it', async () => {
    const { client, mock } = await httpClient(200);
    let changes = 0;
    client.on('promptsListChanged', () => void changes++);
    await fire(client, 'prompts');
    await until('the first change', () => (changes > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1000)); // several idle bounds with nothing on the stream
    await fire(client, 'prompts');
    await until('a change after the quiet second', () => (changes > 1 ? true : undefined));
    expect(mock.record.requests.filter((r) => r.method === 'subscriptions/listen')).toHaveLength(1);
  });

  it('close() ends the listen by closing its stream (basic.patterns.cancellation: no notifications/cancelled over HTTP)', async () => {
    const { client, mock } = await httpClient();
    client.on('toolsListChanged', () => {});
    await fire(client, 'tools');
    const listen = mock.record.requests.find((r) => r.method === 'subscriptions/listen')!;
    await client.close();
    await until('the mock to see the stream closed', () => (mock.record.cancelled.includes(listen.id) ? true : undefined));
    expect(mock.record.violations).toEqual([]);
  });
});
