/**
 * Multi round-trip requests (basic/patterns/mrtr, 2026-07-28) once the client answers well: the
 * requestState a server issued, echoed untouched, is honoured; every input asked at once is read;
 * a second round follows the first and the third completes. The spec lets a server ask again
 * whenever it still lacks something (basic.patterns.mrtr#15), so only tools whose behaviour is
 * documented are judged: the conformance suite's fixtures the server lists (`SUITE_INPUT_TOOLS`
 * in profile.ts names the check of each), answered as a user would (a form accepted with a value
 * for each field, a sampling answer, an empty roots list). What a fixture does beyond the spec
 * (complete rather than ask for more, `state-ok` in its text, a new requestState each round) is
 * reported against the profile (`--fixtures expect`), as the suite's other expectations are.
 * Over stdio every round goes to the process that issued its state, as a client's would.
 */
import { excerpt } from '../../jsonrpc/types.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { messageOf } from '../core/probe.js';
import { ALL_INPUT_CAPS, type Answer, type ModernWire } from '../core/modern-wire.js';
import { modernCheck, outcomeText } from './modern.js';
import { asksForInput, suiteToolFor } from './modern-mrtr.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';

/** The rule a suite fixture's documented behaviour is reported under (as tools.fixture-expect's). */
export const PROFILE = { clause: '--fixtures expect', level: 'MUST' } as const;

/** A value a user could enter in one form field: its default, its first option, else one of its type. */
function fieldValue(p: unknown): unknown {
  if (!isObject(p)) return 'mcpwire-check';
  if (p.default !== undefined) return p.default;
  if (Array.isArray(p.enum) && p.enum.length > 0) return p.enum[0];
  const options = [p.oneOf, p.anyOf].find(Array.isArray) ?? [];
  const option = options.find((o) => isObject(o) && o.const !== undefined);
  if (isObject(option)) return option.const;
  if (p.type === 'boolean') return true;
  if (p.type === 'number' || p.type === 'integer') return typeof p.minimum === 'number' ? p.minimum : 1;
  if (p.type === 'array') return [];
  if (p.format === 'email') return 'mcpwire-check@example.com';
  if (p.format === 'uri') return 'https://example.com/mcpwire-check';
  if (p.format === 'date') return new Date(0).toISOString().slice(0, 10);
  if (p.format === 'date-time') return new Date(0).toISOString();
  return 'mcpwire-check';
}

/** The answer a user would give to one input request: a form accepted, a sampling answer, no roots. */
export function goodResponseTo(request: unknown): Record<string, unknown> {
  const method = isObject(request) ? request.method : undefined;
  const params = isObject(request) && isObject(request.params) ? request.params : {};
  if (method === 'sampling/createMessage') return { role: 'assistant', content: { type: 'text', text: 'mcpwire-check' }, model: 'mcpwire-check', stopReason: 'endTurn' };
  if (method === 'roots/list') return { roots: [] };
  if (params.mode === 'url') return { action: 'accept' };
  const schema = isObject(params.requestedSchema) && isObject(params.requestedSchema.properties) ? params.requestedSchema.properties : {};
  return { action: 'accept', content: Object.fromEntries(Object.entries(schema).map(([k, p]) => [k, fieldValue(p)])) };
}

export const keysOf = (r: Record<string, unknown>): string[] => (isObject(r.inputRequests) ? Object.keys(r.inputRequests) : []);
export const list = (keys: string[]): string => keys.map((k) => JSON.stringify(k)).join(', ');
/** How a round's retry carries the state: `with round 1's requestState`, or that none was issued. */
const carrying = (asked: Record<string, unknown>, round: number): string => (typeof asked.requestState === 'string' ? `with round ${round}'s requestState` : `(round ${round} issued no requestState)`);
export const textOf = (r: Record<string, unknown>): string =>
  (Array.isArray(r.content) ? r.content : []).map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n');

