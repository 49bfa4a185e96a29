/**
 * Resources, prompts and completion (server/resources, server/prompts,
 * server/utilities/completion): read one listed resource, get one prompt, complete one
 * argument, and judge each result against its schema type. Each check claims the message it
 * judged, so the aggregate schema check does not report it twice.
 */
import type { CheckContext, Session } from './context.js';
import { isObject } from './context.js';
import { declared, listAll } from './lists.js';
import { describeOutcome, messageOf, type Outcome } from './probe.js';
import { describeViolation, serverMessageViolations } from './schema.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from './types.js';

/** Schema-judges a result and claims its message. */
function judgeResult(o: Outcome & { kind: 'result' }, method: string, type: string, okText: string): Verdict {
  if (o.message === undefined) return pass(okText);
  const vs = serverMessageViolations(o.message.message, method);
  o.message.claims.push('');
  if (vs.length === 0) return pass(okText);
  return violated(`the ${method} result is not a valid ${type}: ${vs.slice(0, 3).map(describeViolation).join('; ')}`, o.message.message);
}

async function listed(ctx: CheckContext, s: Session, method: 'resources/list' | 'prompts/list' | 'resources/templates/list') {
  const l = await listAll(ctx, s, method);
  return l.failed === undefined ? l.items : undefined;
}

const readResource: CheckDef = {
  id: 'resources.read',
  title: 'resources/read of a listed resource returns a valid ReadResourceResult',
  clause: 'schema.json ReadResourceResult',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'resources')) return notApplicable('the server does not declare the resources capability');
    const items = await listed(ctx, s, 'resources/list');
    if (items === undefined) return skip('blocked: resources/list failed (see capabilities.declared-served)');
    const r = items.find((it) => typeof it.uri === 'string');
    if (r === undefined) return notApplicable('the server lists no resources');
    const o = await s.probe.request('resources/read', { uri: r.uri });
    if (o.kind !== 'result') {
      return violated(`reading listed resource ${JSON.stringify(r.uri)} got ${describeOutcome(o)}`, messageOf(o), { level: 'SHOULD', clause: 'server.resources#6' });
    }
    return judgeResult(o, 'resources/read', 'ReadResourceResult', String(r.uri));
  },
};

/** Placeholder values for a prompt's required arguments. */
function promptArgs(p: Record<string, unknown>): { args: Record<string, string>; placeholders: boolean } {
  const args: Record<string, string> = {};
  let placeholders = false;
  for (const a of Array.isArray(p.arguments) ? p.arguments : []) {
    if (isObject(a) && a.required === true && typeof a.name === 'string') {
      args[a.name] = 'x';
      placeholders = true;
    }
  }
  return { args, placeholders };
}

const getPrompt: CheckDef = {
  id: 'prompts.get',
  title: 'prompts/get of a listed prompt returns a valid GetPromptResult',
  clause: 'schema.json GetPromptResult',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'prompts')) return notApplicable('the server does not declare the prompts capability');
    const items = await listed(ctx, s, 'prompts/list');
    if (items === undefined) return skip('blocked: prompts/list failed (see capabilities.declared-served)');
    const named = items.filter((it) => typeof it.name === 'string');
    if (named.length === 0) return notApplicable('the server lists no prompts');
    // Prefer a prompt without required arguments: no guessing at values.
    const p = named.find((it) => !promptArgs(it).placeholders) ?? named[0];
    const { args, placeholders } = promptArgs(p);
    const o = await s.probe.request('prompts/get', { name: p.name, arguments: args });
    if (o.kind === 'error' && placeholders && o.error.code === -32602) {
      return skip(`prompt ${JSON.stringify(p.name)} refused placeholder arguments (-32602); no prompt without required arguments to try`);
    }
    if (o.kind !== 'result') {
      return violated(`getting listed prompt ${JSON.stringify(p.name)} got ${describeOutcome(o)}`, messageOf(o), { level: 'SHOULD', clause: 'server.prompts#6' });
    }
    return judgeResult(o, 'prompts/get', 'GetPromptResult', String(p.name));
  },
};

/** A reference the server should be able to complete: a prompt argument or a template variable. */
async function completionRef(ctx: CheckContext, s: Session): Promise<Record<string, unknown> | undefined> {
  if (declared(s, 'prompts')) {
    for (const p of (await listed(ctx, s, 'prompts/list')) ?? []) {
      const arg = (Array.isArray(p.arguments) ? p.arguments : []).find((a: unknown) => isObject(a) && typeof a.name === 'string');
      if (typeof p.name === 'string' && arg) return { ref: { type: 'ref/prompt', name: p.name }, argument: { name: arg.name, value: '' } };
    }
  }
  if (declared(s, 'resources')) {
    for (const t of (await listed(ctx, s, 'resources/templates/list')) ?? []) {
      const v = typeof t.uriTemplate === 'string' ? /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(t.uriTemplate) : null;
      if (v) return { ref: { type: 'ref/resource', uri: t.uriTemplate }, argument: { name: v[1], value: '' } };
    }
  }
  return undefined;
}

const complete: CheckDef = {
  id: 'completion.complete',
  title: 'completion/complete returns a valid CompleteResult',
  clause: 'schema.json CompleteResult',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'completions')) return notApplicable('the server does not declare the completions capability');
    const params = await completionRef(ctx, s);
    if (params === undefined) return notApplicable('no prompt argument or resource template to complete');
    const o = await s.probe.request('completion/complete', params);
    if (o.kind !== 'result') {
      return violated(`completion/complete ${JSON.stringify(params)} got ${describeOutcome(o)}`, messageOf(o), {
        level: 'SHOULD',
        clause: 'server.utilities.completion#2',
      });
    }
    return judgeResult(o, 'completion/complete', 'CompleteResult', JSON.stringify((params.ref as { name?: unknown; uri?: unknown }).name ?? (params.ref as { uri?: unknown }).uri));
  },
};

export const resourcePromptChecks: CheckDef[] = [readResource, getPrompt, complete];
