/**
 * The replicas' stream history in Redis (src/store/redis-history.ts) on a real `redis-server`:
 * bounded per session in bytes (the stream written to sheds its oldest events, finished streams
 * go whole first), in events per stream and in streams per session; what was let go is recorded
 * as `lost` (a resumption from before it is refused); a claim takes an unfinished stream over
 * once, and never a finished one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServeState } from '../../src/store/redis-sessions.js';
import { hasRedis, kill, startRedis } from '../support/replicas.js';
import { tempDirs } from '../support/temp-dirs.js';
import type { ChildProcess } from 'node:child_process';

const dir = tempDirs('mcpwire-serve-history-')();
let redis: { url: string; child: ChildProcess };
let state: RedisServeState;

beforeAll(async () => {
  if (!hasRedis) return;
  redis = await startRedis(dir);
  state = new RedisServeState(`${redis.url}?prefix=hist`, { history: { maxBytes: 1000, maxEvents: 5, maxStreams: 3 } });
}, 30_000);
afterAll(async () => {
  await state?.close();
  if (redis) await kill(redis.child);
  fs.rmSync(dir, { recursive: true, force: true });
});

const text = (n: number, c = 'x') => JSON.stringify({ d: c.repeat(n) });

describe.skipIf(!hasRedis)('serve replicas: the stream history in Redis is bounded (redis-server: installed by .ci/run)', () => {
  it('events per stream, bytes per session (finished streams first), streams per session; what went is `lost`', async () => {
    const h = state.history;
    const sid = 's1';
    await h.open(sid, 'r.1', 'r', 'post', '[]');
    for (let i = 1; i <= 8; i++) await h.append(sid, 'r.1', i, text(10), false);
    let s1 = (await h.read(sid, 'r.1'))!;
    expect(s1.events.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
    expect(s1.lost).toBe(3);
    // A finished stream, then another stream that grows past the session's bytes: the finished one goes whole first.
    await h.open(sid, 'r.2', 'r', 'post', '[]');
    await h.append(sid, 'r.2', 1, text(300), true);
    await h.open(sid, 'r.3', 'r', 'post', '[]');
    for (let i = 1; i <= 4; i++) await h.append(sid, 'r.3', i, text(200, 'y'), false);
    expect(await h.read(sid, 'r.2')).toBeUndefined();
    const s3 = (await h.read(sid, 'r.3'))!;
    const bytes = (s: { events: { text: string }[] }) => s.events.reduce((n, e) => n + e.text.length, 0);
    s1 = (await h.read(sid, 'r.1'))!;
    expect(bytes(s1) + bytes(s3)).toBeLessThanOrEqual(1000);
    // An event larger than the whole bound is not kept; the stream says so.
    await h.append(sid, 'r.3', 5, text(2000), false);
    expect((await h.read(sid, 'r.3'))!.lost).toBe(5);
    // A fourth stream: the session keeps three (the oldest unfinished one goes).
    await h.open(sid, 'r.4', 'r', 'post', '[]');
    await h.open(sid, 'r.5', 'r', 'post', '[]');
    const kept = await Promise.all(['r.1', 'r.3', 'r.4', 'r.5'].map(async (k) => (await h.read(sid, k)) !== undefined));
    expect(kept.filter(Boolean).length).toBe(3);
    expect(kept[0]).toBe(false);
  });

  it('a claim takes an unfinished stream over once; a finished one is never claimed', async () => {
    const h = state.history;
    await h.open('s2', 'a.1', 'a', 'post', JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'tools/list' }]));
    await h.append('s2', 'a.1', 1, text(5), false);
    expect(await h.claim('s2', 'a.1', 'a', 'b')).toEqual({ seq: 1, requests: JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'tools/list' }]) });
    expect(await h.claim('s2', 'a.1', 'a', 'c')).toBeUndefined();
    await h.open('s2', 'a.2', 'a', 'post', '[]');
    await h.append('s2', 'a.2', 1, text(5), true);
    expect(await h.claim('s2', 'a.2', 'a', 'b')).toBeUndefined();
  });
});
