/**
 * Resources, prompts and completion (server/resources, server/prompts,
 * server/utilities/completion): read one listed resource, get one prompt, complete one
 * argument, and judge each result against its schema type. Each check claims the message it
 * judged, so the aggregate schema check does not report it twice.
 */
import type { CheckContext, Session } from '../core/context.js';
import { isObject } from '../core/context.js';
import { declared, listAll } from '../core/lists.js';
import { describeOutcome, messageOf, type Outcome } from '../core/probe.js';
import { describeViolation, serverMessageViolations, unclaimed } from '../core/schema.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';
import { isBase64 } from '../core/calls.js';
import { badBinaryPaths, binaryProblems } from './tools.js';

/** Schema-judges a result and claims its message. */
function judgeResult(o: Outcome & { kind: 'result' }, method: string, type: string, okText: string): Verdict {
  if (o.message === undefined) return pass(okText);
  // Binary encodings are resources.blob-base64's and prompts.content-base64's.
  const vs = unclaimed(serverMessageViolations(o.message.message, method), badBinaryPaths(o.message.message));
  o.message.claims.push('');
  if (vs.length === 0) return pass(okText);
  return violated(`the ${method} result is not a valid ${type}: ${vs.slice(0, 3).map(describeViolation).join('; ')}`, o.message.message);
}

async function listed(ctx: CheckContext, s: Session, method: 'resources/list' | 'prompts/list' | 'resources/templates/list') {
  const l = await listAll(ctx, s, method);
  return l.failed === undefined ? l.items : undefined;
}

/**
 * The items of a list the server declares, or the verdict that ends the check: not applicable
 * when the capability is not declared, `failed` (blocked by default) when the listing failed.
 */
async function declaredListing(
  ctx: CheckContext,
  s: Session,
  capability: 'resources' | 'prompts',
  method: 'resources/list' | 'prompts/list' | 'resources/templates/list',
  failed: Verdict = skip(`blocked: ${method} failed (see capabilities.declared-served)`),
): Promise<{ items: NonNullable<Awaited<ReturnType<typeof listed>>> } | Verdict> {
  if (!declared(s, capability)) return notApplicable(`the server does not declare the ${capability} capability`);
  const items = await listed(ctx, s, method);
  return items === undefined ? failed : { items };
}

const readResource: CheckDef = {
  id: 'resources.read',
  title: 'resources/read of a listed resource returns a valid ReadResourceResult',
  clause: 'schema.json ReadResourceResult',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const listing = await declaredListing(ctx, s, 'resources', 'resources/list');
    if ('status' in listing) return listing;
    const r = listing.items.find((it) => typeof it.uri === 'string');
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
    const listing = await declaredListing(ctx, s, 'prompts', 'prompts/list');
    if ('status' in listing) return listing;
    const named = listing.items.filter((it) => typeof it.name === 'string');
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
    const o = await completeOnce(ctx, s, params);
    if (o.kind !== 'result') {
      return violated(`completion/complete ${JSON.stringify(params)} got ${describeOutcome(o)}`, messageOf(o), {
        level: 'SHOULD',
        clause: 'server.utilities.completion#2',
      });
    }
    return judgeResult(o, 'completion/complete', 'CompleteResult', JSON.stringify((params.ref as { name?: unknown; uri?: unknown }).name ?? (params.ref as { uri?: unknown }).uri));
  },
};

function completeOnce(ctx: CheckContext, s: Session, params: Record<string, unknown>): Promise<Outcome> {
  return ctx.memo('complete', () => s.probe.request('completion/complete', params));
}

/** The completion result of the reference completion.complete used (memoized), or a verdict. */
async function completion(ctx: CheckContext): Promise<{ o: Outcome & { kind: 'result' }; values: unknown[]; c: Record<string, unknown> } | Verdict> {
  const s = await ctx.session();
  if (!declared(s, 'completions')) return notApplicable('the server does not declare the completions capability');
  const params = await completionRef(ctx, s);
  if (params === undefined) return notApplicable('no prompt argument or resource template to complete');
  const o = await completeOnce(ctx, s, params);
  if (o.kind !== 'result' || !isObject(o.result.completion) || !Array.isArray(o.result.completion.values)) return skip('blocked: no CompleteResult (see completion.complete)');
  return { o, values: o.result.completion.values, c: o.result.completion };
}

