/**
 * A real `redis-server` for the shared-store tests: started on a free loopback port, no
 * persistence, killed after each test (`afterEach` registered by `redisServers()`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { afterEach } from 'vitest';
import { tempDirs } from './temp-dirs.js';
import { until } from './until.js';

const REDIS = '/usr/bin/redis-server';
/** Whether redis-server is installed here (`.ci/run` installs it). */
export const hasRedis = existsSync(REDIS) || spawnSync('redis-server', ['--version']).status === 0;

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Kills a process (SIGKILL) and waits for its exit. */
export async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const done = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await done;
}

/** `start(port, extra)`: a redis-server on `port`, resolved once it accepts connections. */
export function redisServers(): { start: (port: number, extra?: string[]) => Promise<ChildProcess> } {
  const tmp = tempDirs('mcpwire-redis-');
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(children.splice(0).map(stop));
  });
  return {
    async start(port, extra = []) {
      const p = spawn(existsSync(REDIS) ? REDIS : 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmp(), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(p);
      let out = '';
      p.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      await until('redis-server ready', () => out.includes('Ready to accept connections') || (p.exitCode !== null ? Promise.reject(new Error(`redis-server exited: ${out}`)) : false), 15_000);
      return p;
    },
  };
}
