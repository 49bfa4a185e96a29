// clauses: 2026-07-28
/**
 * What the conformance suite's MRTR fixtures do once `mcpwire check` answers them well
 * (src/check/modern/modern-mrtr-answers.ts, modern-mrtr-single.ts): the requestState echoed untouched
 * is honoured, three inputs asked at once are all read, a second round follows the first, the
 * sampling tool, the roots tool and the prompt complete once answered. Each check fails (or
 * warns) on mock-servers/check-modern/suite-mrtr-server.mjs with one bug of bugs.mjs planted
 * (`server: 'suite-mrtr'`), naming the tool and the round, and passes on the server without it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { tempDirs } from '../support/temp-dirs.js';
import { findAll, parseXml } from '../support/xml.js';
import { ALL_CHECKS, runChecks, type CheckReport, type CheckResult } from '../../src/check-api.js';
import { BUGS } from '../../mock-servers/check-modern/bugs.mjs';
import { goodResponseTo } from '../../src/check/modern/modern-mrtr-answers.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SERVER = path.join(root, 'mock-servers', 'check-modern', 'suite-mrtr-server.mjs');
const T = { timeout: 60_000 };
const tmp = tempDirs('mcpwire-check-mrtr-answers-');
const ANSWERS = ['modern.request-state-honoured', 'modern.input-all-answered', 'modern.input-rounds'];
const SINGLE = ['modern.input-sampling-answered', 'modern.input-roots-answered', 'modern.prompt-input-answered'];

const run = (flags: string[], only: string[] = ANSWERS): Promise<CheckReport> =>
  runChecks({ transport: 'stdio', command: process.execPath, args: [SERVER, ...flags] }, { timeoutMs: 15_000, only });

const of = (r: CheckReport, id: string): CheckResult => {
  const x = r.results.find((y) => y.id === id);
  if (x === undefined) throw new Error(`no result for ${id}`);
  return x;
};

/** The report of the bug's check on the suite server with the bug planted; the same check on the server without it passes. */
async function planted(bug: string): Promise<CheckResult> {
  const { check, server } = BUGS[bug]!;
  expect(server).toBe('suite-mrtr');
  const [bad, clean] = await Promise.all([run([`--bug=${bug}`], [check]), run([], [check])]);
  expect(bad.era).toBe('modern');
  const good = of(clean, check);
  expect(good.status, `${check} without the bug: ${good.detail}`).toBe('pass');
  return of(bad, check);
}

