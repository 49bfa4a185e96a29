/**
 * Gateway replicas on loopback for the scale-out tests: a `redis-server` (no persistence),
 * `mcpwire serve --http --store redis://…` replicas (the built CLI, each with its own config
 * whose downstream mock records what it receives), and HAProxy in front, round-robin, no sticky
 * sessions, with a config written here on free ports.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll } from 'vitest';
import { cli, freePort, root, startUntil } from './tap-helpers.js';
import { until } from './until.js';

export const REDIS = existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : 'redis-server';
export const HAPROXY = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
export const hasRedis = spawnSync(REDIS, ['--version']).status === 0;
export const hasHaproxy = spawnSync(HAPROXY, ['-v']).status === 0;
/** The secret the replicas share (shaped like no credential). */
export const SHARED_SECRET = 'replicas-shared-secret-for-tests-0001';

export interface Replica {
  index: number;
  port: number;
  child: ChildProcess;
  record: string;
  stderr: () => string;
}

export interface Cluster {
  redisUrl: string;
  redis: ChildProcess;
  replicas: Replica[];
  /** HAProxy's /mcp URL. */
  url: string;
  haproxy: ChildProcess;
  dir: string;
  /** The tools/call requests a replica's downstream mock received. */
  calls(r: Replica): Record<string, any>[];
  startReplica(index: number): Promise<Replica>;
  close(): Promise<void>;
}

const kill = (c: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  });

export async function startRedis(dir: string): Promise<{ url: string; child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await until('redis-server ready', () => out.includes('Ready to accept connections') || (child.exitCode !== null ? Promise.reject(new Error(`redis-server exited: ${out}`)) : false), 15_000);
  return { url: `redis://127.0.0.1:${port}`, child, port };
}

/** `n` replicas behind HAProxy with one Redis. `scenario`: the downstream mock's tools. */
export async function startCluster(n: number, scenario: Record<string, unknown>, extraEnv: Record<string, string> = {}): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcpwire-replicas-'));
  const redis = await startRedis(dir);
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const lbPort = await freePort();
  const replicas: Replica[] = [];
  const startReplica = async (index: number): Promise<Replica> => {
    const record = path.join(dir, `received-${index}-${Date.now()}.jsonl`);
    const config = path.join(dir, `config-${index}.json`);
    const env = { MOCK_SCENARIO_JSON: JSON.stringify(scenario), MOCK_RECORD: record };
    writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env, trust_annotations: true } } } }));
    const g = await startUntil([cli, 'serve', '--http', '--config', config, '--listen', `127.0.0.1:${ports[index]}`, '--store', redis.url, '--public-host', `127.0.0.1:${lbPort}`], /LISTEN (\S+)/, { MCPWIRE_TRACE: '', MCPWIRE_SERVE_SECRET: SHARED_SECRET, ...extraEnv });
    const r = { index, port: ports[index]!, child: g.child, record, stderr: g.stderr };
    replicas[index] = r;
    return r;
  };
  for (let i = 0; i < n; i++) await startReplica(i);
  const cfg = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 256',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 120s',
      '  timeout server 120s',
      '  retries 3',
      '  option redispatch 1',
      'frontend fe',
      `  bind 127.0.0.1:${lbPort}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...ports.map((p, i) => `  server r${i} 127.0.0.1:${p} check inter 300 fall 1 rise 2`),
      '',
    ].join('\n'),
  );
  const haproxy = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await until('haproxy listening', async () => {
    if (haproxy.exitCode !== null) throw new Error('haproxy exited');
    try {
      const r = await fetch(`http://127.0.0.1:${lbPort}/mcp`, { method: 'GET' });
      return r.status === 400;
    } catch {
      return false;
    }
  }, 15_000, 100);
  return {
    redisUrl: redis.url,
    redis: redis.child,
    replicas,
    url: `http://127.0.0.1:${lbPort}/mcp`,
    haproxy,
    dir,
    calls: (r) => (existsSync(r.record) ? readFileSync(r.record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((m) => m.method === 'tools/call') : []),
    startReplica,
    async close() {
      await kill(haproxy);
      for (const r of replicas) if (r) await kill(r.child);
      await kill(redis.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { kill };

/** `n` replicas for the whole test file (started before its tests unless `skip`, closed after): the cluster, once started. */
export function clusterForFile(n: number, scenario: Record<string, unknown>, skip: boolean): () => Cluster {
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    if (!skip) cluster = await startCluster(n, scenario);
  }, 90_000);
  afterAll(async () => {
    await cluster?.close();
  });
  return () => cluster!;
}

/** The SDK client's transport to `url`, reconnecting quickly (a replica killed under it). */
export const sdkTransport = (url: string) => new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: { initialReconnectionDelay: 300, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 30 } });

/** The gateway's name (host naming) of the mock's tool `tool`. */
export const named = (tools: { name: string }[], tool: string) => tools.find((t) => t.name.startsWith(`mcp_alpha_${tool}`))?.name;
