// clauses: 2026-07-28
/**
 * The official server suite (conformance-next, @modelcontextprotocol/conformance 0.2.0-alpha.12,
 * `--requirements 2026-07-28`) against the official SDK v2 server (modern-only and dual, over
 * Streamable HTTP), set against `mcpwire check` on the same server: every check the suite does
 * not pass is a row of the triage table of src/check/crosscheck-2026-07-28.md (so a new failure
 * cannot go unnoticed), and every row triaged as a real server defect (category c) is a failing
 * or warning `check` result with its clause. A failure missing from the table is re-run once on
 * its own (the suite's stream waits are short) before it counts.
 * The suite needs Node >= 22: it runs on spec-conformance/runner's own `node` package (installed
 * by `npm ci` there); without it this file is skipped.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecks } from '../src/check-api.js';
import { spawnHttpPeer, type HttpPeer } from '../test/support/modern-wire.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const runner = path.join(here, 'runner');
const runnerNode = path.join(runner, 'node_modules', '.bin', 'node');
const suite = path.join(runner, 'node_modules', 'conformance-next', 'dist', 'index.js');
const installed = fs.existsSync(runnerNode) && fs.existsSync(suite);
const SDK = path.join(root, 'mock-servers', 'interop', 'sdk-v2-server.mjs');
const TABLE = path.join(root, 'src', 'check', 'crosscheck-2026-07-28.md');
const T = { timeout: 240_000 };

interface Row {
  scenario: string;
  id: string;
  status: string;
  category: string;
  /** Category c: the check ids that report it. */
  checks: string[];
}

/** The rows of the SDK v2 triage table. */
function readTable(): Row[] {
  const text = fs.readFileSync(TABLE, 'utf8');
  const section = text.slice(text.indexOf('### SDK v2 triage table'));
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 7 || !/^(FAILURE|WARNING|SKIPPED)$/.test(cells[3] ?? '')) continue;
    const checks = [...(cells[5] ?? '').matchAll(/`(modern\.[a-z-]+)`/g)].map((m) => m[1]!);
    rows.push({ scenario: cells[1]!, id: cells[2]!, status: cells[3]!, category: cells[4]!, checks });
  }
  return rows;
}

interface SuiteResult {
  scenario: string;
  id: string;
  status: string;
  message: string;
}

/** Runs the suite (the 2026-07-28 requirements, or one scenario) against `url`: every check it did not pass. */
function runSuite(url: string, scenario?: string): Promise<{ total: number; notPassed: SuiteResult[] }> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-crosscheck-'));
  const args = [suite, 'server', '--url', url, '-o', path.join(out, 'results'), ...(scenario ? ['--scenario', scenario, '--spec-version', '2026-07-28', '--force'] : ['--requirements', '2026-07-28'])];
  return new Promise((resolve, reject) => {
    // the suite writes into its working directory too: a temporary one
    const child = spawn(runnerNode, args, { cwd: out, stdio: ['ignore', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      try {
        resolve(readResults(path.join(out, 'results')));
      } catch (err) {
        reject(err);
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
    });
  });
}

function readResults(dir: string): { total: number; notPassed: SuiteResult[] } {
  let total = 0;
  const notPassed: SuiteResult[] = [];
  for (const d of fs.readdirSync(dir)) {
    const scenario = d.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    const checks = JSON.parse(fs.readFileSync(path.join(dir, d, 'checks.json'), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>;
    for (const c of checks) {
      total++;
      if (c.status !== 'SUCCESS' && c.status !== 'INFO') notPassed.push({ scenario, id: c.id, status: c.status, message: c.errorMessage ?? '' });
    }
  }
  return { total, notPassed };
}

const key = (x: { scenario: string; id: string; status: string }) => `${x.scenario} | ${x.id} | ${x.status}`;

describe('the triage table itself', () => {
  it('holds every category once, a real defect always with the check that reports it', () => {
    const rows = readTable();
    expect(rows.length).toBeGreaterThan(60);
    expect(new Set(rows.map(key)).size).toBe(rows.length);
    for (const r of rows) expect(['a', 'b', 'c', 'd'], key(r)).toContain(r.category);
    const real = rows.filter((r) => r.category === 'c');
    expect(real.length).toBeGreaterThan(0);
    for (const r of real) expect(r.checks.length, key(r)).toBeGreaterThan(0);
  });
});

// the two modes are two servers, each with its own suite and check runs: at once, the suite's waits
// (its stream reads, one scenario after another) overlapping
describe.skipIf(!installed).concurrent('the official suite vs mcpwire check on the SDK v2 server (2026-07-28)', () => {
  const peers: HttpPeer[] = [];
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.close()));
  });

  for (const mode of ['modern-only', 'dual'] as const) {
    // cites basic.transports.streamable_http#3: the one real defect the suite finds on this server is a check failure
    it(`${mode}: every check the suite does not pass is triaged, and check fails each real defect (basic.transports.streamable_http#3)`, T, async ({ expect }) => {
      const peer = await spawnHttpPeer([SDK, 'http', ...(mode === 'modern-only' ? ['--legacy', 'reject'] : []), '--port', '0']);
      peers.push(peer);
      const rows = readTable();
      const known = new Set(rows.map(key));
      const run = await runSuite(peer.url);
      expect(run.total).toBeGreaterThan(150);
      let untriaged = run.notPassed.filter((x) => !known.has(key(x)));
      for (const scenario of new Set(untriaged.map((x) => x.scenario))) {
        const again = await runSuite(peer.url, scenario);
        untriaged = untriaged.filter((x) => x.scenario !== scenario || again.notPassed.some((y) => key(y) === key(x)));
      }
      expect(untriaged.map((x) => `${key(x)}: ${x.message}`)).toEqual([]);

      const report = await runChecks({ transport: 'http', url: peer.url }, { timeoutMs: 15_000, allowCalls: true });
      expect(report.era).toBe('modern');
      for (const r of rows.filter((x) => x.category === 'c')) {
        for (const id of r.checks) {
          const res = report.results.find((x) => x.id === id);
          expect(res?.status, `${key(r)} → ${id}: ${res?.detail}`).toMatch(/^(fail|warn)$/);
          expect(res?.detail).toContain(`${res?.clause} (`);
        }
      }
    });
  }
});