// each test starts its own servers: the tests run at once, their waits overlapping
describe.concurrent('check: the suite MRTR fixtures answered well', () => {
  it('good answers: a form accepted with a value of each field type, a sampling answer, no roots', () => {
    const form = { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'integer', minimum: 3 }, c: { type: 'string', enum: ['red', 'blue'] }, d: { type: 'string', default: 'x' }, s: { type: 'string' } } } } };
    expect(goodResponseTo(form)).toEqual({ action: 'accept', content: { ok: true, n: 3, c: 'red', d: 'x', s: 'mcpwire-check' } });
    expect(goodResponseTo({ method: 'sampling/createMessage', params: {} })).toMatchObject({ role: 'assistant', content: { type: 'text' }, model: expect.any(String) });
    expect(goodResponseTo({ method: 'roots/list', params: {} })).toEqual({ roots: [] });
  });

  it('every bug planted in the suite server breaks one of these checks, and each check has one', () => {
    const suite = Object.entries(BUGS).filter(([, b]) => b.server === 'suite-mrtr');
    expect(new Set(suite.map(([, b]) => b.check))).toEqual(new Set([...ANSWERS, ...SINGLE]));
    for (const id of [...ANSWERS, ...SINGLE]) expect(ALL_CHECKS.find((c) => c.id === id)?.revisions).toEqual(['2026-07-28']);
  });

  // cites basic#27: the server's round state travels in the requestState the client passes back; check reports a server that keeps it elsewhere
  // cites basic.patterns.mrtr#25: a re-request names only what is still missing; check reports one that asks again for what was answered
  it('a server that answers as the suite expects passes all three, by default, with no --allow-calls (basic#27, basic.patterns.mrtr#25)', T, async () => {
    const r = await run([]);
    expect(r.era).toBe('modern');
    for (const id of ANSWERS) expect(of(r, id).status, `${id}: ${of(r, id).detail}`).toBe('pass');
    expect(of(r, 'modern.request-state-honoured').detail).toMatch(/^test_input_required_result_request_state, round 2 .*: completed, "state-ok/);
    expect(of(r, 'modern.input-all-answered').detail).toBe('3 inputs answered at once ("user_name", "greeting", "client_roots"): completed');
    expect(of(r, 'modern.input-rounds').detail).toBe('round 1 asked "step1", round 2 "step2" with a new requestState, round 3 completed');
  });

  // cites basic#27: a server that loses the requestState it issued starts the exchange over; check reports it
  it('modern.request-state-honoured: a server that loses the echoed requestState fails, naming the tool and the round (basic#27)', T, async () => {
    const r = await planted('state-dropped');
    expect(r.status, r.detail).toBe('fail');
    expect(r.clause).toBe('basic#27');
    expect(r.detail).toBe(
      `basic#27 (MUST): test_input_required_result_request_state, round 2 (the retry answering "confirm" well, round 1's requestState echoed untouched) asked again for "confirm": the exchange started over, losing what the requestState the client passed back carries`,
    );
    expect(r.evidence).toContain('"resultType":"input_required"');
  });

  // cites basic#27: a server that refuses the requestState it issued cannot carry state across the requests; check reports it
  it('modern.request-state-honoured: a server that refuses its own untouched requestState fails, with the error it sent (basic#27)', T, async () => {
    const r = await planted('state-refused');
    expect(r.status, r.detail).toBe('fail');
    expect(r.detail).toMatch(/^basic#27 \(MUST\): test_input_required_result_request_state, round 2 \(.*\) got error -32602 "requestState failed verification": the retry carried the server's own requestState untouched and good answers, yet was refused/);
    expect(r.evidence).toContain('"code":-32602');
  });

  it('modern.request-state-honoured: a request-state fixture completing without "state-ok" fails against the suite profile', T, async () => {
    const r = await planted('state-ok-missing');
    expect(r.status, r.detail).toBe('fail');
    expect(r.clause).toBe('--fixtures expect');
    expect(r.detail).toMatch(/round 2 \(.*\) completed without "state-ok" in its text, the conformance suite profile's sign that the requestState was validated$/);
  });

  // cites basic.patterns.mrtr#25: check reports a server that asks again for inputs the retry answered
  it('modern.input-all-answered: a server that reads one of three inputs answered at once warns, naming the ones asked again (basic.patterns.mrtr#25)', T, async () => {
    const r = await planted('inputs-one-read');
    expect(r.status, r.detail).toBe('warn');
    expect(r.detail).toBe(
      'basic.patterns.mrtr#25 (SHOULD): test_input_required_result_multiple_inputs, round 2 (the retry answering all 3 inputs asked at once, "user_name", "greeting", "client_roots", well) asked again for "user_name", "greeting", "client_roots", answered in this very retry (read: none): a server asks again only for the information still missing',
    );
  });

  it('modern.input-rounds: a multi-round fixture that completes after its first round fails against the suite profile, naming round 2', T, async () => {
    const r = await planted('one-round');
    expect(r.status, r.detail).toBe('fail');
    expect(r.clause).toBe('--fixtures expect');
    expect(r.detail).toBe(
      `--fixtures expect (MUST): test_input_required_result_multi_round, round 2 (the retry answering "step1" well with round 1's requestState) completed: the conformance suite profile expects a second round (a new input_required) first`,
    );
  });

  // cites basic#27: a second round that passes back no state carrying the first round's answer makes the third start over; check reports it
  it('modern.input-rounds: a second round re-issuing the first round\'s requestState makes the third start over; it fails naming round 3 (basic#27)', T, async () => {
    const r = await planted('round-state-stale');
    expect(r.status, r.detail).toBe('fail');
    expect(r.clause).toBe('basic#27');
    expect(r.detail).toBe(
      `basic#27 (MUST): test_input_required_result_multi_round, round 3 (the retry answering "step2" well with round 2's requestState, round 1's unchanged) asked again for "step1": the exchange started over, losing what the requestState the client passed back carries`,
    );
  });

  it('the sampling tool, the roots tool and the prompt, answered well, complete as the suite expects: all three pass by default', T, async () => {
    const r = await run([], SINGLE);
    for (const id of SINGLE) expect(of(r, id).status, `${id}: ${of(r, id).detail}`).toBe('pass');
    expect(of(r, 'modern.input-sampling-answered').detail).toBe('test_input_required_result_sampling, round 2 (the retry answering "sample_request" with a sampling answer, "mcpwire-check"): completed, "Sampling result: mcpwire-check"');
    expect(of(r, 'modern.input-roots-answered').detail).toBe('test_input_required_result_list_roots, round 2 (the retry answering "roots_request" with a roots list): completed, "Found 0 root(s)"');
    expect(of(r, 'modern.prompt-input-answered').detail).toBe('test_input_required_result_prompt, round 2 (the prompts/get retry answering "user_context" well): completed, 1 message(s)');
  });

  it('modern.input-sampling-answered: a sampling fixture completing without the sampled text fails against the suite profile, naming round 2', T, async () => {
    const r = await planted('sampling-text-dropped');
    expect(r.status, r.detail).toBe('fail');
    expect(r.clause).toBe('--fixtures expect');
    expect(r.detail).toBe(
      '--fixtures expect (MUST): test_input_required_result_sampling, round 2 (the retry answering "sample_request" with a sampling answer, "mcpwire-check") completed without the sampled text "mcpwire-check" in its content ("Sampling result: no response"): the conformance suite profile expects the sampling response text in the result',
    );
    expect(r.evidence).toContain('"resultType":"complete"');
  });

  // cites basic.patterns.mrtr#25: a re-request names only what is still missing; check reports one that asks again for the roots just answered
  it('modern.input-roots-answered: a roots fixture that asks again for the roots just answered warns, naming round 2 (basic.patterns.mrtr#25)', T, async () => {
    const r = await planted('roots-unread');
    expect(r.status, r.detail).toBe('warn');
    expect(r.clause).toBe('basic.patterns.mrtr#25');
    expect(r.detail).toBe(
      'basic.patterns.mrtr#25 (SHOULD): test_input_required_result_list_roots, round 2 (the retry answering "roots_request" with a roots list) asked again for "roots_request", answered in this very retry: a server asks again only for the information still missing',
    );
    expect(r.evidence).toContain('"resultType":"input_required"');
  });

  it('modern.prompt-input-answered: a prompt completing without messages fails against the suite profile, naming round 2', T, async () => {
    const r = await planted('prompt-messages-missing');
    expect(r.status, r.detail).toBe('fail');
    expect(r.clause).toBe('--fixtures expect');
    expect(r.detail).toBe(
      '--fixtures expect (MUST): test_input_required_result_prompt, round 2 (the prompts/get retry answering "user_context" well) completed without messages: the conformance suite profile expects a GetPromptResult',
    );
  });

  it('a server without the fixtures (the suite\'s broken sep-2322 server lists two): not applicable, naming the fixture', T, async () => {
    const r = await run(['--sep-2322'], [...ANSWERS, ...SINGLE]);
    expect(of(r, 'modern.request-state-honoured').detail).toMatch(/^not applicable: the server lists no test_input_required_result_request_state \(the suite profile's fixture for this rule\)/);
    expect(of(r, 'modern.input-rounds').status).toBe('skip');
    expect(of(r, 'modern.input-sampling-answered').detail).toMatch(/^not applicable: the server lists no test_input_required_result_sampling /);
    expect(of(r, 'modern.prompt-input-answered').detail).toMatch(/^not applicable: the server lists no test_input_required_result_prompt /);
  });

  // cites basic#27: check reports a server whose third round starts over, in the table, JSON and JUnit alike
  it('the built CLI reports them as it reports the other MRTR checks: the table, --json and --junit (basic#27)', { timeout: 120_000 }, async () => {
    const cwd = tmp();
    const stdio = `${JSON.stringify(process.execPath)} ${JSON.stringify(SERVER)} --bug=round-state-stale`;
    const args = ['check', '--stdio', stdio, '--only', 'modern.input-rounds,modern.request-state-integrity,modern.input-all-answered'];
    const env = { ...process.env, HOME: cwd, XDG_CONFIG_HOME: path.join(cwd, '.config') };
    // the table and the --json/--junit run are independent: at once
    const [text, json] = await Promise.all([runCliHere(args, { cwd, env, timeoutMs: 110_000 }), runCliHere([...args, '--json', '--junit', 'out.xml'], { cwd, env, timeoutMs: 110_000 })]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^FAIL\s+modern\.input-rounds\s+MUST\s+basic#27\s+a multi-round request goes on/m);
    expect(text.stdout).toMatch(/^PASS\s+modern\.input-all-answered\s+SHOULD\s+basic\.patterns\.mrtr#25\s+3 inputs answered at once/m);
    expect(text.stdout).toContain(`FAIL modern.input-rounds: basic#27 (MUST): test_input_required_result_multi_round, round 3 (`);
    expect(text.stdout).toMatch(/^ {5}offending: \{.*"resultType":"input_required"/m);
    expect(json.code, json.stderr).toBe(1);
    const results = (JSON.parse(json.stdout) as CheckReport).results;
    const rounds = results.find((r) => r.id === 'modern.input-rounds')!;
    const integrity = results.find((r) => r.id === 'modern.request-state-integrity')!;
    expect(Object.keys(rounds).sort()).toEqual(['clause', 'detail', 'durationMs', 'evidence', 'id', 'level', 'status', 'title']);
    expect(rounds).toMatchObject({ status: 'fail', clause: 'basic#27', level: 'MUST' });
    expect(integrity.status).toBe('pass');
    const cases = findAll(parseXml(readFileSync(path.join(cwd, 'out.xml'), 'utf8')), 'testcase');
    const failing = cases.find((c) => c.attrs.name === 'modern.input-rounds [basic#27 MUST]')!;
    expect(findAll(failing, 'failure')[0].attrs).toMatchObject({ type: 'MUST', message: rounds.detail });
    expect(cases.find((c) => c.attrs.name === 'modern.input-all-answered [basic.patterns.mrtr#25 SHOULD]')).toBeDefined();
  });
});
