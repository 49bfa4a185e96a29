// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The era verdict across CLI processes (src/host/era-memory.ts, src/cli/era-memory.ts;
 * basic.versioning#7: MAY persist across restarts of the same server configuration, re-probe
 * if the cached assumption later fails) and the stdio probe bounded by what the server shows
 * (eras/select.ts `SignsOfLife`; basic.transports.stdio#15: the fallback is not keyed to one
 * error code — silence too means legacy). Real processes: the built CLI (dist/), the scripted
 * mocks; a server that "changes" is one entry whose program a pointer file names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EraFile, MAX_RECORDS } from '../../src/host/era-memory.js';
import type { ResolvedServer } from '../../src/host/index.js';
import { runCliHere } from '../support/cli-in-process.js';
import { LEGACY_SERVER, MODERN_SERVER, recordedMocks } from '../support/recorded-mock.js';

const { dir, mock, open } = recordedMocks('era-memory-');

/** A handshake-era server that drops `server/discover` (an older SDK before `initialize`): silent on stdout. */
const PROBE_SILENT = { extends: 'default', behavior: { methods: { 'server/discover': { never: true } } } };
/** The same, logging the dropped request on stderr (mock-servers/scenarios/drop-before-initialize.json). */
const DROPS_AND_LOGS = 'drop-before-initialize';

/** Runs the script a pointer file names (`{"script", "args", "env"}`): one config entry, a server that can change. */
const SWITCH = path.join(dir, 'switch.mjs');
fs.writeFileSync(
  SWITCH,
  `import fs from 'node:fs';
const which = JSON.parse(fs.readFileSync(process.env.SWITCH_FILE, 'utf8'));
Object.assign(process.env, which.env ?? {});
process.argv = [process.argv[0], which.script, ...(which.args ?? [])];
await import(which.script);
`,
);

/** The modern-only mock, after a line on stderr at start. */
const NOISY = path.join(dir, 'noisy.mjs');
fs.writeFileSync(NOISY, `process.stderr.write('loading…\\n');\nprocess.argv.splice(1, 1, ${JSON.stringify(MODERN_SERVER)});\nawait import(${JSON.stringify(MODERN_SERVER)});\n`);

let n = 0;
/** A config file with one entry `srv` running SWITCH; `point` says which server it runs; `methods()` what it received so far. */
function switchable(extraEnv: Record<string, string> = {}) {
  const id = ++n;
  const pointer = path.join(dir, `which-${id}.json`);
  const record = path.join(dir, `rec-${id}.jsonl`);
  const config = path.join(dir, `mcp-${id}.json`);
  const writeConfig = (env: Record<string, string>) =>
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { srv: { transport: 'stdio', command: process.execPath, args: [SWITCH], env: { SWITCH_FILE: pointer, MOCK_RECORD: record, ...env } } } } }));
  writeConfig(extraEnv);
  let seen = 0;
  return {
    config,
    writeConfig,
    point: (script: string, scenario?: object | string) =>
      fs.writeFileSync(pointer, JSON.stringify(typeof scenario === 'string' ? { script, args: [scenario] } : { script, env: scenario === undefined ? {} : { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } })),
    /** The methods received since the last call. */
    methods: () => {
      const lines = fs.existsSync(record) ? fs.readFileSync(record, 'utf8').split('\n').filter(Boolean) : [];
      const out = lines.slice(seen).map((l) => (JSON.parse(l) as { method?: string }).method).filter((m): m is string => m !== undefined);
      seen = lines.length;
      return out;
    },
  };
}

const home = path.join(dir, 'home');
const env = { ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), MCPWIRE_CONFIG_PATH: '' };
const erasFile = path.join(home, 'config', 'mcpwire', 'eras.json');
const records = () => Object.keys((JSON.parse(fs.readFileSync(erasFile, 'utf8')) as { eras: object }).eras);

