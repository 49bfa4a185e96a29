/**
 * Multi round-trip requests (basic/patterns/mrtr, 2026-07-28) as a server answers them: client
 * capabilities read from each request's own `_meta` (-32021 when a needed one is missing),
 * `requestState` treated as attacker-controlled (a tampered one refused), a retry missing an
 * input asked again, unexpected input responses ignored. The input comes from a tool that
 * answers `input_required`: one of the conformance suite's MRTR tools the server lists (the
 * suite profile, profile.ts: called by default, each judged only by the checks the profile names
 * for it), else one the checker may call (calls.ts: read-only, `--fixtures`, or
 * `--allow-calls`); a server with none has nothing to judge here.
 */
import { argumentsFor, mayCall, MAX_TOOL_CALLS } from '../core/calls.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { messageOf } from '../core/probe.js';
import { ALL_INPUT_CAPS, MISSING_CAPABILITY, type Answer, type ModernWire } from '../core/modern-wire.js';
import { modernCheck, outcomeText } from './modern.js';
import { SUITE_INPUT_PROMPTS, SUITE_INPUT_TOOLS, suiteInputTool } from '../core/profile.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';

/** A callable tool that answered input_required when every input capability was declared. */
interface InputTool {
  name: string;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  /** The capabilities its inputRequests need. */
  needs: string[];
}

/** A tool the MRTR checks may try: `checks` (a suite profile tool) limits which judge it. */
interface Candidate {
  name: string;
  args: Record<string, unknown>;
  checks?: string[];
}

const CAP_OF: Record<string, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/**
 * Whether a result asks for input: resultType input_required, or none with inputRequests or
 * requestState (an InputRequiredResult missing its resultType, which modern.result-type reports).
 */
export function asksForInput(r: Record<string, unknown>): boolean {
  return r.resultType === 'input_required' || (r.resultType === undefined && (r.inputRequests !== undefined || r.requestState !== undefined));
}

/** A response a client could give to one input request (a declined elicitation, a canned sampling answer, no roots). */
function responseTo(request: unknown): Record<string, unknown> {
  const method = isObject(request) ? request.method : undefined;
  if (method === 'sampling/createMessage') return { role: 'assistant', content: { type: 'text', text: 'mcpwire-check' }, model: 'mcpwire-check' };
  if (method === 'roots/list') return { roots: [] };
  return { action: 'decline' };
}

export function inputResponses(result: Record<string, unknown>): Record<string, unknown> {
  const reqs = isObject(result.inputRequests) ? result.inputRequests : {};
  return Object.fromEntries(Object.entries(reqs).map(([k, r]) => [k, responseTo(r)]));
}

const namesOf = (r: Record<string, unknown>, key: string): string[] => (Array.isArray(r[key]) ? r[key].filter(isObject).map((x) => String(x.name)) : []);

/**
 * The tools the MRTR checks may try, the suite profile's first (memoized per run). Each listed
 * profile tool and prompt gets its first call here, so the aggregate checks judge its answer.
 */
function candidates(ctx: CheckContext): Promise<Candidate[] | string> {
  return ctx.memo('modern.input-candidates', async () => {
    if (!isObject(ctx.modernCapabilities.tools)) return 'the server declares no tools capability';
    const wire = ctx.wire();
    const list = await wire.send('tools/list');
    const tools = list.outcome.kind === 'result' && Array.isArray(list.outcome.result.tools) ? list.outcome.result.tools.filter(isObject) : [];
    const suite: Candidate[] = [];
    const others: Candidate[] = [];
    for (const t of tools) {
      const name = String(t.name);
      const p = suiteInputTool(ctx, name);
      if (p !== undefined) suite.push({ name, args: p.arguments, checks: p.checks });
      else if (mayCall(ctx, t).allowed && others.length < MAX_TOOL_CALLS) others.push({ name, args: argumentsFor(t, mayCall(ctx, t).fixture) });
    }
    for (const c of suite) await firstAnswer(ctx, c);
    await suitePrompts(ctx);
    if (suite.length + others.length === 0) return 'no tool may be called (none read-only, none in --fixtures, none of the suite profile; --allow-calls calls every tool)';
    return [...suite, ...others];
  });
}

