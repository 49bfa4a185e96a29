/**
 * Every check can fail: for each misbehaviour knob of the check fixture (one per check), the
 * whole battery runs against a real child process and exactly that check fails (a SHOULD-level
 * check: warns), and no other check fails. Each result names its clause; the offending message
 * is quoted whenever there is one.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS, runChecks } from '../src/check/runner.js';
import { BUGS } from '../mock-servers/check-fixtures/core.mjs';

const fixture = fileURLToPath(new URL('../mock-servers/check-fixtures/server.mjs', import.meta.url));
/** Checks whose violation has no message to quote (the server went silent). */
const NO_EVIDENCE = new Set(['lifecycle.initialized-accepted']);

describe.concurrent('check-fixture knobs: each makes exactly its check fail', () => {
  for (const [bug, checkId] of Object.entries(BUGS)) {
    const check = ALL_CHECKS.find((c) => c.id === checkId)!;
    const expected = check.level === 'MUST' ? 'fail' : 'warn';
    it(`${checkId} (${check.clause}): --bug=${bug} → ${expected}`, { timeout: 180_000 }, async () => {
      const report = await runChecks(
        { transport: 'stdio', id: bug, command: process.execPath, args: [fixture, `--bug=${bug}`] },
        { timeoutMs: 15_000, cancelRunMs: 3000 },
      );
      const target = report.results.find((r) => r.id === checkId)!;
      expect(target.status, JSON.stringify(target)).toBe(expected);
      expect(target.detail).toMatch(new RegExp(`^${target.clause.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\((MUST|SHOULD)\\): `));
      if (!NO_EVIDENCE.has(checkId)) expect(target.evidence, 'the offending message is quoted').toBeTruthy();
      const others = report.results.filter((r) => r.id !== checkId && (r.status === 'fail' || r.status === 'error'));
      expect(others, JSON.stringify(others, null, 1)).toEqual([]);
    });
  }
});