export interface Exchange {
  name: string;
  args: Record<string, unknown>;
  wire: ModernWire;
  /** The tool's first answer, an input_required. */
  first: Record<string, unknown>;
}

/** The retry that answers every input `asked` requested, well, echoing its requestState untouched. */
export function answerRound(x: Exchange, asked: Record<string, unknown>): Promise<Answer> {
  return x.wire.send('tools/call', { name: x.name, arguments: x.args, ...goodRetryParams(asked) }, { caps: ALL_INPUT_CAPS });
}

/** What a retry adds to its request to answer every input `asked` requested, well: the answers, and its requestState untouched. */
export function goodRetryParams(asked: Record<string, unknown>): Record<string, unknown> {
  const inputResponses = Object.fromEntries(Object.entries(isObject(asked.inputRequests) ? asked.inputRequests : {}).map(([k, q]) => [k, goodResponseTo(q)]));
  return typeof asked.requestState === 'string' ? { inputResponses, requestState: asked.requestState } : { inputResponses };
}

/** Runs `judge` on a fresh exchange with the suite fixture `check` judges, every round on one wire (over stdio one process). */
export async function withFixture(ctx: CheckContext, check: string, judge: (x: Exchange) => Promise<Verdict>): Promise<Verdict> {
  const t = await suiteToolFor(ctx, check);
  if (typeof t === 'string') return notApplicable(t);
  const wire = ctx.wire();
  const a = await wire.send('tools/call', { name: t.name, arguments: t.args }, { caps: ALL_INPUT_CAPS });
  if (a.outcome.kind !== 'result' || !asksForInput(a.outcome.result)) return notApplicable(`${t.name}'s first call got ${outcomeText(a)}, not input_required`);
  return judge({ ...t, wire, first: a.outcome.result });
}

/**
 * A retry that did not go on from the state it echoed: an error or no answer (the server refused
 * the state it issued itself), or a new input_required asking again for what it just answered.
 */
function stateLost(phase: string, a: Answer, answered: string[]): Verdict | undefined {
  const o = a.outcome;
  if (o.kind === 'error') return violated(`${phase} got ${outcomeText(a)}: the retry carried the server's own requestState untouched and good answers, yet was refused; the state spanning the requests is the one the client passes back`, messageOf(o));
  if (o.kind !== 'result') return violated(`${phase} got ${outcomeText(a)}`);
  const again = keysOf(o.result).filter((k) => answered.includes(k));
  if (asksForInput(o.result) && again.length > 0) {
    return violated(`${phase} asked again for ${list(again)}: the exchange started over, losing what the requestState the client passed back carries`, messageOf(o));
  }
  return undefined;
}

const stateHonoured = modernCheck({
  id: 'modern.request-state-honoured',
  title: 'the requestState a server issued, echoed untouched with good answers, is honoured: the retry completes',
  clause: 'basic#27',
  level: 'MUST',
  run: (ctx) =>
    withFixture(ctx, 'modern.request-state-honoured', async (x) => {
      if (typeof x.first.requestState !== 'string') return notApplicable(`${x.name}'s input_required carries no requestState`);
      const keys = keysOf(x.first);
      const phase = `${x.name}, round 2 (the retry answering ${list(keys)} well, round 1's requestState echoed untouched)`;
      const a = await answerRound(x, x.first);
      const lost = stateLost(phase, a, keys);
      if (lost !== undefined) return lost;
      if (a.outcome.kind !== 'result') return violated(`${phase} got ${outcomeText(a)}`);
      const r = a.outcome.result;
      if (asksForInput(r)) return violated(`${phase} asked for more input (${list(keysOf(r))}): the conformance suite profile expects it to complete`, messageOf(a.outcome), PROFILE);
      const text = textOf(r);
      if (!text.includes('state-ok')) return violated(`${phase} completed without "state-ok" in its text, the conformance suite profile's sign that the requestState was validated`, messageOf(a.outcome), PROFILE);
      return pass(`${phase}: completed, ${JSON.stringify(excerpt(text, 60))}`);
    }),
});