async function status(config: string): Promise<{ era: string; state: string }> {
  const r = await runCliHere(['--config', config, 'status', '--json', '--timeout-ms', '20000'], { env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { era: string; state: string }[])[0]!;
}

describe('the era verdict across CLI processes', () => {
  // cites basic.transports.stdio#15: the fallback it rules is the client's (the probe's), whatever the table's role says
  it('basic.versioning#7, basic.transports.stdio#15: the second command against a probe-silent server skips the probe; a changed entry probes again', async () => {
    const s = switchable();
    s.point(LEGACY_SERVER, DROPS_AND_LOGS);
    expect(await status(s.config)).toMatchObject({ era: 'handshake', state: 'ready' });
    expect(s.methods().slice(0, 1)).toEqual(['server/discover']);
    expect(fs.statSync(erasFile).mode & 0o777).toBe(0o600);
    expect(records()).toHaveLength(1);

    expect(await status(s.config)).toMatchObject({ era: 'handshake', state: 'ready' });
    const second = s.methods();
    expect(second[0]).toBe('initialize');
    expect(second).not.toContain('server/discover');

    // `call` (one server, no host) reads the same memory
    const call = await runCliHere(['--no-daemon', '--config', s.config, 'call', 'srv', 'echo', 'text=kept'], { env });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('kept');
    expect(s.methods()).not.toContain('server/discover');

    // the same entry changed (another variable): another fingerprint, probed again, its record replaced
    s.writeConfig({ EXTRA: '1' });
    expect(await status(s.config)).toMatchObject({ era: 'handshake' });
    expect(s.methods()[0]).toBe('server/discover');
    expect(records()).toHaveLength(1);
  }, 180_000);

  it('a server that became modern is found again: a dual server answering initialize under another name drops the verdict, the next command probes', async () => {
    const s = switchable();
    s.point(LEGACY_SERVER, DROPS_AND_LOGS);
    expect((await status(s.config)).era).toBe('handshake');
    const before = records().length;

    // the program behind the entry is now a dual-era server: the kept verdict opens it with
    // initialize, its serverInfo is not the recorded one, so the verdict goes…
    s.point(MODERN_SERVER, { extends: 'default', mode: 'dual' });
    s.methods();
    expect((await status(s.config)).era).toBe('handshake');
    expect(s.methods()[0]).toBe('initialize');
    expect(records()).toHaveLength(before - 1);
    // …and the next command probes and speaks modern
    expect((await status(s.config)).era).toBe('modern');
    expect(s.methods()[0]).toBe('server/discover');
  }, 180_000);

  it('a server that became modern-only behind a kept handshake verdict: its -32022 to initialize switches at once, and the verdict goes', async () => {
    const t = switchable();
    t.point(LEGACY_SERVER, DROPS_AND_LOGS);
    expect((await status(t.config)).era).toBe('handshake');
    t.point(MODERN_SERVER);
    t.methods();
    const kept = records().length;
    expect((await status(t.config)).era).toBe('modern');
    expect(t.methods().slice(0, 2)).toEqual(['initialize', 'server/discover']);
    expect(records()).toHaveLength(kept - 1);
  }, 180_000);

  it('MCPWIRE_ERA_MEMORY=off keeps nothing', async () => {
    const s = switchable();
    s.point(LEGACY_SERVER, DROPS_AND_LOGS);
    const offHome = path.join(dir, 'home-off');
    const r = await runCliHere(['--config', s.config, 'status', '--json'], { env: { ...env, XDG_CONFIG_HOME: offHome, MCPWIRE_ERA_MEMORY: 'off' } });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(offHome, 'mcpwire', 'eras.json'))).toBe(false);
  });
});

