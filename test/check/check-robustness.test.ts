/**
 * `mcpwire check --robustness` against the stdio check fixture (a real child process): the
 * clean server draws no finding, and each robustness knob (robust.mjs) plants one defect that
 * exactly its check reports, with the input that caused it. Only the robustness checks run.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS, runChecks, selectChecks } from '../../src/check/run/runner.js';
import { ROBUST_BUGS } from '../../mock-servers/check-fixtures/robust.mjs';

const fixture = fileURLToPath(new URL('../../mock-servers/check-fixtures/server.mjs', import.meta.url));
const httpFixture = fileURLToPath(new URL('../../mock-servers/check-fixtures/http-server.mjs', import.meta.url));

const run = (bug?: string) =>
  runChecks(
    { transport: 'stdio', id: bug ?? 'clean', command: process.execPath, args: [fixture, ...(bug ? [`--bug=${bug}`] : [])] },
    { timeoutMs: 8_000, only: ['robustness'], robustness: true },
  );

// The groups run at once: each run starts fixture processes of its own, and most of a run is
// waiting (a flood's answers, a hang's bound), so the clean and HTTP runs go inside the knobs'.
describe('check --robustness', { concurrent: true }, () => {
  it('robustness checks run only when asked for, and each has a planted defect', ({ expect }) => {
    const robust = ALL_CHECKS.filter((c) => c.robustness === true).map((c) => c.id);
    expect(robust.length).toBeGreaterThanOrEqual(10);
    expect(selectChecks(undefined).some((c) => c.robustness === true)).toBe(false);
    expect(selectChecks(undefined, [], true).filter((c) => c.robustness === true).map((c) => c.id)).toEqual(robust);
    expect(new Set(Object.values(ROBUST_BUGS))).toEqual(new Set(robust));
  });

  it('the clean fixture: every robustness check passes', { timeout: 120_000 }, async ({ expect }) => {
    const r = await run();
    const bad = r.results.filter((x) => x.status !== 'pass');
    expect(bad, JSON.stringify(bad, null, 1)).toEqual([]);
    expect(r.results.map((x) => x.id).sort()).toEqual(ALL_CHECKS.filter((c) => c.robustness).map((c) => c.id).sort());
  });

  it('no input goes to a capability the server does not declare: with no tools, nothing warns', { timeout: 120_000 }, async ({ expect }) => {
    // tools/* would get -32601 (Method not found) here: a wrong code only because it was never declared.
    const r = await run('caps-no-tools');
    const bad = r.results.filter((x) => x.status !== 'pass');
    expect(bad, JSON.stringify(bad, null, 1)).toEqual([]);
    expect(r.results.find((x) => x.id === 'robustness.wrong-types')?.detail).toBe('2 inputs, each answered, the server alive after each');
  });
});

describe('check --robustness over Streamable HTTP', { concurrent: true }, () => {
  it('a body past the server\'s limit refused with HTTP 413 is an answer, not a crash (the server answers a ping after it)', { timeout: 120_000 }, async ({ expect }) => {
    const child = spawn(process.execPath, [httpFixture, '--max-body=102400'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout!.on('data', (d: Buffer) => {
          buf += d.toString();
          const nl = buf.indexOf('\n');
          if (nl >= 0) resolve((JSON.parse(buf.slice(0, nl)) as { url: string }).url);
        });
        child.once('exit', (code) => reject(new Error(`http fixture exited (${code})`)));
      });
      const r = await runChecks({ transport: 'http', id: 'http-413', url }, { timeoutMs: 8_000, only: ['robustness.huge-inputs'], robustness: true });
      const huge = r.results.find((x) => x.id === 'robustness.huge-inputs')!;
      expect(huge.status, JSON.stringify(huge)).toBe('pass');
      expect(huge.detail).toBe('3 inputs, each answered, the server alive after each');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe.concurrent('robustness knobs: each planted defect is reported by exactly its check', () => {
  for (const [bug, id] of Object.entries(ROBUST_BUGS)) {
    it(`${id}: --bug=${bug}`, { timeout: 120_000 }, async () => {
      const r = await run(bug);
      const target = r.results.find((x) => x.id === id)!;
      expect(['fail', 'warn'], JSON.stringify(target)).toContain(target.status);
      expect(target.evidence, 'the input that caused it is quoted').toBeTruthy();
      const others = r.results.filter((x) => x.id !== id && x.status !== 'pass');
      expect(others, JSON.stringify(others, null, 1)).toEqual([]);
    });
  }
});