const completeMax: CheckDef = {
  id: 'completion.max-values',
  title: 'completion/complete returns at most 100 values',
  clause: 'schema.json CompleteResult.completion.values',
  level: 'MUST',
  async run(ctx) {
    const r = await completion(ctx);
    if ('status' in r) return r;
    if (r.values.length > 100) return violated(`values must not exceed 100 items; got ${r.values.length}`, messageOf(r.o));
    return pass(`${r.values.length} values`);
  },
};

const completeTotal: CheckDef = {
  id: 'completion.total-consistent',
  title: 'completion total is not below the number of values; hasMore only when more exist',
  clause: 'schema.json CompleteResult.completion.total',
  level: 'SHOULD',
  async run(ctx) {
    const r = await completion(ctx);
    if ('status' in r) return r;
    const { total, hasMore } = r.c;
    if (typeof total === 'number' && total < r.values.length) return violated(`total (${total}) is the number of options available, yet ${r.values.length} values were sent`, messageOf(r.o));
    if (typeof total === 'number' && hasMore === true && total <= r.values.length) return violated(`hasMore is true but total (${total}) says every option was sent`, messageOf(r.o));
    return pass(`${r.values.length} values${typeof total === 'number' ? `, total ${total}` : ''}`);
  },
};

const completeUnknown: CheckDef = {
  id: 'completion.unknown-ref',
  title: 'completion/complete for a prompt that does not exist gets -32602',
  clause: 'server.utilities.completion#2',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'completions')) return notApplicable('the server does not declare the completions capability');
    const o = await s.probe.request('completion/complete', { ref: { type: 'ref/prompt', name: 'mcpwire-check-no-such-prompt' }, argument: { name: 'x', value: '' } });
    if (o.kind === 'error' && o.error.code === -32602) return pass();
    return violated(`an invalid prompt name SHOULD get -32602 (Invalid params); it got ${describeOutcome(o)}`, messageOf(o));
  },
};

// RFC 3986 §3.1: scheme ":" …, no whitespace; RFC 6570 expressions in templates.
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;
const EXPR = /^[+#./;?&=,!@|]?[A-Za-z0-9_%.]+(?::[1-9][0-9]{0,3}|\*)?(?:,[A-Za-z0-9_%.]+(?::[1-9][0-9]{0,3}|\*)?)*$/;

/** Why a URI template is malformed (RFC 6570), or undefined. */
export function templateProblem(t: string): string | undefined {
  let depth = 0;
  let expr = '';
  for (const ch of t) {
    if (ch === '{') {
      if (depth > 0) return 'nested "{"';
      depth = 1;
      expr = '';
    } else if (ch === '}') {
      if (depth === 0) return 'unmatched "}"';
      if (!EXPR.test(expr)) return `bad expression {${expr}}`;
      depth = 0;
    } else if (depth > 0) expr += ch;
  }
  if (depth > 0) return 'unclosed "{"';
  const literal = t.replace(/\{[^}]*\}/g, 'x');
  if (!URI.test(literal)) return 'not an absolute URI (scheme ":" …, no whitespace)';
  return undefined;
}

const uriFormat: CheckDef = {
  id: 'resources.uri-format',
  title: 'listed resource URIs are absolute RFC 3986 URIs (scheme:…, no whitespace)',
  clause: 'server.resources#5',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const listing = await declaredListing(ctx, s, 'resources', 'resources/list');
    if ('status' in listing) return listing;
    const { items } = listing;
    if (items.length === 0) return notApplicable('the server lists no resources');
    const i = items.findIndex((it) => typeof it.uri !== 'string' || !URI.test(it.uri));
    if (i >= 0) {
      const l = await listAll(ctx, s, 'resources/list');
      l.origins[i]?.page?.claims.push(`/result/resources/${l.origins[i].index}/uri`);
      return violated(`resource URI ${JSON.stringify(items[i].uri)} is not an RFC 3986 URI`, items[i]);
    }
    return pass(`${items.length} URIs (schemes: ${[...new Set(items.map((it) => String(it.uri).split(':')[0]))].slice(0, 5).join(', ')})`);
  },
};

