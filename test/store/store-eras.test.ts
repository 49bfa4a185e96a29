// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Era verdicts in the shared store (src/store/redis-eras.ts, src/host/era-shared.ts;
 * basic.versioning#7: a client MAY persist the probe's result across restarts of the same server
 * configuration): CLI processes that share no config dir but one Redis probe a handshake-era
 * stdio server once between them; the records keep the local file's bounds; while Redis is away
 * each falls back to its own `eras.json`, and uses Redis again once it is back. A real
 * redis-server on loopback, the built CLI (dist/), the scripted handshake-era mock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EraFile, EraVerdicts, MAX_AGE_MS, slotOf, type EraMemory } from '../../src/host/era-memory.js';
import { withSharedEras } from '../../src/host/era-shared.js';
import type { ResolvedServer } from '../../src/host/config/types.js';
import { RedisConnection } from '../../src/store/redis-connection.js';
import { RedisEras } from '../../src/store/redis-eras.js';
import { parseStoreSetting } from '../../src/store/setting.js';
import { runCliHere } from '../support/cli-in-process.js';
import { jsonLines, LEGACY_SERVER } from '../support/recorded-mock.js';
import { freePort, hasRedis, redisServers, stop } from '../support/redis-server.js';
import { tempDirs } from '../support/temp-dirs.js';

const tmp = tempDirs('mcpwire-store-eras-');
const redis = redisServers();
const connections: RedisConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
});

function connection(url: string): RedisConnection {
  const setting = parseStoreSetting(url);
  if (setting.kind !== 'redis') throw new Error('a redis URL');
  const c = new RedisConnection(setting, { maxBackoffMs: 200 });
  connections.push(c);
  return c;
}

/** A config with one stdio entry running the handshake-era mock that drops `server/discover` and says so on stderr. */
function setup() {
  const dir = tmp();
  const record = path.join(dir, 'received.jsonl');
  const config = path.join(dir, 'mcp.json');
  const write = (extra: Record<string, string> = {}) =>
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { srv: { transport: 'stdio', command: process.execPath, args: [LEGACY_SERVER, 'drop-before-initialize'], env: { MOCK_RECORD: record, ...extra } } } } }));
  write();
  let seen = 0;
  /** The first method each process received since the last look (one process per command). */
  const firsts = () => {
    const all = jsonLines(record);
    const fresh = all.slice(seen);
    seen = all.length;
    return fresh.map((m) => m.method).filter((m) => m === 'server/discover' || m === 'initialize');
  };
  return { dir, config, write, firsts };
}

