/**
 * The official server conformance suite through the gateway: @modelcontextprotocol/conformance
 * 0.1.16 (`server --url`, its active scenarios) and the head suite, conformance-next
 * 0.2.0-alpha.12, with the server requirement sets of 2025-11-25 and 2026-07-28
 * (`--requirements <rev>`), each run against our suite peer (mock-servers/serve/suite-server.mjs,
 * built on the official SDK from the scenarios' requirement texts) directly, and then through
 * `mcpwire serve --http --names as-is` in front of it over Streamable HTTP (a fresh gateway per
 * run: the first client decides which revision the gateway tries first with the server). The
 * peer speaks both revisions: 2025-11-25 in sessions (SDK v1), 2026-07-28 statelessly (SDK v2,
 * mock-servers/serve/suite-modern.mjs). Every scenario the direct run passes must pass through the
 * gateway: names, tool results (text, image, audio, embedded resources, errors), progress,
 * logging, sampling and elicitation round trips (2026-07-28: multi round-trip requests, the
 * server's input request keys and the client's own capabilities passed on unchanged),
 * subscriptions, completion, concurrent streams, Host and header checks; and the peer must do
 * its part directly (at least `FLOOR` scenarios of each set).
 * The suite needs Node >= 22: it runs on spec-conformance/runner's own `node` package (installed
 * by `npm ci` there); without it this file is skipped. Slow: six suite runs; the three sets run
 * at once (each its own output directory and gateway).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';

const runner = path.join(root, 'spec-conformance', 'runner');
const runnerNode = path.join(runner, 'node_modules', '.bin', 'node');
const SUITES = {
  '0.1.16': { entry: path.join(runner, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'), args: [] as string[] },
  'head 2025-11-25': { entry: path.join(runner, 'node_modules', 'conformance-next', 'dist', 'index.js'), args: ['--requirements', '2025-11-25'] },
  'head 2026-07-28': { entry: path.join(runner, 'node_modules', 'conformance-next', 'dist', 'index.js'), args: ['--requirements', '2026-07-28'] },
};
/**
 * What the peer passes directly at least (of 30 active 0.1.16 scenarios, 33 of the head suite's
 * 2025-11-25 set, 50 of its 2026-07-28 set — the tasks extension's nine it does not offer): a peer that lost a scenario would shrink what the gateway is held to.
 */
const FLOOR: Record<keyof typeof SUITES, number> = { '0.1.16': 30, 'head 2025-11-25': 33, 'head 2026-07-28': 41 };
const installed = fs.existsSync(runnerNode) && Object.values(SUITES).every((s) => fs.existsSync(s.entry));
const peer = path.join(root, 'mock-servers', 'serve', 'suite-server.mjs');

/** Per scenario: passed (no check failed) or not, from the checks.json files of one run's output directory. */
type Outcome = Map<string, boolean>;

/** Runs one suite against `url` and reads each scenario's checks. */
function runSuite(suite: keyof typeof SUITES, url: string, out: string): Promise<Outcome> {
  const { entry, args } = SUITES[suite];
  return new Promise((resolve, reject) => {
    const child = spawn(runnerNode, [entry, 'server', '--url', url, ...args, '-o', out], { cwd: out, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c) => (log += c));
    child.stderr.on('data', (c) => (log += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      const outcome: Outcome = new Map();
      for (const dir of fs.readdirSync(out)) {
        const file = path.join(out, dir, 'checks.json');
        const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
        if (m === null || !fs.existsSync(file)) continue;
        const checks = JSON.parse(fs.readFileSync(file, 'utf8')) as { status: string }[];
        outcome.set(m[1]!, checks.length > 0 && checks.every((c) => c.status !== 'FAILURE'));
      }
      if (outcome.size === 0) reject(new Error(`the suite wrote no results:\n${log.slice(-2000)}`));
      else resolve(outcome);
    });
  });
}

const passing = (o: Outcome) => [...o].filter(([, ok]) => ok).map(([s]) => s).sort();

describe.skipIf(!installed).concurrent('the official server suite through serve --http --names as-is, as directly', () => {
  let server: Awaited<ReturnType<typeof startUntil>>;
  let tmp: string;
  let config: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-suite-'));
    server = await startUntil([peer, '--port', '0'], /LISTEN (http:\/\/\S+)/);
    config = path.join(tmp, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { peer: { url: server.match[1] } } } }));
  });
  afterAll(async () => {
    if (server) await stop(server.child);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const suite of Object.keys(SUITES) as (keyof typeof SUITES)[]) {
    it(`${suite}: every scenario that passes directly passes through the gateway`, async ({ expect }) => {
      const base = path.join(tmp, suite.replace(/\W+/g, '-'));
      fs.mkdirSync(`${base}-direct`);
      fs.mkdirSync(`${base}-gateway`);
      const direct = await runSuite(suite, server.match[1]!, `${base}-direct`);
      const gw = await startUntil([cli, 'serve', '--http', '--listen', '127.0.0.1:0', '--config', config, '--names', 'as-is'], /LISTEN (http:\/\/\S+)/);
      let through: Outcome;
      try {
        through = await runSuite(suite, gw.match[1]!, `${base}-gateway`);
      } finally {
        await stop(gw.child);
      }
      const lost = passing(direct).filter((s) => through.get(s) !== true);
      expect({ suite, lost }).toEqual({ suite, lost: [] });
      expect({ suite, direct: passing(direct).length >= FLOOR[suite] ? 'enough' : passing(direct) }).toEqual({ suite, direct: 'enough' });
    }, 300_000);
  }
});