const templates: CheckDef = {
  id: 'resources.templates',
  title: 'resource templates are valid RFC 6570 URI templates',
  clause: 'schema.json ResourceTemplate.uriTemplate',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const listing = await declaredListing(ctx, s, 'resources', 'resources/templates/list', notApplicable('resources/templates/list is not served (see capabilities.declared-served)'));
    if ('status' in listing) return listing;
    const { items } = listing;
    if (items.length === 0) return notApplicable('the server lists no resource templates');
    for (const [i, t] of items.entries()) {
      const why = typeof t.uriTemplate === 'string' ? templateProblem(t.uriTemplate) : 'not a string';
      const l = await listAll(ctx, s, 'resources/templates/list');
      if (why !== undefined) l.origins[i]?.page?.claims.push(`/result/resourceTemplates/${l.origins[i].index}/uriTemplate`);
      if (why !== undefined) return violated(`uriTemplate ${JSON.stringify(t.uriTemplate)} is not a URI template (RFC 6570): ${why}`, t);
    }
    return pass(`${items.length} templates`);
  },
};

const notFound: CheckDef = {
  id: 'resources.not-found',
  title: 'resources/read of an unknown URI gets error -32002 (Resource not found)',
  clause: 'server.resources#6',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'resources')) return notApplicable('the server does not declare the resources capability');
    const o = await s.probe.request('resources/read', { uri: 'mcpwire-check://no-such-resource/404' });
    if (o.kind === 'error' && o.error.code === -32002) return pass();
    return violated(`"Resource not found" SHOULD be error -32002; reading mcpwire-check://no-such-resource/404 got ${describeOutcome(o)}`, messageOf(o));
  },
};

const blobBase64: CheckDef = {
  id: 'resources.blob-base64',
  title: 'resource contents with blob are base64 (read up to 5 listed resources)',
  clause: 'server.resources#9',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'resources')) return notApplicable('the server does not declare the resources capability');
    const items = (await listed(ctx, s, 'resources/list')) ?? [];
    // Binary-looking resources first.
    // Not the ones read already, nor URIs resources.uri-format refuses.
    const read = new Set(ctx.traffic.records.filter((r) => r.dir === 'out' && (r.message as { method?: unknown }).method === 'resources/read').map((r) => (r.message as { params?: { uri?: unknown } }).params?.uri));
    const pick = [...items].filter((it) => typeof it.uri === 'string' && URI.test(it.uri) && !read.has(it.uri)).sort((a, b) => Number(String(b.mimeType ?? '').startsWith('text')) * -1 - Number(String(a.mimeType ?? '').startsWith('text')) * -1).slice(0, 5);
    for (const it of pick) await s.probe.request('resources/read', { uri: it.uri });
    let blobs = 0;
    for (const r of ctx.traffic.fromServer()) {
      if (r.kind !== 'result' || r.requestMethod !== 'resources/read') continue;
      const contents = (r.message as { result?: { contents?: unknown } }).result?.contents;
      for (const [i, c] of (Array.isArray(contents) ? contents : []).entries()) {
        if (!isObject(c) || c.blob === undefined) continue;
        blobs++;
        if (!isBase64(c.blob)) {
          r.claims.push(`/result/contents/${i}`);
          return violated(`binary data MUST be properly encoded: the blob of ${JSON.stringify(c.uri)} is not base64`, r.message);
        }
      }
    }
    return blobs === 0 ? notApplicable('no resource read returned a blob') : pass(`${blobs} blobs`);
  },
};