/** The suite profile's input_required prompts the server lists, each got once (prompts/get may ask for input too). */
async function suitePrompts(ctx: CheckContext): Promise<void> {
  if (!isObject(ctx.modernCapabilities.prompts)) return;
  const wire = ctx.wire();
  const list = await wire.send('prompts/list');
  const listed = list.outcome.kind === 'result' ? namesOf(list.outcome.result, 'prompts') : [];
  for (const [name, p] of Object.entries(SUITE_INPUT_PROMPTS)) {
    if (listed.includes(name)) await wire.send('prompts/get', { name, arguments: p.arguments }, { caps: ALL_INPUT_CAPS });
  }
}

/** A candidate's answer to a call declaring every input capability (memoized per tool). */
function firstAnswer(ctx: CheckContext, c: Candidate): Promise<Answer> {
  return ctx.memo(`modern.input-first:${c.name}`, () => ctx.wire().send('tools/call', { name: c.name, arguments: c.args }, { caps: ALL_INPUT_CAPS }));
}

/**
 * The first candidate `check` may judge that asks for input (memoized per check): a suite
 * profile tool only for the checks the profile names for it.
 */
export function inputTool(ctx: CheckContext, check: string): Promise<InputTool | string> {
  return ctx.memo(`modern.input-tool:${check}`, async () => {
    const all = await candidates(ctx);
    if (typeof all === 'string') return all;
    const usable = all.filter((c) => c.checks === undefined || c.checks.includes(check));
    if (usable.length === 0) return `the suite profile's input_required tools listed (${all.map((c) => c.name).join(', ')}) are not the ones its scenarios test this rule with, and no other tool may be called (--allow-calls calls every tool)`;
    for (const c of usable) {
      const a = await firstAnswer(ctx, c);
      if (a.outcome.kind !== 'result' || !asksForInput(a.outcome.result)) continue;
      const reqs = isObject(a.outcome.result.inputRequests) ? Object.values(a.outcome.result.inputRequests) : [];
      const needs = [...new Set(reqs.map((r) => CAP_OF[String(isObject(r) ? r.method : '')]).filter((x): x is string => x !== undefined))];
      return { name: c.name, args: c.args, result: a.outcome.result, needs };
    }
    return `none of the ${usable.length} tool(s) this check may call (${usable.slice(0, 3).map((c) => c.name).join(', ')}) answered input_required`;
  });
}

/**
 * The suite profile's tool whose profile names `check` (a check of what the tool does with good
 * answers, which only the suite's fixtures document), listed by the server, or why there is none.
 */
export async function suiteToolFor(ctx: CheckContext, check: string): Promise<{ name: string; args: Record<string, unknown> } | string> {
  const all = await candidates(ctx);
  if (typeof all === 'string') return all;
  const hit = all.find((c) => c.checks?.includes(check));
  if (hit !== undefined) return { name: hit.name, args: hit.args };
  const names = Object.entries(SUITE_INPUT_TOOLS).filter(([, p]) => p.checks.includes(check)).map(([n]) => n);
  return `the server lists no ${names.join(' or ')} (the suite profile's fixture for this rule); what another tool does with good answers is not known to the checker`;
}

/**
 * Runs `judge` with the input tool's first answer got anew, on the wire its retries go on: over
 * stdio a retry goes to the process that issued its requestState, as a client's would.
 */
