/**
 * spec-conformance/runner/summarize.mjs: how a conformance results folder is judged against an
 * expected-failures baseline whose entries carry their reason as a trailing comment.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../support/temp-dirs.js';

const run = promisify(execFile);
const tmp = tempDirs('mcpwire-summarize-');
const SUMMARIZE = join(import.meta.dirname, '..', '..', 'spec-conformance', 'runner', 'summarize.mjs');

/** A results folder as the suite writes it: <scenario>-<timestamp>/checks.json (auth/… nested). */
function results(scenarios: Record<string, { status: string; exit?: number }>): string {
  const dir = tmp();
  const codes: string[] = [];
  for (const [name, s] of Object.entries(scenarios)) {
    const folder = join(dir, `${name}-2026-11-26T13-24-00-181Z`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'checks.json'), JSON.stringify([{ id: 'a-check', status: s.status }]));
    codes.push(`${name} ${s.exit ?? 0}`);
  }
  writeFileSync(join(dir, 'exit-codes.txt'), `${codes.join('\n')}\n`);
  return dir;
}

async function judge(dir: string, baseline: string): Promise<{ code: number; out: string; summary: string }> {
  const file = join(dir, 'baseline.yml');
  writeFileSync(file, baseline);
  const summary = join(dir, 'summary.txt');
  const r = await run(process.execPath, [SUMMARIZE, dir, file, summary]).then(
    (x) => ({ code: 0, out: x.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
  return { ...r, summary: readFileSync(summary, 'utf8').trim() };
}

describe('conformance baseline judgement', () => {
  it('an entry with its reason as a trailing comment is an expected failure; the rest pass', async () => {
    const dir = results({ tools_call: { status: 'SUCCESS' }, 'auth/iss-supported': { status: 'SUCCESS', exit: 1 }, 'request-metadata': { status: 'WARNING' } });
    const r = await judge(dir, 'client:\n  - auth/iss-supported # exits 1: waits for the modern era\n  - request-metadata # no retry\n');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^XFAIL auth\/iss-supported: /m);
    expect(r.out).toMatch(/^XFAIL request-metadata: /m);
    expect(r.summary).toBe('1 0');
  });

  it('a failure missing from the baseline, or an entry whose scenario passes, fails the run and counts as failed', async () => {
    const dir = results({ tools_call: { status: 'FAILURE' }, 'auth/iss-supported': { status: 'SUCCESS' } });
    const r = await judge(dir, 'client:\n  - auth/iss-supported # fixed since\n');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL {2}tools_call: /m);
    expect(r.out).toMatch(/^STALE auth\/iss-supported: /m);
    expect(r.summary).toBe('0 2');
  });

  it('an empty baseline (client: []) expects nothing', async () => {
    const dir = results({ initialize: { status: 'SUCCESS' }, sse_retry: { status: 'FAILURE' } });
    const r = await judge(dir, 'client: []\n');
    expect(r.code).toBe(1);
    expect(r.summary).toBe('1 1');
  });
});