const subscribe: CheckDef = {
  id: 'resources.subscribe',
  title: 'resources/subscribe and unsubscribe work when "subscribe" is declared, and are refused when not',
  clause: 'basic.lifecycle#14',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'resources')) return notApplicable('the server does not declare the resources capability');
    const items = (await listed(ctx, s, 'resources/list')) ?? [];
    const uri = typeof items[0]?.uri === 'string' ? items[0].uri : undefined;
    if (uri === undefined) return notApplicable('the server lists no resources');
    const on = (s.capabilities.resources as Record<string, unknown>).subscribe === true;
    const o = await s.probe.request('resources/subscribe', { uri });
    if (!on) {
      if (o.kind === 'result') {
        await s.probe.request('resources/unsubscribe', { uri });
        return violated('"resources.subscribe" is not declared, yet resources/subscribe was served; only negotiated capabilities may be used', messageOf(o), { level: 'SHOULD' });
      }
      return pass(`not declared; refused (${describeOutcome(o)})`);
    }
    if (o.kind !== 'result') return violated(`"resources.subscribe" is declared but subscribing to ${JSON.stringify(uri)} got ${describeOutcome(o)}`, messageOf(o));
    const off = await s.probe.request('resources/unsubscribe', { uri });
    if (off.kind !== 'result') return violated(`unsubscribing from ${JSON.stringify(uri)} got ${describeOutcome(off)}`, messageOf(off));
    return pass(`subscribed to and unsubscribed from ${uri}`);
  },
};

const promptMissingArg: CheckDef = {
  id: 'prompts.missing-argument',
  title: 'prompts/get without a required argument gets -32602',
  clause: 'server.prompts#7',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    const listing = await declaredListing(ctx, s, 'prompts', 'prompts/list');
    if ('status' in listing) return listing;
    const p = listing.items.find((it) => typeof it.name === 'string' && promptArgs(it).placeholders);
    if (p === undefined) return notApplicable('no prompt has a required argument');
    const o = await s.probe.request('prompts/get', { name: p.name, arguments: {} });
    if (o.kind === 'error' && o.error.code === -32602) return pass(`${String(p.name)} → -32602`);
    return violated(`servers SHOULD validate prompt arguments (missing required arguments: -32602, server.prompts#6); ${JSON.stringify(p.name)} without its required arguments got ${describeOutcome(o)}`, messageOf(o));
  },
};

const promptUnknown: CheckDef = {
  id: 'prompts.unknown',
  title: 'prompts/get of a prompt that does not exist gets -32602',
  clause: 'server.prompts#6',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'prompts')) return notApplicable('the server does not declare the prompts capability');
    const o = await s.probe.request('prompts/get', { name: 'mcpwire-check-no-such-prompt', arguments: {} });
    if (o.kind === 'error' && o.error.code === -32602) return pass();
    return violated(`an invalid prompt name SHOULD get -32602 (Invalid params); it got ${describeOutcome(o)}`, messageOf(o));
  },
};

const promptBinary: CheckDef = {
  id: 'prompts.content-base64',
  title: 'image/audio in prompt messages is base64 with a MIME type',
  clause: 'server.prompts#3',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    let n = 0;
    for (const r of ctx.traffic.fromServer()) {
      if (r.kind !== 'result' || r.requestMethod !== 'prompts/get') continue;
      const messages = (r.message as { result?: { messages?: unknown } }).result?.messages;
      for (const [i, m] of (Array.isArray(messages) ? messages : []).entries()) {
        if (!isObject(m)) continue;
        n++;
        const bad = binaryProblems([m.content]);
        if (bad !== undefined) {
          r.claims.push(...badBinaryPaths(r.message));
          return violated(`prompt message ${i}: ${bad}`, r.message);
        }
      }
    }
    return n === 0 ? notApplicable('no prompt messages seen') : pass(`${n} prompt messages`);
  },
};

export const resourcePromptChecks: CheckDef[] = [
  readResource,
  uriFormat,
  templates,
  notFound,
  blobBase64,
  subscribe,
  getPrompt,
  promptMissingArg,
  promptUnknown,
  complete,
  completeMax,
  completeTotal,
  completeUnknown,
];
export const resourcePromptAggregates: CheckDef[] = [promptBinary];
