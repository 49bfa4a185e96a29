/**
 * `mcpwire trace show|stats|html|diff` refuse a file that is not a trace (exit 1, saying so)
 * instead of printing an empty report of it; a real trace, an empty file and a trace with a few
 * bad lines are still read. The built CLI. Needs `dist/`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { root } from '../support/cli-process.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-not-a-trace-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const record = (extra: Record<string, unknown>) => JSON.stringify({ t: 1_700_000_000_000, server: 'm', ...extra });

describe('trace commands on a file that is not a trace', { timeout: 120_000 }, () => {
  it('show, stats, html and diff refuse it with exit 1 and say why', async () => {
    const other = write('other.jsonl', '{"a":1}\n{"b":2}\n');
    const readme = path.join(root, 'README.md');
    for (const args of [['trace', 'show', readme], ['trace', 'stats', other], ['trace', 'html', other, '-o', '-'], ['trace', 'diff', other, other]]) {
      const r = await runCliHere(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/is not a trace: none of its \d+ lines is a trace record/);
      expect(r.stdout).toBe('');
    }
  });

  it('a trace, an empty file, and a trace with one bad line are read as before', async () => {
    const good = write('good.jsonl', `${record({ event: 'transport', type: 'spawn' })}\n${record({ dir: 'out', kind: 'request', id: 1, method: 'ping', msg: { jsonrpc: '2.0', id: 1, method: 'ping' } })}\n`);
    const empty = write('empty.jsonl', '');
    const oneBad = write('one-bad.jsonl', `${record({ dir: 'out', kind: 'request', id: 1, method: 'ping', msg: { jsonrpc: '2.0', id: 1, method: 'ping' } })}\nnot json\n`);
    const stats = await runCliHere(['trace', 'stats', good]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/ping/);
    expect((await runCliHere(['trace', 'show', empty])).code).toBe(0);
    const bad = await runCliHere(['trace', 'stats', oneBad]);
    expect(bad.code, bad.stderr).toBe(0);
    expect(bad.stderr).toContain('1 unreadable line(s) skipped (line 2)');
  });
});