const allAnswered = modernCheck({
  id: 'modern.input-all-answered',
  title: 'a retry answering every input asked at once (elicitation, sampling, roots) completes, asking again for none of them',
  clause: 'basic.patterns.mrtr#25',
  level: 'SHOULD',
  run: (ctx) =>
    withFixture(ctx, 'modern.input-all-answered', async (x) => {
      const keys = keysOf(x.first);
      if (keys.length < 2) return notApplicable(`${x.name} asked for ${keys.length} input at once, not several`);
      const phase = `${x.name}, round 2 (the retry answering all ${keys.length} inputs asked at once, ${list(keys)}, well)`;
      const a = await answerRound(x, x.first);
      const o = a.outcome;
      if (o.kind !== 'result') return violated(`${phase} got ${outcomeText(a)}: the conformance suite profile expects it to complete`, messageOf(o), PROFILE);
      if (!asksForInput(o.result)) return pass(`${keys.length} inputs answered at once (${list(keys)}): completed`);
      const again = keysOf(o.result).filter((k) => keys.includes(k));
      if (again.length > 0) {
        const read = keys.filter((k) => !again.includes(k));
        return violated(`${phase} asked again for ${list(again)}, answered in this very retry (read: ${read.length > 0 ? list(read) : 'none'}): a server asks again only for the information still missing`, messageOf(o));
      }
      return violated(`${phase} asked for more input (${list(keysOf(o.result))}): the conformance suite profile expects it to complete once all ${keys.length} are answered`, messageOf(o), PROFILE);
    }),
});

const rounds = modernCheck({
  id: 'modern.input-rounds',
  title: 'a multi-round request goes on from the state each round passes back: a second round asked after the first, then complete',
  clause: 'basic#27',
  level: 'MUST',
  run: (ctx) =>
    withFixture(ctx, 'modern.input-rounds', async (x) => {
      const keys1 = keysOf(x.first);
      const phase2 = `${x.name}, round 2 (the retry answering ${list(keys1)} well ${carrying(x.first, 1)})`;
      const a2 = await answerRound(x, x.first);
      const lost2 = stateLost(phase2, a2, keys1);
      if (lost2 !== undefined) return lost2;
      if (a2.outcome.kind !== 'result') return violated(`${phase2} got ${outcomeText(a2)}`);
      const second = a2.outcome.result;
      if (!asksForInput(second)) return violated(`${phase2} completed: the conformance suite profile expects a second round (a new input_required) first`, messageOf(a2.outcome), PROFILE);
      const keys2 = keysOf(second);
      const same = second.requestState !== undefined && second.requestState === x.first.requestState;
      const phase3 = `${x.name}, round 3 (the retry answering ${list(keys2)} well ${carrying(second, 2)}${same ? ", round 1's unchanged" : ''})`;
      const a3 = await answerRound(x, second);
      const lost3 = stateLost(phase3, a3, [...keys1, ...keys2]);
      if (lost3 !== undefined) return lost3;
      if (a3.outcome.kind !== 'result') return violated(`${phase3} got ${outcomeText(a3)}`);
      if (asksForInput(a3.outcome.result)) return violated(`${phase3} asked for more input (${list(keysOf(a3.outcome.result))}): the conformance suite profile expects it to complete after two rounds`, messageOf(a3.outcome), PROFILE);
      if (same) return violated(`${phase2} re-issued round 1's requestState: the conformance suite profile expects a new one each round`, messageOf(a2.outcome), PROFILE);
      return pass(`round 1 asked ${list(keys1)}, round 2 ${list(keys2)} with a new requestState, round 3 completed`);
    }),
});

export const modernMrtrAnswerChecks: CheckDef[] = [stateHonoured, allAnswered, rounds];