async function withInputTool(ctx: CheckContext, check: string, judge: (t: InputTool, wire: ModernWire) => Promise<Verdict>): Promise<Verdict> {
  const t = await inputTool(ctx, check);
  if (typeof t === 'string') return notApplicable(t);
  const wire = ctx.wire();
  const a = await wire.send('tools/call', { name: t.name, arguments: t.args }, { caps: ALL_INPUT_CAPS });
  if (a.outcome.kind !== 'result' || !asksForInput(a.outcome.result)) return notApplicable(`${t.name} asked for input once, then answered ${outcomeText(a)}`);
  return judge({ ...t, result: a.outcome.result }, wire);
}

const retry = (wire: ModernWire, t: InputTool, extra: Record<string, unknown>): Promise<Answer> =>
  wire.send('tools/call', { name: t.name, arguments: t.args, ...extra }, { caps: ALL_INPUT_CAPS });

const capabilitiesPerRequest = modernCheck({
  id: 'modern.capabilities-per-request',
  title: 'client capabilities are read from each request: a needed one missing is -32021 naming it',
  clause: 'basic#49',
  level: 'MUST',
  run: (ctx) =>
    withInputTool(ctx, 'modern.capabilities-per-request', async (t, wire) => {
      if (t.needs.length === 0) return notApplicable(`${t.name} asked for no elicitation, sampling or roots input`);
      const caps = Object.fromEntries(Object.entries(ALL_INPUT_CAPS).filter(([k]) => !t.needs.includes(k)));
      const a = await wire.send('tools/call', { name: t.name, arguments: t.args }, { caps });
      const o = a.outcome;
      if (o.kind === 'result') {
        const reqs = isObject(o.result.inputRequests) ? Object.values(o.result.inputRequests) : [];
        const asked = reqs.map((r) => CAP_OF[String(isObject(r) ? r.method : '')]).find((c) => c !== undefined && t.needs.includes(c));
        if (asked) return violated(`${t.name}, called without the ${asked} capability right after a call that declared it, still asks for ${asked} input: the server relies on an earlier request's capabilities`, messageOf(o), { clause: 'basic.patterns.mrtr#13' });
        return pass(`${t.name} without ${t.needs.join(', ')}: a result that asks for none of it`);
      }
      if (o.kind !== 'error' || o.error.code !== MISSING_CAPABILITY) return violated(`${t.name} without the ${t.needs.join(', ')} capability MUST get MissingRequiredClientCapabilityError (-32021); it got ${outcomeText(a)}`, messageOf(o));
      const data = isObject(o.error.data) ? o.error.data.requiredCapabilities : undefined;
      if (!isObject(data) || !t.needs.some((c) => c in data)) return violated(`the -32021 error's data.requiredCapabilities does not name ${t.needs.join(', ')}`, messageOf(o));
      if (a.status !== undefined && a.status !== 400) return violated(`the -32021 came with HTTP ${a.status}, not 400`, messageOf(o), { clause: 'basic#50' });
      return pass(`-32021 naming ${Object.keys(data).join(', ')}`);
    }),
});

/** The requestState with one character in its middle changed. */
function tamper(state: string): string {
  const i = Math.floor(state.length / 2);
  const c = state[i] === 'A' ? 'B' : 'A';
  return state.slice(0, i) + c + state.slice(i + 1);
}

const stateIntegrity = modernCheck({
  id: 'modern.request-state-integrity',
  title: 'a tampered requestState is refused, not honoured',
  clause: 'basic.patterns.mrtr#9',
  level: 'MUST',
  run: (ctx) =>
    withInputTool(ctx, 'modern.request-state-integrity', async (t, wire) => {
      const state = t.result.requestState;
      if (typeof state !== 'string' || state.length === 0) return notApplicable(`${t.name}'s input_required carries no requestState`);
      const a = await retry(wire, t, { inputResponses: inputResponses(t.result), requestState: tamper(state) });
      const o = a.outcome;
      // anything but a new request for input is the tool's answer (no resultType and no inputRequests reads as complete)
      if (o.kind === 'result' && !asksForInput(o.result)) {
        return violated(`${t.name} retried with a tampered requestState (one character changed) completed: requestState is attacker-controlled input and MUST be verified`, messageOf(o));
      }
      return pass(`the tampered state got ${outcomeText(a)}`);
    }),
});