/** One worker: its own home (its own `eras.json`), the store `store`. */
function worker(dir: string, name: string, store: string) {
  const home = path.join(dir, name);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), MCPWIRE_CONFIG_PATH: path.join(home, 'none.json'), MCPWIRE_STORE: store, MCPWIRE_NO_DAEMON: '1', MCPWIRE_TRACE: '' };
  const erasFile = path.join(home, 'eras.json'); // beside the global config (MCPWIRE_CONFIG_PATH)
  return {
    erasFile,
    async status(config: string): Promise<string> {
      const r = await runCliHere(['--config', config, 'status', '--json', '--timeout-ms', '20000'], { env, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      const row = (JSON.parse(r.stdout) as { era: string; state: string }[])[0]!;
      expect(row.state).toBe('ready');
      return row.era;
    },
  };
}

describe.skipIf(!hasRedis)('era verdicts in the shared store (redis-server not installed)', () => {
  it('basic.versioning#7: workers sharing one Redis and no config dir probe a handshake-era server once; a changed entry probes again; Redis away: each its own file, then Redis again', async () => {
    const port = await freePort();
    let server = await redis.start(port);
    const url = `redis://127.0.0.1:${port}/?prefix=erastest`;
    const s = setup();
    const a = worker(s.dir, 'a', url);
    const b = worker(s.dir, 'b', url);

    expect(await a.status(s.config)).toBe('handshake');
    expect(s.firsts()[0]).toBe('server/discover');
    // worker b never met this server: it opens with the verdict a kept in Redis
    expect(await b.status(s.config)).toBe('handshake');
    expect(s.firsts()).toEqual(['initialize']);
    // kept in Redis, not in either worker's file
    expect(fs.existsSync(a.erasFile) || fs.existsSync(b.erasFile)).toBe(false);
    const conn = connection(url);
    expect(await conn.command(['ZCARD', 'erastest:era:idx'])).toBe(1);
    const [key] = (await conn.command(['KEYS', 'erastest:era:r:*'])) as string[];
    const ttl = Number(await conn.command(['PTTL', key!]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(MAX_AGE_MS);

    // the entry changed (another variable): another fingerprint, probed again by whoever comes first, its record replaced
    s.write({ EXTRA: '1' });
    expect(await b.status(s.config)).toBe('handshake');
    expect(s.firsts()[0]).toBe('server/discover');
    expect(await a.status(s.config)).toBe('handshake');
    expect(s.firsts()).toEqual(['initialize']);
    expect(await conn.command(['ZCARD', 'erastest:era:idx'])).toBe(1);

    // Redis away: a worker probes (it cannot read the verdict), keeps it in its own file, and its next command uses that
    await stop(server);
    expect(await a.status(s.config)).toBe('handshake');
    expect(s.firsts()[0]).toBe('server/discover');
    expect(fs.existsSync(a.erasFile)).toBe(true);
    expect(await a.status(s.config)).toBe('handshake');
    expect(s.firsts()).toEqual(['initialize']);

    // Redis back (empty): the store again — b probes and keeps it there, a finds it there
    server = await redis.start(port);
    fs.rmSync(a.erasFile);
    expect(await b.status(s.config)).toBe('handshake');
    expect(s.firsts()[0]).toBe('server/discover');
    expect(await a.status(s.config)).toBe('handshake');
    expect(s.firsts()).toEqual(['initialize']);
    expect(fs.existsSync(a.erasFile)).toBe(false);
  }, 240_000);

  it('the records keep the local bounds: at most maxRecords (the oldest dropped first), too old is probed again, a failed opening or a modern verdict drops the record', async () => {
    const port = await freePort();
    await redis.start(port);
    const url = `redis://127.0.0.1:${port}`;
    const conn = connection(url);
    const shared = new RedisEras(conn, 'bounds', { maxRecords: 3 });
    let now = 1_000_000;
    const print = (s: ResolvedServer) => `print-${s.id}`;
    const memory = (): EraMemory => new EraVerdicts((withSharedEras(new EraFile(path.join(tmp(), 'eras.json'), print), shared) as EraVerdicts).records, print, () => now);
    const entry = (id: string): ResolvedServer => ({ id, source: 'global', file: '/etc/mcp.json', enabled: true, transport: 'stdio', config: { command: 'x', args: [], env: {} } }) as unknown as ResolvedServer;
    const one = memory();
    for (const id of ['s1', 's2', 's3', 's4', 's5']) {
      now += 1000;
      await one.opened(entry(id), 'handshake', { name: id, version: '1' }, false);
    }
    const other = memory();
    const kept = await Promise.all(['s1', 's2', 's3', 's4', 's5'].map((id) => other.recall(entry(id))));
    expect(kept).toEqual([undefined, undefined, 'handshake', 'handshake', 'handshake']);
    expect(await conn.command(['ZCARD', 'bounds:era:idx'])).toBe(3);

    // another fingerprint at the same place: not this entry's verdict
    const changed = new EraVerdicts((withSharedEras(undefined, shared, () => 'another') as EraVerdicts).records, () => 'another', () => now);
    expect(await changed.recall(entry('s3'))).toBeUndefined();

    // too old: probed again
    now += MAX_AGE_MS;
    expect(await other.recall(entry('s4'))).toBeUndefined();
    now -= MAX_AGE_MS;
    expect(await other.recall(entry('s4'))).toBe('handshake');

    // a failed opening, a modern opening: the record goes for everyone
    await other.failed(entry('s4'));
    await other.opened(entry('s5'), 'modern', { name: 's5', version: '1' }, false);
    expect(await one.recall(entry('s4'))).toBeUndefined();
    expect(await one.recall(entry('s5'))).toBeUndefined();
    expect(await conn.command(['ZCARD', 'bounds:era:idx'])).toBe(1);

    // a record not of this shape is not believed
    await conn.command(['SET', `bounds:era:r:${slotOf(entry('odd'))}`, JSON.stringify({ print: 'print-odd', era: 'modern', server: 'odd@1', at: now })]);
    expect(await one.recall(entry('odd'))).toBeUndefined();
    // too large a record is not kept
    expect(await shared.put('y'.repeat(32), 'z'.repeat(2000), now)).toBe(false);
  }, 60_000);
});

