/**
 * `trace show` and `trace stats` name each session's protocol era, whoever wrote the trace: a
 * `--trace` file of a 2026-07-28 session (no `era` line: read from the `server/discover` result
 * and the requests' `_meta`), a tap trace (its `era` line), and a handshake-era trace written
 * before eras were noted (test/fixtures/trace/sample.jsonl: from the `initialize` result). Tap
 * traces and `--trace` files write `t` and `ts` in one form (clock.ts); the readers also take a
 * `ts` written as epoch milliseconds.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/index.js';
import { computeStats, formatStats, parseTrace, renderShow } from '../../src/trace-api.js';
import { waitFor } from '../support/raw-http.js';
import { cli, root } from '../support/tap-helpers.js';

const MODERN_STDIO = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-show-modern-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const clientTrace = path.join(dir, 'client.jsonl');
const tapTrace = path.join(dir, 'tap.jsonl');
const read = (file: string) => parseTrace(fs.readFileSync(file, 'utf8')).records;

beforeAll(() => {
  // The same CLI command, once with --trace, once through a tap.
  const traced = spawnSync(process.execPath, [cli, '--trace', clientTrace, '--stdio', `${process.execPath} ${MODERN_STDIO}`, 'tools', '--names'], { cwd: root, encoding: 'utf8' });
  expect(traced.status, traced.stderr).toBe(0);
  const tapped = spawnSync(process.execPath, [cli, '--stdio', `${process.execPath} ${cli} tap --trace ${tapTrace} --name stdio -- ${process.execPath} ${MODERN_STDIO}`, 'tools', '--names'], { cwd: root, encoding: 'utf8' });
  expect(tapped.status, tapped.stderr).toBe(0);
  expect(tapped.stdout).toBe(traced.stdout);
}, 60_000);

describe('trace show and stats name the era', () => {
  it('a --trace file of a 2026-07-28 session: era modern 2026-07-28 read from its messages', () => {
    const records = read(clientTrace);
    expect(records.some((r) => (r as { event?: string }).event === 'era')).toBe(false);
    expect(renderShow(records)).toMatch(/← result\s+server\/discover #\d+\s+era modern 2026-07-28/);
    const stats = computeStats(records);
    expect(stats.eras).toEqual([{ server: 'stdio', era: 'modern', version: '2026-07-28' }]);
    expect(formatStats(stats)).toMatch(/^era: stdio modern 2026-07-28$/m);
  });

  it('a tap trace of the same session: its era line, the same verdict', () => {
    const records = read(tapTrace);
    expect(renderShow(records)).toMatch(/• era\s+modern 2026-07-28/);
    expect(computeStats(records).eras).toEqual([expect.objectContaining({ server: 'stdio', era: 'modern', version: '2026-07-28' })]);
    // Two relayed sessions of one server: one era line saying how many.
    const again = records.map((r) => (r.session === undefined ? r : { ...r, session: 'sha256:00000002' }));
    const stats = computeStats([...records, ...again]);
    expect(stats.eras).toHaveLength(2);
    expect(formatStats(stats)).toMatch(/^era: stdio modern 2026-07-28 \(2 sessions\)$/m);
  });

  it('a handshake-era trace written before eras were noted: era handshake 2025-11-25 from the initialize result', async () => {
    const records = read('test/fixtures/trace/sample.jsonl');
    expect(renderShow(records)).toMatch(/← result\s+initialize #0\s+era handshake 2025-11-25/);
    expect(computeStats(records).eras).toContainEqual({ server: 'files', era: 'handshake', version: '2025-11-25' });
    const r = spawnSync(process.execPath, [cli, 'trace', 'stats', 'test/fixtures/trace/sample.jsonl'], { cwd: root, encoding: 'utf8' });
    expect(r.stdout).toMatch(/^era: files handshake 2025-11-25$/m);
  });

  it('tap traces and --trace files write t and ts in one form; readers also take ts as epoch milliseconds', async () => {
    await waitFor(() => fs.readFileSync(tapTrace, 'utf8').includes('"trace-end"'), 'the tap trace');
    const shapes = (file: string) =>
      new Set(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
        const m = /^\{"v":1,"t":(\d+\.\d{3}),"ts":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)",/.exec(line);
        return m ? 'v,t (3 decimals),ts (ISO 8601 UTC, ms)' : line.slice(0, 60);
      }));
    expect(shapes(clientTrace)).toEqual(new Set(['v,t (3 decimals),ts (ISO 8601 UTC, ms)']));
    expect(shapes(tapTrace)).toEqual(shapes(clientTrace));
    // Two processes' lines in one file, one of them with ts as a number: ordered by wall clock all the same.
    const a = read(clientTrace);
    const tapped = read(tapTrace);
    const epoch = tapped.map((r) => ({ ...r, ts: Date.parse(r.ts) - 60_000 })) as unknown as TraceRecord[];
    const shown = renderShow([...a, ...epoch]).split('\n');
    expect(shown).toHaveLength(a.length + epoch.length);
    // The tap's lines (a minute earlier) come first, each showing its wall-clock time.
    const clientStart = shown.findIndex((l) => l.includes(`pid=${(a[0] as { pid?: number }).pid} `));
    expect(clientStart).toBe(epoch.length);
    expect(shown[0].trim().startsWith(new Date(Date.parse(tapped[0].ts) - 60_000).toISOString().slice(11, 23))).toBe(true);
  });
});
