/**
 * What a 2025-11-25 session sets for itself follows it across `serve --http --store` replicas
 * (three gateway processes behind HAProxy round-robin, no sticky sessions, one `redis-server`):
 * the log level it set through one replica filters the servers' log messages whichever replica
 * relays them — a replica that held a copy of the session before, and one started afterwards
 * that re-creates it from its record; a resource it subscribed to through one replica sends its
 * updates to the session's GET stream held by another, one replica holds the downstream
 * subscription, and an unsubscribe through any replica ends it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { post, sseMessages, type Msg } from '../support/modern-wire.js';
import { clusterForFile, hasHaproxy, hasRedis, kill, named, sdkTransport, type Cluster } from '../support/replicas.js';
import { until } from '../support/until.js';

const SCENARIO = { tools: ['echo', 'log', 'update'], resources: [{ uri: 'mem://readme', name: 'readme', mimeType: 'text/plain', text: 'Hello from the mock server.' }] };
const missing = !hasRedis || !hasHaproxy;

const started = clusterForFile(3, SCENARIO, missing);
let cluster: Cluster;
beforeAll(() => {
  if (!missing) cluster = started();
});
/** The replicas whose downstream mock ran a `log` call whose data carries `marker`. */
const ranOn = (marker: string) => cluster.replicas.filter((r) => cluster.calls(r).some((m) => JSON.stringify(m.params).includes(marker))).map((r) => r.index);

describe.skipIf(missing)('a session\'s own state across serve --http replicas (redis-server and haproxy: installed by .ci/run)', { timeout: 150_000 }, () => {
  it('logging/setLevel: set through one replica, honoured by whichever replica relays the log messages — one that held the session before, one started after', async () => {
    const client = new Client({ name: 'sdk-levels', version: '1.0.0' });
    const got: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push({ level: n.params.level, data: n.params.data }));
    await client.connect(sdkTransport(cluster.url));
    try {
      const { tools } = await client.listTools();
      const echo = named(tools, 'echo')!;
      const log = named(tools, 'log')!;
      expect(log, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
      // every replica holds a copy of the session before the level is set
      for (let i = 0; i < 3; i++) await client.callTool({ name: echo, arguments: { text: `warm ${i}` } });
      await client.setLoggingLevel('warning');

      const round = async (tag: string, n: number) => {
        for (let i = 0; i < n; i++) {
          await client.callTool({ name: log, arguments: { level: 'info', data: `${tag}-info-${i}` } });
          await client.callTool({ name: log, arguments: { level: 'error', data: `${tag}-error-${i}` } });
        }
        await until(`the error messages of ${tag}`, () => got.filter((g) => String(g.data).startsWith(`${tag}-error-`)).length === n, 30_000);
      };
      await round('a', 6);
      // the calls ran on every replica; only the messages at or above warning reached the client
      for (const r of cluster.replicas) expect(ranOn('a-info-').concat(ranOn('a-error-')), `replica ${r.index}`).toContain(r.index);
      expect(got.filter((g) => String(g.data).includes('-info-'))).toEqual([]);

      // a replica started after the level was set re-creates the session from its record, level included
      await kill(cluster.replicas[0]!.child);
      await cluster.startReplica(0);
      let k = 0;
      for (; k < 20; k++) {
        await round(`b${k}`, 1);
        if (ranOn(`b${k}-info-`).includes(0)) break; // an info message was emitted on the restarted replica
      }
      expect(k, 'an info call ran on the restarted replica').toBeLessThan(20);
      expect(got.filter((g) => String(g.data).includes('-info-'))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('resources/subscribe: through one replica, the updates reach the GET stream another replica holds; subscribed again elsewhere, one replica holds it; unsubscribed through a third, they stop and the downstream subscription is released', async () => {
    const direct = (i: number) => `http://127.0.0.1:${cluster.replicas[i]!.port}/mcp`;
    const headers = (sid?: string): Record<string, string> => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(sid !== undefined ? { 'mcp-session-id': sid } : {}) });
    let n = 0;
    const rpc = async (i: number, sid: string, method: string, params: Msg = {}): Promise<Msg> => {
      const a = await post(direct(i), { jsonrpc: '2.0', id: ++n, method, params }, headers(sid));
      expect(a.status, a.text).toBe(200);
      expect(a.response?.error, JSON.stringify(a.response)).toBeUndefined();
      return a.response!.result as Msg;
    };
    const init = await post(cluster.url, { jsonrpc: '2.0', id: ++n, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-subscriber', version: '1' } } }, headers());
    const sid = init.headers.get('mcp-session-id')!;
    expect(sid).toBeTruthy();
    await post(cluster.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers(sid));

    // the GET stream on replica 0
    const controller = new AbortController();
    const get = await fetch(direct(0), { headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, signal: controller.signal });
    expect(get.status).toBe(200);
    let streamText = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of get.body as unknown as AsyncIterable<Uint8Array>) streamText += decoder.decode(chunk, { stream: true });
      } catch {
        /* aborted at the end */
      }
    })();
    const updates = () => sseMessages(streamText).filter((m) => m.method === 'notifications/resources/updated' && m.params?.uri === 'mem://readme').length;
    const downstream = (i: number, method: string) =>
      (fs.existsSync(cluster.replicas[i]!.record) ? fs.readFileSync(cluster.replicas[i]!.record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Msg) : []).filter((m) => m.method === method && m.params?.uri === 'mem://readme').length;
    try {
      const { tools } = (await rpc(1, sid, 'tools/list')) as { tools: { name: string }[] };
      const update = named(tools, 'update')!;
      const touch = async (i: number) => JSON.stringify(((await rpc(i, sid, 'tools/call', { name: update, arguments: { uri: 'mem://readme' } })) as { content: unknown }).content);

      // subscribed through replica 1: its server holds the subscription, its update reaches the GET stream on replica 0
      await rpc(1, sid, 'resources/subscribe', { uri: 'mem://readme' });
      expect(downstream(1, 'resources/subscribe')).toBe(1);
      expect(await touch(1)).toContain('sent');
      await until('the update on the GET stream held by replica 0', () => updates() === 1, 20_000);

      // subscribed again through replica 2: replica 2 holds it now, replica 1 let go of its own
      await rpc(2, sid, 'resources/subscribe', { uri: 'mem://readme' });
      await until('replica 1 released its downstream subscription', () => downstream(1, 'resources/unsubscribe') === 1, 20_000);
      expect(await touch(1)).toContain('not subscribed');
      expect(await touch(2)).toContain('sent');
      await until('the second update on the GET stream', () => updates() === 2, 20_000);

      // unsubscribed through replica 0 (which never held it): replica 2 lets go, no more updates
      await rpc(0, sid, 'resources/unsubscribe', { uri: 'mem://readme' });
      await until('replica 2 released its downstream subscription', () => downstream(2, 'resources/unsubscribe') === 1, 20_000);
      expect(await touch(2)).toContain('not subscribed');
      expect(await touch(1)).toContain('not subscribed');
      // a request after them all went through replica 0's stream order: still two updates
      await rpc(0, sid, 'ping');
      expect(updates()).toBe(2);
      expect(downstream(0, 'resources/subscribe')).toBe(0);
    } finally {
      controller.abort();
      await reading;
      await fetch(cluster.url, { method: 'DELETE', headers: headers(sid) }).catch(() => undefined);
    }
  });
});