describe('the stdio probe bounded by what the server shows', () => {
  // cites basic.transports.stdio#15: the fallback it rules is the client's (the probe's), whatever the table's role says
  it('basic.transports.stdio#15: a server that logs on stderr and answers ping but not server/discover is legacy without waiting the probe bound', async () => {
    const m = mock({ script: LEGACY_SERVER, scenario: DROPS_AND_LOGS });
    // a bound far beyond the test's own timeout: only the signs of life end the probe in time
    const c = await open(m.config, { eraProbeTimeoutMs: 120_000, initializeTimeoutMs: 240_000 });
    expect(c.era).toBe('handshake');
    expect(m.received().map((r) => r.method).slice(0, 3)).toEqual(['server/discover', 'ping', 'initialize']);
  });

  // cites basic.transports.stdio#15: the fallback it rules is the client's (the probe's), whatever the table's role says
  it('basic.transports.stdio#15: a fully silent legacy server falls back when the probe bound ends, never pinged', async () => {
    const m = mock({ script: LEGACY_SERVER, scenario: PROBE_SILENT });
    const c = await open(m.config, { eraProbeTimeoutMs: 1_000 });
    expect(c.era).toBe('handshake');
    expect(m.received().map((r) => r.method).slice(0, 2)).toEqual(['server/discover', 'initialize']);
  });

  it('a notification while the probe goes unanswered is a sign of life too', async () => {
    const log = { method: 'notifications/message', params: { level: 'warning', data: 'request before initialization' } };
    const m = mock({ script: LEGACY_SERVER, scenario: { extends: 'default', behavior: { methods: { 'server/discover': { never: true, notifications: [log] } } } } });
    const c = await open(m.config, { eraProbeTimeoutMs: 120_000, initializeTimeoutMs: 240_000 });
    expect(c.era).toBe('handshake');
    expect(m.received().map((r) => r.method)).not.toContain('ping');
  });

  it('a server that shows nothing keeps the bound: a dual server that answers discovery late is still modern, and is sent no ping', async () => {
    const m = mock({ script: MODERN_SERVER, scenario: { extends: 'default', mode: 'dual', behavior: { methods: { 'server/discover': { delayMs: 1_500 } } } } });
    const c = await open(m.config, { eraProbeTimeoutMs: 20_000, initializeTimeoutMs: 40_000 });
    expect(c.era).toBe('modern');
    expect(m.received().map((r) => r.method)).not.toContain('initialize');
    expect(m.received().map((r) => r.method)).not.toContain('ping');
  });

  it('a server that logs on stderr while it starts and then answers the probe is modern: its -32601 to ping proves nothing', async () => {
    const m = mock({ script: NOISY, scenario: { extends: 'default', behavior: { methods: { 'server/discover': { delayMs: 1_500 } } } } });
    const c = await open(m.config, { eraProbeTimeoutMs: 20_000, initializeTimeoutMs: 40_000 });
    expect(c.era).toBe('modern');
  });
});

describe('the era file', () => {
  const server = (id: string, extra = ''): ResolvedServer => ({ id, file: '/cfg/mcp.json', transport: 'stdio', config: { command: 'srv', args: [extra] } }) as unknown as ResolvedServer;
  const print = (s: ResolvedServer) => JSON.stringify(s.config);

  it('is bounded: the newest MAX_RECORDS entries are kept', async () => {
    const file = path.join(dir, 'bounded', 'eras.json');
    let t = 0;
    const eras = new EraFile(file, print, () => ++t);
    for (let i = 0; i < MAX_RECORDS + 5; i++) await eras.opened(server(`s${i}`), 'handshake', { name: 'x', version: '1' }, false);
    const kept = Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as { eras: object }).eras);
    expect(kept).toHaveLength(MAX_RECORDS);
    expect(await eras.recall(server('s0'))).toBeUndefined();
    expect(await eras.recall(server(`s${MAX_RECORDS + 4}`))).toBe('handshake');
  });

  it('a file of another shape reads as empty; a modern verdict or a failed opening drops the record', async () => {
    const file = path.join(dir, 'shapes', 'eras.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"version":1,"eras":{"x":{"print":5}}');
    const eras = new EraFile(file, print);
    expect(await eras.recall(server('a'))).toBeUndefined();
    await eras.opened(server('a'), 'handshake', undefined, false);
    expect(await eras.recall(server('a'))).toBe('handshake');
    expect(await eras.recall(server('a', 'changed'))).toBeUndefined();
    await eras.opened(server('a'), 'modern', undefined, false);
    expect(await eras.recall(server('a'))).toBeUndefined();
    await eras.opened(server('b'), 'handshake', undefined, false);
    await eras.failed(server('b'));
    expect(await eras.recall(server('b'))).toBeUndefined();
  });

  it('two processes writing at once leave a whole file', async () => {
    const file = path.join(dir, 'race', 'eras.json');
    const mod = path.resolve('dist/host-api.js');
    const writer = (tag: string) =>
      new Promise<number>((resolve) => {
        const code = `const { EraFile } = await import(${JSON.stringify(mod)});
const e = new EraFile(${JSON.stringify(file)}, (s) => s.id);
for (let i = 0; i < 40; i++) await e.opened({ id: '${tag}' + i, file: '/f', transport: 'stdio', config: {} }, 'handshake', undefined, false);`;
        const p = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: 'inherit' });
        p.on('exit', (c) => resolve(c ?? 1));
      });
    expect(await Promise.all([writer('a'), writer('b')])).toEqual([0, 0]);
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { eras: Record<string, { era: string }> };
    expect(Object.values(data.eras).every((r) => r.era === 'handshake')).toBe(true);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
