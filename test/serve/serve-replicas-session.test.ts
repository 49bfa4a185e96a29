/**
 * What a 2025-11-25 session sets for itself follows it across `serve --http --store` replicas
 * (three gateway processes behind HAProxy round-robin, no sticky sessions, one `redis-server`):
 * the log level it set through one replica filters the servers' log messages whichever replica
 * relays them — a replica that held a copy of the session before, and one started afterwards
 * that re-creates it from its record.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasHaproxy, hasRedis, kill, startCluster, type Cluster } from '../support/replicas.js';
import { until } from '../support/until.js';

const SCENARIO = { tools: ['echo', 'log'] };
const missing = !hasRedis || !hasHaproxy;

let cluster: Cluster;
beforeAll(async () => {
  if (missing) return;
  cluster = await startCluster(3, SCENARIO);
}, 90_000);
afterAll(async () => {
  await cluster?.close();
});

const sdkTransport = (url: string) => new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: { initialReconnectionDelay: 300, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 30 } });
const named = (tools: { name: string }[], tool: string) => tools.find((t) => t.name.startsWith(`mcp_alpha_${tool}`))?.name;
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
});
