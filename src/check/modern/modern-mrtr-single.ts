/**
 * The conformance suite's single-input MRTR fixtures once the client answers well: the sampling
 * tool, the roots tool and the prompt (prompts/get) each ask for one input; answered as a user
 * would (modern-mrtr-answers.ts), the retry completes with what the suite's scenarios look for.
 * The spec lets a server ask again whenever it still lacks something (basic.patterns.mrtr#15),
 * so what a fixture does beyond the spec (completing, the sampled text in the tool's result, the
 * prompt's `messages`) is reported against the profile (`--fixtures expect`); asking again for
 * the input just answered is reported under basic.patterns.mrtr#25 (only what is still missing).
 */
import { excerpt } from '../../jsonrpc/types.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { messageOf } from '../core/probe.js';
import { ALL_INPUT_CAPS, type Answer } from '../core/modern-wire.js';
import { modernCheck, outcomeText } from './modern.js';
import { asksForInput } from './modern-mrtr.js';
import { answerRound, goodResponseTo, goodRetryParams, keysOf, list, PROFILE, textOf, withFixture } from './modern-mrtr-answers.js';
import { SUITE_INPUT_PROMPTS } from '../core/profile.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';

/**
 * The retry's answer judged as a single-input fixture's: an error, a new input_required (the
 * answered one asked again: basic.patterns.mrtr#25; another: the profile), else `complete`'s
 * verdict on the completed result.
 */
function judgeRetry(phase: string, a: Answer, answered: string[], complete: (r: Record<string, unknown>, evidence: unknown) => Verdict): Verdict {
  const o = a.outcome;
  if (o.kind !== 'result') return violated(`${phase} got ${outcomeText(a)}: the conformance suite profile expects it to complete`, o.kind === 'error' ? messageOf(o) : undefined, PROFILE);
  if (!asksForInput(o.result)) return complete(o.result, messageOf(o));
  const again = keysOf(o.result).filter((k) => answered.includes(k));
  if (again.length > 0) return violated(`${phase} asked again for ${list(again)}, answered in this very retry: a server asks again only for the information still missing`, messageOf(o));
  return violated(`${phase} asked for more input (${list(keysOf(o.result))}): the conformance suite profile expects it to complete`, messageOf(o), PROFILE);
}

const phaseOf = (name: string, keys: string[], what: string): string => `${name}, round 2 (the retry answering ${list(keys)} with ${what})`;

/** The text a good sampling answer carries (goodResponseTo's), which the fixture's result echoes. */
const SAMPLED = (() => {
  const c = goodResponseTo({ method: 'sampling/createMessage' }).content;
  return isObject(c) && typeof c.text === 'string' ? c.text : '';
})();

const samplingAnswered = modernCheck({
  id: 'modern.input-sampling-answered',
  title: 'a retry carrying the sampling answer asked for completes, its result carrying the sampled text',
  clause: 'basic.patterns.mrtr#25',
  level: 'SHOULD',
  run: (ctx) =>
    withFixture(ctx, 'modern.input-sampling-answered', async (x) => {
      const keys = keysOf(x.first);
      const phase = phaseOf(x.name, keys, `a sampling answer, ${JSON.stringify(SAMPLED)}`);
      return judgeRetry(phase, await answerRound(x, x.first), keys, (r, ev) => {
        const text = textOf(r);
        if (!text.includes(SAMPLED)) return violated(`${phase} completed without the sampled text ${JSON.stringify(SAMPLED)} in its content (${JSON.stringify(excerpt(text, 60))}): the conformance suite profile expects the sampling response text in the result`, ev, PROFILE);
        return pass(`${phase}: completed, ${JSON.stringify(excerpt(text, 60))}`);
      });
    }),
});

const rootsAnswered = modernCheck({
  id: 'modern.input-roots-answered',
  title: 'a retry carrying the roots list asked for completes with a tool result',
  clause: 'basic.patterns.mrtr#25',
  level: 'SHOULD',
  run: (ctx) =>
    withFixture(ctx, 'modern.input-roots-answered', async (x) => {
      const keys = keysOf(x.first);
      const phase = phaseOf(x.name, keys, 'a roots list');
      return judgeRetry(phase, await answerRound(x, x.first), keys, (r, ev) => {
        if (!Array.isArray(r.content)) return violated(`${phase} completed without a content array: the conformance suite profile expects a tool result referencing the roots`, ev, PROFILE);
        return pass(`${phase}: completed, ${JSON.stringify(excerpt(textOf(r), 60))}`);
      });
    }),
});

/** The suite profile's input_required prompt the server lists, or why there is none. */
async function suitePrompt(ctx: CheckContext): Promise<{ name: string; args: Record<string, string> } | string> {
  const names = Object.keys(SUITE_INPUT_PROMPTS);
  if (!isObject(ctx.modernCapabilities.prompts)) return 'the server declares no prompts capability';
  const listed = await ctx.wire().send('prompts/list');
  const prompts = listed.outcome.kind === 'result' && Array.isArray(listed.outcome.result.prompts) ? listed.outcome.result.prompts.filter(isObject) : [];
  const name = names.find((n) => prompts.some((p) => p.name === n));
  if (name === undefined) return `the server lists no ${names.join(' or ')} (the suite profile's fixture for this rule); what another prompt does with good answers is not known to the checker`;
  return { name, args: SUITE_INPUT_PROMPTS[name]!.arguments };
}

const promptAnswered = modernCheck({
  id: 'modern.prompt-input-answered',
  title: 'a prompts/get retry answering the input asked for completes with the prompt (its messages)',
  clause: 'basic.patterns.mrtr#25',
  level: 'SHOULD',
  run: async (ctx) => {
    const p = await suitePrompt(ctx);
    if (typeof p === 'string') return notApplicable(p);
    const wire = ctx.wire();
    const first = await wire.send('prompts/get', { name: p.name, arguments: p.args }, { caps: ALL_INPUT_CAPS });
    if (first.outcome.kind !== 'result' || !asksForInput(first.outcome.result)) return notApplicable(`${p.name}'s first prompts/get got ${outcomeText(first)}, not input_required`);
    const asked = first.outcome.result;
    const keys = keysOf(asked);
    const a = await wire.send('prompts/get', { name: p.name, arguments: p.args, ...goodRetryParams(asked) }, { caps: ALL_INPUT_CAPS });
    const phase = `${p.name}, round 2 (the prompts/get retry answering ${list(keys)} well)`;
    return judgeRetry(phase, a, keys, (r, ev) => {
      if (!Array.isArray(r.messages)) return violated(`${phase} completed without messages: the conformance suite profile expects a GetPromptResult`, ev, PROFILE);
      return pass(`${phase}: completed, ${r.messages.length} message(s)`);
    });
  },
});

export const modernMrtrSingleChecks: CheckDef[] = [samplingAnswered, rootsAnswered, promptAnswered];
