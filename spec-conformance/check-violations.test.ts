/**
 * Every check can fail: for each misbehaviour knob of the stdio check fixture (at least one per
 * check that is not HTTP-only; the HTTP ones are in check-http.test.ts), the battery runs against
 * a real child process and exactly that check fails (a SHOULD-level check: warns), and no other
 * check fails. Each result names its clause; the offending message is quoted whenever there is
 * one. To keep the run short, the checks that wait (cancellation, progress, the log filter) are
 * left out of a knob's run unless the knob targets them.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS, runChecks } from '../src/check/run/runner.js';
import type { ToolFixtures } from '../src/check/core/context.js';
import { BUGS } from '../mock-servers/check-fixtures/core.mjs';
import { HTTP_BUGS } from '../mock-servers/check-fixtures/http-bugs.mjs';
import { ROBUST_BUGS } from '../mock-servers/check-fixtures/robust.mjs';

const fixture = fileURLToPath(new URL('../mock-servers/check-fixtures/server.mjs', import.meta.url));
/** Checks whose violation has no message to quote (the server went silent). */
const NO_EVIDENCE = new Set(['lifecycle.initialized-accepted']);
const SLOW = ['cancellation.honoured', 'progress', 'logging.level-filter'];
/** A knob whose violation is, by nature, also another check's (allowed to fail too). */
const ALSO: Record<string, string[]> = {
  // Every server→client request but ping needs a client capability; the checker declares none.
  'early-request': ['server-requests.declared-only'],
};
/** The fixture's own --fixtures file: echo must echo (tools.fixture-expect). */
export const FIXTURES: ToolFixtures = { echo: { arguments: { text: 'hi' }, expect: { isError: false, contentTypes: ['text'], textIncludes: 'hi' } } };

/**
 * A knob after which the server is silent: every check that opens a session of its own waits out
 * the per-request bound, one after another. A shorter bound keeps that run short; it still leaves
 * the fixture's start and initialize seconds on a loaded machine.
 */
const SILENT: Record<string, number> = { 'dead-after-initialized': 5000 };

const run = (bug: string | undefined, skip: string[]) =>
  runChecks(
    { transport: 'stdio', id: bug ?? 'clean', command: process.execPath, args: [fixture, ...(bug ? [`--bug=${bug}`] : [])] },
    { timeoutMs: (bug && SILENT[bug]) || 15_000, cancelRunMs: 3000, fixtures: FIXTURES, skip },
  );

// With the knobs: the clean battery (its slow checks included) runs inside the knobs' runs, each
// run with fixture processes of its own.
describe('check fixture: coverage of the battery', { concurrent: true }, () => {
  it('every check has a violating knob (stdio here, HTTP in check-http.test.ts, robustness in check-robustness.test.ts)', ({ expect }) => {
    const covered = new Set([...Object.values(BUGS), ...Object.values(HTTP_BUGS), ...Object.values(ROBUST_BUGS)]);
    // the 2026-07-28 checks' planted bugs: mock-servers/check-modern, run by test/check/check-modern.test.ts;
    // the MCP Apps checks': mock-servers/apps, run by test/apps/apps-check.test.ts
    const missing = ALL_CHECKS.filter((c) => !covered.has(c.id) && !c.id.startsWith('modern.') && !c.id.startsWith('apps.')).map((c) => c.id);
    expect(missing).toEqual([]);
    expect(ALL_CHECKS.length).toBeGreaterThanOrEqual(70);
  });

  it('the clean fixture passes every check (0 failures, 0 warnings, 0 errors)', { timeout: 180_000 }, async ({ expect }) => {
    const r = await run(undefined, []);
    const problems = r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error');
    expect(problems, JSON.stringify(problems, null, 1)).toEqual([]);
    // The checks that need a real call ran (not skipped): calls, tasks, progress, cancellation.
    for (const id of ['tools.call-result', 'tools.structured-content', 'tools.fixture-expect', 'tasks.transitions', 'tasks.cancel-terminal', 'progress.monotonic',
      'cancellation.honoured', 'logging.level-filter', 'transport.utf8', 'jsonrpc.batch-refused', 'resources.blob-base64', 'tools.task-required', 'elicitation.requests']) {
      expect(r.results.find((x) => x.id === id)?.status, id).toBe('pass');
    }
  });
});

describe.concurrent('check-fixture knobs: each makes exactly its check fail', () => {
  for (const [bug, checkId] of Object.entries(BUGS)) {
    const check = ALL_CHECKS.find((c) => c.id === checkId)!;
    const expected = check.level === 'MUST' ? 'fail' : 'warn';
    it(`${checkId} (${check.clause}): --bug=${bug} → ${expected}`, { timeout: 180_000 }, async () => {
      const report = await run(bug, SLOW.filter((s) => !checkId.startsWith(s)));
      const target = report.results.find((r) => r.id === checkId)!;
      expect(target.status, JSON.stringify(target)).toBe(expected);
      expect(target.detail).toMatch(new RegExp(`^${target.clause.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\((MUST|SHOULD)\\): `));
      if (!NO_EVIDENCE.has(checkId)) expect(target.evidence, 'the offending message is quoted').toBeTruthy();
      const others = report.results.filter((r) => r.id !== checkId && !(ALSO[bug] ?? []).includes(r.id) && (r.status === 'fail' || r.status === 'error'));
      expect(others, JSON.stringify(others, null, 1)).toEqual([]);
    });
  }
});
