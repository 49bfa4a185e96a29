// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * `mcpwire daemon` on the store the user's config names (`mcp.store`; the daemon reads no config:
 * `daemon start` hands it the setting, src/daemon/control.ts), with real processes: a daemon and
 * a CLI command sharing one Redis and one expired token refresh it once between them and both
 * send the new one; `daemon status` shows the store's health without its password; an era
 * verdict the daemon found is the next command's too. A redis-server with a password, the mock
 * AS + protected MCP server, the built CLI (dist/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOAuthProvider } from '../../src/index.js';
import { parseStoreSetting, RedisTokenStore } from '../../src/host/index.js';
import { runCliHere } from '../support/cli-in-process.js';
import { killAll, type CliRun } from '../support/cli-process.js';
import { at, follow, oauthMockHarness, REDIRECT, type Mock } from '../support/oauth-mock.js';
import { jsonLines, LEGACY_SERVER } from '../support/recorded-mock.js';
import { freePort, hasRedis, redisServers } from '../support/redis-server.js';
import { until } from '../support/until.js';

const PASSWORD = 'daemon-redis-pw-never-shown-77';
const { mock } = oauthMockHarness();
const redis = redisServers();
const dirs: string[] = [];
const pids: number[] = [];
const stores: RedisTokenStore[] = [];
let stopDaemon: (() => Promise<CliRun>) | undefined;

afterEach(async () => {
  await stopDaemon?.();
  stopDaemon = undefined;
  killAll(pids);
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => {})));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}, 60_000);

const refreshGrants = (m: Mock) => at(m, '/token').filter((e) => e.params.grant_type === 'refresh_token');

describe.skipIf(!hasRedis)('the daemon on the shared store (redis-server not installed)', () => {
  it('basic.versioning#7: a daemon and a CLI command on one Redis (mcp.store) see one token — one refresh, both send the new one; daemon status shows the store, never its password; the daemon\'s era verdict is the command\'s', async () => {
    const port = await freePort();
    await redis.start(port, ['--requirepass', PASSWORD]);
    const url = `redis://:${PASSWORD}@127.0.0.1:${port}`;
    const m = await mock({ rotate: true });

    // a token for server "secure" in Redis, expired
    const store = new RedisTokenStore(parseStoreSetting(url));
    stores.push(store);
    await createOAuthProvider({ serverUrl: m.url, serverKey: 'secure', store, redirectUri: REDIRECT, interaction: follow }).authorize();
    const seeded = (await store.get('secure'))!;
    await store.set('secure', { ...seeded, expires_at: Date.now() - 1000 });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-store-daemon-'));
    dirs.push(dir);
    const home = path.join(dir, 'home');
    const runtime = path.join(dir, 'run');
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(runtime, { mode: 0o700 });
    const record = path.join(dir, 'received.jsonl');
    const config = path.join(dir, 'config.json');
    // the user's own config names the store; MCPWIRE_STORE is unset
    fs.writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        mcp: {
          store: url,
          servers: {
            secure: { transport: 'http', url: m.url },
            old: { transport: 'stdio', command: process.execPath, args: [LEGACY_SERVER, 'drop-before-initialize'], env: { MOCK_RECORD: record } },
          },
        },
      }),
    );
    const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: config, MCPWIRE_STORE: '', MCPWIRE_TRACE: '', MCPWIRE_NO_DAEMON: '', MCPWIRE_DAEMON_IDLE_MS: '', MCPWIRE_NO_BROWSER: '1' };
    const mcpwire = (args: string[], extra: Record<string, string> = {}) => runCliHere(args, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 60_000 });
    const outputs: string[] = [];
    const run = async (args: string[], extra: Record<string, string> = {}) => {
      const r = await mcpwire(args, extra);
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    stopDaemon = () => mcpwire(['daemon', 'stop']);

    const started = await run(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    interface St { pid: number; servers: { id: string; state: string; pid?: number }[]; store: { kind: string; url?: string; state: string } | null }
    const status = async () => JSON.parse((await run(['daemon', 'status', '--json'])).stdout) as St;
    const st = await until('both servers ready in the daemon', async () => {
      const s = await status();
      return s.servers.every((x) => x.state === 'ready') && s.servers.length === 2 ? s : undefined;
    }, 60_000);
    pids.push(st.pid, ...st.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
    expect(st.store).toMatchObject({ kind: 'redis', state: 'ok', url: `redis://:***@127.0.0.1:${port}` });

    // the daemon refreshed the expired token, in Redis for everyone
    expect(refreshGrants(m)).toHaveLength(1);
    const refreshed = (await store.get('secure'))!;
    expect(refreshed.access_token).not.toBe(seeded.access_token);

    // a command of its own (no daemon) takes that token: no second refresh, no revoked token sent
    const call = await run(['--no-daemon', 'call', 'secure', 'whoami']);
    expect(call.code, call.stderr).toBe(0);
    const through = await run(['call', 'secure', 'whoami']);
    expect(through.code, through.stderr).toBe(0);
    expect(through.stderr).toMatch(/via daemon/);
    expect(refreshGrants(m)).toHaveLength(1);
    expect(m.counters.revokedRefresh ?? 0).toBe(0);
    const sent = new Set(m.log.filter((e) => e.path === new URL(m.url).pathname && e.authorization !== undefined).map((e) => e.authorization));
    expect([...sent].filter((a) => a !== `Bearer ${seeded.access_token}`)).toEqual([`Bearer ${refreshed.access_token}`]);

    // the daemon probed the handshake-era server and kept the verdict in Redis: a command on its own opens without the probe
    expect(jsonLines(record).map((x) => x.method).find((x) => x === 'server/discover' || x === 'initialize')).toBe('server/discover');
    const before = jsonLines(record).length;
    const own = await run(['--no-daemon', 'status', 'old', '--json', '--timeout-ms', '20000']);
    expect(own.code, own.stderr).toBe(0);
    expect(jsonLines(record).slice(before).map((x) => x.method).filter((x) => x === 'server/discover' || x === 'initialize')).toEqual(['initialize']);

    // reload with the same store says nothing about it; the password is in no output
    const reload = await run(['daemon', 'reload']);
    expect(reload.code, reload.stderr).toBe(0);
    expect(reload.stdout).not.toMatch(/note:/);
    const text = (await run(['daemon', 'status'])).stdout;
    expect(text).toContain(`redis://:***@127.0.0.1:${port}`);
    for (const o of outputs) expect(o).not.toContain(PASSWORD);
    const log = fs.readFileSync(path.join(runtime, 'mcpwire', 'daemon.log'), 'utf8');
    expect(log).not.toContain(PASSWORD);
  }, 180_000);
});
