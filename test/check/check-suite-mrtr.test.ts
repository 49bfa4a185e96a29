// clauses: 2026-07-28
/**
 * The suite profile's multi round-trip tools (src/check/core/profile.ts, SUITE_INPUT_TOOLS): a server
 * that lists the conformance suite's `test_input_required_result_*` names has its MRTR checks
 * run by default, without --allow-calls, each tool judged only by the checks the profile names
 * for it. The server is mock-servers/check-modern/suite-mrtr-server.mjs over stdio: as the
 * suite's reference server behaves, or with the defects of its broken sep-2322 server.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runChecks, type CheckReport, type CheckResult } from '../../src/check-api.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SERVER = path.join(root, 'mock-servers', 'check-modern', 'suite-mrtr-server.mjs');
const T = { timeout: 60_000 };
const MRTR = ['modern.capabilities-per-request', 'modern.request-state-integrity', 'modern.input-missing', 'modern.input-extra-ignored', 'modern.input-responses-validated', 'modern.result-type', 'modern.input-required'];

const run = (flags: string[], options: { allowCalls?: boolean } = {}): Promise<CheckReport> =>
  runChecks({ transport: 'stdio', command: process.execPath, args: [SERVER, ...flags] }, { timeoutMs: 15_000, only: MRTR, ...options });

const of = (r: CheckReport, id: string): CheckResult => {
  const x = r.results.find((y) => y.id === id);
  if (x === undefined) throw new Error(`no result for ${id}`);
  return x;
};

describe('check: the suite profile calls the suite MRTR tools without --allow-calls', () => {
  // cites basic.patterns.mrtr#9: the sep-2322 server honours a tampered requestState; check reports it
  // cites basic#8: its elicitation fixture's InputRequiredResult has no resultType; check reports it
  // cites basic.patterns.mrtr#4: it answers tools/list with input_required; check reports it
  it('a server with the sep-2322 defects fails the MRTR checks with no --allow-calls (basic#8, basic.patterns.mrtr#9, basic.patterns.mrtr#4, basic.patterns.mrtr#22)', T, async () => {
    const r = await run(['--sep-2322']);
    expect(r.era).toBe('modern');
    const state = of(r, 'modern.request-state-integrity');
    expect(state.status, state.detail).toBe('fail');
    expect(state.detail).toContain('test_input_required_result_tampered_state retried with a tampered requestState');
    const type = of(r, 'modern.result-type');
    expect(type.status, type.detail).toBe('fail');
    // the elicitation tool was called: its InputRequiredResult without resultType is named apart
    expect(type.detail).toMatch(/a tools\/call result with inputRequests \(an InputRequiredResult\) has none/);
    expect(of(r, 'modern.input-required').status).toBe('fail');
    const validated = of(r, 'modern.input-responses-validated');
    expect(validated.status, validated.detail).toBe('warn');
    expect(validated.detail).toContain('test_input_required_result_elicitation retried with 12345');
    // no profile tool is the one the suite tests this rule with, and nothing else may be called
    expect(of(r, 'modern.capabilities-per-request').detail).toMatch(/^not applicable: the suite profile's input_required tools listed/);
  });

  // cites basic.patterns.mrtr#13: the server asks only for the capabilities a request declares where the suite expects it to; check judges that on _capabilities alone
  it('a server that behaves as the suite expects passes them, each tool judged only where the profile says (basic.patterns.mrtr#13, basic.patterns.mrtr#25)', T, async () => {
    const r = await run([]);
    for (const id of MRTR) expect(of(r, id).status, `${id}: ${of(r, id).detail}`).toBe('pass');
    // the capabilities rule is judged on _capabilities, not on _elicitation (which, like the suite's reference, ignores them)
    expect(of(r, 'modern.capabilities-per-request').detail).toMatch(/^test_input_required_result_capabilities without elicitation, sampling/);
    // every listed profile tool and the prompt got its first call (9), the retries more, all judged by modern.input-required
    const n = Number(/^(\d+) input_required results$/.exec(of(r, 'modern.input-required').detail ?? '')?.[1]);
    expect(n).toBeGreaterThanOrEqual(9);
  });

  // cites basic.patterns.mrtr#13: the server's _elicitation fixture ignores the declared capabilities, as the suite's reference does; check does not judge it by that rule
  it('with --allow-calls too, a profile tool is judged only by the checks the profile names for it (basic.patterns.mrtr#13)', T, async () => {
    // _elicitation is listed first and asks for elicitation whatever the request declares:
    // a checker taking the first tool that asks for input would fail the capabilities rule on it
    const r = await run([], { allowCalls: true });
    const caps = of(r, 'modern.capabilities-per-request');
    expect(caps.status, caps.detail).toBe('pass');
    expect(caps.detail).toMatch(/^test_input_required_result_capabilities /);
  });
});