const inputMissing = modernCheck({
  id: 'modern.input-missing',
  title: 'a retry without the input responses asked for gets a new input_required, not an error',
  clause: 'basic.patterns.mrtr#25',
  level: 'SHOULD',
  run: (ctx) =>
    withInputTool(ctx, 'modern.input-missing', async (t, wire) => {
      const state = t.result.requestState;
      const a = await retry(wire, t, typeof state === 'string' ? { requestState: state } : {});
      if (a.outcome.kind === 'error') return violated(`${t.name} retried without its input responses got ${outcomeText(a)}, not a new InputRequiredResult`, messageOf(a.outcome));
      if (a.outcome.kind !== 'result') return violated(`${t.name} retried without its input responses got ${outcomeText(a)}`);
      return pass(`resultType ${JSON.stringify(a.outcome.result.resultType)}`);
    }),
});

const inputExtra = modernCheck({
  id: 'modern.input-extra-ignored',
  title: 'unexpected input responses are ignored',
  clause: 'basic.patterns.mrtr#24',
  level: 'SHOULD',
  run: (ctx) =>
    withInputTool(ctx, 'modern.input-extra-ignored', async (t, wire) => {
      const state = t.result.requestState;
      const responses = { ...inputResponses(t.result), 'mcpwire-check-unexpected': { action: 'decline' } };
      const a = await retry(wire, t, { inputResponses: responses, ...(typeof state === 'string' ? { requestState: state } : {}) });
      if (a.outcome.kind !== 'result') return violated(`${t.name} retried with its input responses plus an unexpected one got ${outcomeText(a)}`, messageOf(a.outcome));
      return pass(`resultType ${JSON.stringify(a.outcome.result.resultType)}`);
    }),
});

/** A retry's answer that completed the request (anything but a new input_required or an error). */
const completed = (a: Answer): boolean => a.outcome.kind === 'result' && !asksForInput(a.outcome.result);

const inputValidated = modernCheck({
  id: 'modern.input-responses-validated',
  title: 'malformed input responses (a number for an answer, null for the object) never complete the request',
  clause: 'basic.patterns.mrtr#22',
  level: 'SHOULD',
  run: (ctx) =>
    withInputTool(ctx, 'modern.input-responses-validated', async (t, wire) => {
      const state = t.result.requestState;
      const keys = Object.keys(inputResponses(t.result));
      if (keys.length === 0) return notApplicable(`${t.name}'s input_required carries no inputRequests`);
      const withState = typeof state === 'string' ? { requestState: state } : {};
      const bad = await retry(wire, t, { inputResponses: Object.fromEntries(keys.map((k) => [k, 12345])), ...withState });
      if (completed(bad)) return violated(`${t.name} retried with 12345 as the response to ${JSON.stringify(keys[0])} completed (${outcomeText(bad)}): servers SHOULD validate that the data is a valid InputResponses object`, messageOf(bad.outcome));
      const fresh = await wire.send('tools/call', { name: t.name, arguments: t.args }, { caps: ALL_INPUT_CAPS });
      const freshState = fresh.outcome.kind === 'result' ? fresh.outcome.result.requestState : undefined;
      const nul = await retry(wire, t, { inputResponses: null, ...(typeof freshState === 'string' ? { requestState: freshState } : {}) });
      if (completed(nul)) return violated(`${t.name} retried with "inputResponses": null completed (${outcomeText(nul)}): a protocol error SHOULD be a JSON-RPC error`, messageOf(nul.outcome), { clause: 'basic.patterns.mrtr#23' });
      return pass(`a number: ${outcomeText(bad)}; null: ${outcomeText(nul)}`);
    }),
});

export const modernMrtrChecks: CheckDef[] = [capabilitiesPerRequest, stateIntegrity, inputMissing, inputExtra, inputValidated];
