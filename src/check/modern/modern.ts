/**
 * The server duties of protocol revision 2026-07-28 (the stateless era), each cited by its id
 * in ../shared/spec/clauses-2026-07-28.md: `server/discover`, the per-request `_meta` envelope,
 * `resultType` on every result, caching hints, resource not found, subscriptions/listen,
 * declared extensions, and every server message against schema/2026-07-28.schema.json. Run only
 * when the run checks a modern version (era.ts); every probe goes through the stateless wire
 * (modern-wire.ts) and never touches an undeclared capability.
 */
import { MODERN_REVISIONS, NEWEST_HANDSHAKE } from '../core/revisions.js';
import { metaKeyProblem } from '../basics/aggregates.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { describeOutcome, messageOf, type Recorded } from '../core/probe.js';
import { describeViolation, MODERN_SCHEMA, serverMessageViolations, unclaimed } from '../core/schema.js';
import { META_SERVER_INFO, META_SUBSCRIPTION, supportedOf, UNSUPPORTED_VERSION, type Answer } from '../core/modern-wire.js';
import { notApplicable, pass, violated, type CheckDef } from '../core/types.js';

export { MODERN_REVISIONS };
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CORE_RESULT_TYPES = new Set(['complete', 'input_required']);

/** A check of the modern era. */
export const modernCheck = (def: Omit<CheckDef, 'revisions'>): CheckDef => ({ ...def, revisions: MODERN_REVISIONS });

/** The version the requests of a run go out with: a method every server has, the cheapest declared list. */
export function cheapRequest(ctx: CheckContext): string {
  const c = ctx.modernCapabilities;
  return isObject(c.tools) ? 'tools/list' : isObject(c.prompts) ? 'prompts/list' : isObject(c.resources) ? 'resources/list' : 'server/discover';
}

const outcomeText = (a: Answer) => `${describeOutcome(a.outcome)}${a.status !== undefined ? ` (HTTP ${a.status})` : ''}`;

const discover = modernCheck({
  id: 'modern.discover',
  title: 'server/discover answers supportedVersions, capabilities and serverInfo',
  clause: 'server.discover#1',
  level: 'MUST',
  async run(ctx) {
    const a = await ctx.wire().send('server/discover');
    if (a.outcome.kind !== 'result') return violated(`servers MUST implement server/discover; it got ${outcomeText(a)}`, messageOf(a.outcome));
    const r = a.outcome.result;
    const problems: string[] = [];
    const versions = r.supportedVersions;
    if (!Array.isArray(versions) || versions.length === 0 || !versions.every((v) => typeof v === 'string')) problems.push('no non-empty "supportedVersions" array of strings');
    else if (ctx.version !== undefined && !versions.includes(ctx.version)) problems.push(`"supportedVersions" ${JSON.stringify(versions)} does not list ${ctx.version}, the version it answered`);
    if (!isObject(r.capabilities)) problems.push('no "capabilities" object');
    if (r.resultType !== 'complete') problems.push(`"resultType" is ${JSON.stringify(r.resultType)}, not "complete"`);
    if (problems.length > 0) return violated(`the DiscoverResult is malformed: ${problems.join('; ')}`, messageOf(a.outcome));
    const info = isObject(r._meta) ? r._meta[META_SERVER_INFO] : undefined;
    if (!isObject(info) || typeof info.name !== 'string') {
      return violated(`the DiscoverResult has no _meta["${META_SERVER_INFO}"] with a name`, messageOf(a.outcome), { level: 'SHOULD', clause: 'server.discover#3' });
    }
    return pass(`versions ${JSON.stringify(versions)}, server ${JSON.stringify(info.name)}`);
  },
});

const unsupportedVersion = modernCheck({
  id: 'modern.unsupported-version',
  title: 'a request at a version the server does not implement gets -32022 naming the supported ones',
  clause: 'basic.versioning#1',
  level: 'MUST',
  async run(ctx) {
    const wire = ctx.wire();
    const method = cheapRequest(ctx);
    const a = await wire.send(method, {}, { meta: { ...wire.meta(), 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }, headers: { 'mcp-protocol-version': '1999-01-01' } });
    const o = a.outcome;
    if (o.kind !== 'error' || o.error.code !== UNSUPPORTED_VERSION) {
      return violated(`${method} at protocol version "1999-01-01" MUST get UnsupportedProtocolVersionError (-32022); it got ${outcomeText(a)}`, messageOf(o));
    }
    const supported = supportedOf(o.error);
    if (supported === undefined || supported.length === 0) return violated('the -32022 error has no data.supported list of versions', messageOf(o));
    const requested = isObject(o.error.data) ? o.error.data.requested : undefined;
    if (requested !== '1999-01-01') return violated(`the -32022 error's data.requested is ${JSON.stringify(requested)}, not the version the request named ("1999-01-01"; UnsupportedProtocolVersionError requires it)`, messageOf(o));
    if (a.status !== undefined && a.status !== 400) {
      return violated(`the -32022 error came with HTTP ${a.status}, not 400 Bad Request`, messageOf(o), { clause: 'basic.transports.streamable_http#25' });
    }
    return pass(`-32022, supported ${JSON.stringify(supported)}`);
  },
});

const metaRequired = modernCheck({
  id: 'modern.meta-required',
  title: 'a request whose _meta lacks clientCapabilities is refused with -32602',
  clause: 'basic#45',
  level: 'MUST',
  async run(ctx) {
    const wire = ctx.wire();
    const method = cheapRequest(ctx);
    const { 'io.modelcontextprotocol/clientCapabilities': _caps, ...noCaps } = wire.meta();
    const { 'io.modelcontextprotocol/protocolVersion': _v, ...noVersion } = wire.meta();
    // without the version in _meta only HTTP still says which revision the request is of (the header)
    const variants: Array<[string, Record<string, unknown> | null]> = [
      ['without io.modelcontextprotocol/clientCapabilities', noCaps],
      ...(ctx.isHttp ? ([['without io.modelcontextprotocol/protocolVersion', noVersion], ['without _meta', null]] as Array<[string, Record<string, unknown> | null]>) : []),
    ];
    for (const [what, meta] of variants) {
      const a = await wire.send(method, {}, { meta });
      const o = a.outcome;
      if (o.kind !== 'error' || o.error.code !== -32602) {
        return violated(`${method} ${what} is malformed and MUST get -32602; it got ${outcomeText(a)}`, messageOf(o));
      }
      if (a.status !== undefined && a.status !== 400) return violated(`${method} ${what}: the -32602 came with HTTP ${a.status}, not 400`, messageOf(o), { clause: 'basic#46' });
    }
    return pass(variants.map(([what]) => what).join('; '));
  },
});

/** The request a recorded response answers (same probe, same id). */
export function requestOf(ctx: CheckContext, rec: Recorded): Record<string, unknown> | undefined {
  const id = (rec.message as { id?: unknown }).id;
  const out = ctx.traffic.records.findLast((r) => r.probe === rec.probe && r.dir === 'out' && r.kind === 'request' && (r.message as { id?: unknown }).id === id && r.seq < rec.seq);
  return out?.message as Record<string, unknown> | undefined;
}

export function results(ctx: CheckContext): Array<{ rec: Recorded; result: Record<string, unknown>; method: string }> {
  const out = [];
  for (const rec of ctx.traffic.fromServer()) {
    const result = (rec.message as { result?: unknown }).result;
    if (rec.kind !== 'result' || !isObject(result)) continue;
    const method = rec.requestMethod ?? String(requestOf(ctx, rec)?.method ?? '');
    // the answer to a handshake-era initialize (modern.initialize-refused) is not a 2026-07-28 result
    if (method !== 'initialize') out.push({ rec, result, method });
  }
  return out;
}

const resultType = modernCheck({
  id: 'modern.result-type',
  title: 'every result carries a resultType of the core set (or of a declared extension)',
  clause: 'basic#8',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const all = results(ctx);
    const extensions = isObject(ctx.modernCapabilities.extensions) && Object.keys(ctx.modernCapabilities.extensions).length > 0;
    const missing = all.filter((x) => typeof x.result.resultType !== 'string');
    if (missing.length > 0) {
      // an interim answer without resultType is read by a client as complete: name it apart
      const interim = missing.find((x) => x.result.inputRequests !== undefined || x.result.requestState !== undefined);
      const methods = [...new Set(missing.map((x) => x.method || 'result'))].join(', ');
      const note = interim ? `; a ${interim.method} result with ${interim.result.inputRequests !== undefined ? 'inputRequests' : 'requestState'} (an InputRequiredResult) has none, so a client reads it as complete` : '';
      return violated(`${missing.length} of ${all.length} results have no "resultType" (${methods})${note}`, (interim ?? missing[0]).rec.message);
    }
    const odd = all.find((x) => !CORE_RESULT_TYPES.has(x.result.resultType as string));
    if (odd && !extensions) {
      return violated(`a ${odd.method} result has resultType ${JSON.stringify(odd.result.resultType)}, outside the core set, with no extension declared`, odd.rec.message, { clause: 'basic#9' });
    }
    return pass(`${all.length} results`);
  },
});

const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const INPUT_REQUEST_CAPS: Record<string, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/** What is wrong with an input_required result, given the request it answers. */
function inputRequiredProblem(method: string, result: Record<string, unknown>, request: Record<string, unknown> | undefined): { text: string; clause: string } | undefined {
  if (!INPUT_METHODS.has(method)) return { text: `${method} was answered with input_required, which only tools/call, prompts/get and resources/read may get`, clause: 'basic.patterns.mrtr#4' };
  if (result.inputRequests === undefined && result.requestState === undefined) return { text: 'an InputRequiredResult with neither inputRequests nor requestState', clause: 'basic.patterns.mrtr#12' };
  const reqs = isObject(result.inputRequests) ? result.inputRequests : {};
  const meta = isObject(request?.params) && isObject((request.params as { _meta?: unknown })._meta) ? ((request.params as { _meta: Record<string, unknown> })._meta) : {};
  const caps = isObject(meta['io.modelcontextprotocol/clientCapabilities']) ? meta['io.modelcontextprotocol/clientCapabilities'] : {};
  for (const [key, r] of Object.entries(reqs)) {
    const m = isObject(r) ? r.method : undefined;
    const cap = typeof m === 'string' ? INPUT_REQUEST_CAPS[m] : undefined;
    if (cap === undefined) return { text: `inputRequests["${key}"] is ${JSON.stringify(m)}, not an elicitation, sampling or roots request`, clause: 'basic.patterns.mrtr#6' };
    if (request !== undefined && !isObject(caps[cap])) return { text: `inputRequests["${key}"] is ${m} but the request declared no ${cap} capability`, clause: 'basic.patterns.mrtr#13' };
  }
  return undefined;
}

const inputRequired = modernCheck({
  id: 'modern.input-required',
  title: 'input_required only on tools/call, prompts/get, resources/read, well-formed, asking only for declared capabilities',
  clause: 'basic.patterns.mrtr#4',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const interim = results(ctx).filter((x) => x.result.resultType === 'input_required');
    for (const x of interim) {
      const p = inputRequiredProblem(x.method, x.result, requestOf(ctx, x.rec));
      if (p) return violated(p.text, x.rec.message, { clause: p.clause });
    }
    return pass(interim.length ? `${interim.length} input_required results` : 'no input_required result seen');
  },
});

/** The first page of each declared list, and every page of it (up to 5), plus discover. */
async function fetchCacheable(ctx: CheckContext): Promise<Array<{ method: string; pages: Answer[] }>> {
  const c = ctx.modernCapabilities;
  const methods = ['server/discover', ...(isObject(c.tools) ? ['tools/list'] : []), ...(isObject(c.prompts) ? ['prompts/list'] : []), ...(isObject(c.resources) ? ['resources/list', 'resources/templates/list'] : [])];
  const wire = ctx.wire();
  const out: Array<{ method: string; pages: Answer[] }> = [];
  for (const method of methods) {
    const pages: Answer[] = [];
    let cursor: unknown;
    do {
      const a = await wire.send(method, cursor === undefined ? {} : { cursor });
      pages.push(a);
      cursor = a.outcome.kind === 'result' ? a.outcome.result.nextCursor : undefined;
    } while (typeof cursor === 'string' && pages.length < 5);
    out.push({ method, pages });
  }
  const first = out.find((x) => x.method === 'resources/list')?.pages[0];
  const listed = first?.outcome.kind === 'result' && Array.isArray(first.outcome.result.resources) ? (first.outcome.result.resources[0] as { uri?: unknown } | undefined) : undefined;
  if (typeof listed?.uri === 'string') out.push({ method: 'resources/read', pages: [await wire.send('resources/read', { uri: listed.uri })] });
  return out;
}

function hintProblem(r: Record<string, unknown>): string | undefined {
  if (typeof r.ttlMs !== 'number' || !Number.isInteger(r.ttlMs) || r.ttlMs < 0) return `ttlMs is ${JSON.stringify(r.ttlMs)}, not an integer >= 0`;
  if (r.cacheScope !== 'public' && r.cacheScope !== 'private') return `cacheScope is ${JSON.stringify(r.cacheScope)}, not "public" or "private"`;
  return undefined;
}

const cacheHints = modernCheck({
  id: 'modern.cache-hints',
  title: 'complete results of discover, the lists and resources/read carry ttlMs >= 0 and cacheScope; one scope across pages',
  clause: 'server.utilities.caching#1',
  level: 'MUST',
  async run(ctx) {
    let n = 0;
    for (const { method, pages } of await fetchCacheable(ctx)) {
      const scopes = new Set<unknown>();
      for (const a of pages) {
        // a result without resultType is read as complete (its missing resultType is modern.result-type's)
        if (a.outcome.kind !== 'result' || a.outcome.result.resultType === 'input_required') continue;
        n++;
        const p = hintProblem(a.outcome.result);
        if (p) return violated(`a ${method} result: ${p}`, messageOf(a.outcome), p.startsWith('ttlMs') && typeof a.outcome.result.ttlMs === 'number' ? { clause: 'server.utilities.caching#8' } : {});
        scopes.add(a.outcome.result.cacheScope);
      }
      if (scopes.size > 1) return violated(`the pages of ${method} carry different cacheScopes (${[...scopes].join(', ')})`, undefined, { clause: 'server.utilities.caching#16' });
    }
    return pass(`${n} cacheable results`);
  },
});

const resourceNotFound = modernCheck({
  id: 'modern.resource-not-found',
  title: 'reading an unknown resource is -32602 (never an empty contents array)',
  clause: 'server.resources#9',
  level: 'MUST',
  async run(ctx) {
    if (!isObject(ctx.modernCapabilities.resources)) return notApplicable('the server declares no resources capability');
    const a = await ctx.wire().send('resources/read', { uri: 'mcpwire-check://no-such-resource/404' });
    const o = a.outcome;
    if (o.kind === 'result' && Array.isArray(o.result.contents) && o.result.contents.length === 0) {
      return violated('an unknown resource was answered with an empty contents array', messageOf(o), { clause: 'server.resources#12' });
    }
    if (o.kind !== 'error' || o.error.code !== -32602) return violated(`an unknown resource MUST get -32602 (Invalid Params); it got ${outcomeText(a)}`, messageOf(o));
    return pass();
  },
});

/** What the listen filter asks for: every change kind the server declared. */
function listenFilter(c: Record<string, unknown>): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  const has = (k: string, sub: string) => isObject(c[k]) && (c[k] as Record<string, unknown>)[sub] === true;
  if (has('tools', 'listChanged')) f.toolsListChanged = true;
  if (has('prompts', 'listChanged')) f.promptsListChanged = true;
  if (has('resources', 'listChanged')) f.resourcesListChanged = true;
  return f;
}

const ALLOWED_ON_LISTEN: Record<string, string> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

const subscriptionsListen = modernCheck({
  id: 'modern.subscriptions-listen',
  title: 'subscriptions/listen is acknowledged first, with the subscription id in _meta, and sends only what was asked',
  clause: 'basic.patterns.subscriptions#2',
  level: 'MUST',
  async run(ctx) {
    const filter = listenFilter(ctx.modernCapabilities);
    if (Object.keys(filter).length === 0) return notApplicable('the server declares no listChanged capability');
    // A process of its own: the subscription is a request left open, then cancelled, after
    // which the server may still be winding it down (or still send on it) — no other check's
    // requests share that process.
    const wire = ctx.wire({ own: true });
    // The acknowledgement comes first and at once: 3 s (a longer bound cost every server that
    // never acknowledges the whole wait, in every check run) — counted from a server that is up:
    // over stdio a started server answers server/discover first (its start is not the bound's).
    const waitMs = Math.min(ctx.timeoutMs, 3000);
    if (!ctx.isHttp) await wire.send('server/discover', {});
    const a = await wire.send('subscriptions/listen', { notifications: filter }, { timeoutMs: waitMs, cancel: true, until: (t) => t.includes('subscriptions/acknowledged') });
    const notes = a.notifications;
    const first = notes[0];
    if (first === undefined) return violated(`no notifications/subscriptions/acknowledged within ${waitMs} ms; got ${outcomeText(a)}`, messageOf(a.outcome));
    if (first.method !== 'notifications/subscriptions/acknowledged') return violated(`the first message of the subscription is ${String(first.method)}, not notifications/subscriptions/acknowledged`, first);
    const sid = isObject(first.params) && isObject(first.params._meta) ? first.params._meta[META_SUBSCRIPTION] : undefined;
    const listenId = listenRequestId(ctx);
    if (sid === undefined || (listenId !== undefined && sid !== listenId)) {
      return violated(`the acknowledgement's _meta["${META_SUBSCRIPTION}"] is ${JSON.stringify(sid)}, not the subscriptions/listen request id ${JSON.stringify(listenId)}`, first);
    }
    const extra = notes.slice(1).find((n) => typeof n.method === 'string' && n.method !== 'notifications/subscriptions/acknowledged' && filter[ALLOWED_ON_LISTEN[n.method] ?? ''] !== true);
    if (extra) return violated(`the subscription delivered ${String(extra.method)}, which the client did not request`, extra, { clause: 'basic.patterns.subscriptions#1' });
    return pass(`acknowledged ${JSON.stringify(isObject(first.params) ? first.params.notifications : undefined)}`);
  },
});

function listenRequestId(ctx: CheckContext): unknown {
  const out = ctx.traffic.records.findLast((r) => r.dir === 'out' && r.kind === 'request' && (r.message as { method?: unknown }).method === 'subscriptions/listen');
  return (out?.message as { id?: unknown } | undefined)?.id;
}

const extensions = modernCheck({
  id: 'modern.extensions',
  title: 'declared extensions have prefixed identifiers; the tasks extension, when declared, answers tasks/get',
  clause: 'basic.versioning#4',
  level: 'MUST',
  async run(ctx) {
    const ext = ctx.modernCapabilities.extensions;
    if (ext === undefined) return notApplicable('the server declares no extensions');
    if (!isObject(ext)) return violated('capabilities.extensions is not an object', ext);
    for (const key of Object.keys(ext)) {
      const problem = metaKeyProblem(key)?.replace(/ \(basic#\d+\)$/, '') ?? (key.includes('/') ? undefined : 'it has no prefix');
      if (problem !== undefined) return violated(`extension identifier ${JSON.stringify(key)}: ${problem}`, ext);
    }
    if (!(TASKS_EXTENSION in ext)) return pass(`${Object.keys(ext).length} extension(s)`);
    const a = await ctx.wire().send('tasks/get', { taskId: 'mcpwire-check-no-such-task' });
    const o = a.outcome;
    if (o.kind === 'error' && o.error.code === -32601) {
      return violated(`the server declares ${TASKS_EXTENSION} but tasks/get is Method not found`, messageOf(o), { clause: 'basic.versioning#5' });
    }
    if (o.kind !== 'error') return violated(`tasks/get of an unknown task id got ${outcomeText(a)}, not an error`, messageOf(o), { clause: 'basic.versioning#5' });
    return pass(`tasks/get of an unknown task: error ${o.error.code}`);
  },
});

/** Each server capability with the request that needs it, and the clauses of declaring it (#2/#4) and answering it (#3/#5). */
const CAPABILITY_PROBES = [
  { capability: 'tools', method: 'tools/list', params: {}, declare: 'server.tools#4', serve: 'server.tools#5' },
  { capability: 'prompts', method: 'prompts/list', params: {}, declare: 'server.prompts#2', serve: 'server.prompts#3' },
  { capability: 'resources', method: 'resources/list', params: {}, declare: 'server.resources#2', serve: 'server.resources#3' },
  { capability: 'completions', method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'mcpwire-check-no-such-prompt' }, argument: { name: 'a', value: '' } }, declare: 'server.utilities.completion#2' },
];

const capabilitiesDeclared = modernCheck({
  id: 'modern.capabilities-declared',
  title: 'a capability the server serves is declared in server/discover, and a declared list is served',
  clause: 'server.tools#4',
  level: 'MUST',
  async run(ctx) {
    const caps = ctx.modernCapabilities;
    const wire = ctx.wire();
    const seen: string[] = [];
    for (const p of CAPABILITY_PROBES) {
      const a = await wire.send(p.method, p.params);
      const o = a.outcome;
      if (isObject(caps[p.capability])) {
        if (p.serve !== undefined && o.kind !== 'result') return violated(`the server declares "${p.capability}" but ${p.method} got ${outcomeText(a)}`, messageOf(o), { clause: p.serve });
        seen.push(`${p.capability} declared and served`);
        continue;
      }
      if (o.kind === 'result') return violated(`"${p.capability}" is not declared in server/discover but ${p.method} was served: a server that supports it MUST declare it`, messageOf(o), { clause: p.declare });
      if (o.kind === 'error' && o.error.code !== -32601) {
        return violated(`${p.method} ("${p.capability}" not declared) got ${outcomeText(a)}; a method the server does not implement is -32601 (Method not found)`, messageOf(o), { level: 'SHOULD', clause: 'jsonrpc-2.0 §5.1' });
      }
      seen.push(`${p.method}: -32601`);
    }
    return pass(seen.join('; '));
  },
});

/** A handshake-era `initialize`, as such a client sends it: no _meta, no 2026-07-28 headers (once per run). */
export function handshakeInitialize(ctx: CheckContext): Promise<Answer> {
  return ctx.memo('modern.handshake-initialize', () => {
    const params = { protocolVersion: NEWEST_HANDSHAKE, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } };
    // over stdio a process of its own: a handshake-era client's initialize is the first request
    // a server sees (on a shared one it would follow server/discover), and a server that
    // accepts it has a session on that process from then on
    return ctx.wire({ own: true }).send('initialize', params, { meta: null, headers: { 'mcp-method': '', 'mcp-protocol-version': '' } });
  });
}

const initializeRefused = modernCheck({
  id: 'modern.initialize-refused',
  title: 'a modern-only server names its versions in its error to initialize',
  clause: 'basic.versioning#8',
  level: 'SHOULD',
  async run(ctx) {
    const supported = Array.isArray(ctx.discover?.supportedVersions) ? ctx.discover.supportedVersions.filter((v): v is string => typeof v === 'string') : [];
    if (supported.length === 0 || supported.some((v) => !MODERN_REVISIONS.includes(v))) return notApplicable('the server does not list only 2026-07-28 versions');
    const a = await handshakeInitialize(ctx);
    const o = a.outcome;
    // a server that lists only modern versions yet serves initialize speaks both eras (#8 binds modern-only ones)
    if (o.kind === 'result') return notApplicable(`the server answers initialize (${JSON.stringify(o.result.protocolVersion)}): it speaks the handshake era too`);
    const named = o.kind === 'error' && (supportedOf(o.error)?.some((v) => supported.includes(v)) === true || supported.some((v) => o.error.message.includes(v)));
    if (!named) return violated(`initialize got ${outcomeText(a)}, which names none of the versions it supports (${supported.join(', ')})`, messageOf(o) ?? a.text);
    return pass(`error ${o.kind === 'error' ? o.error.code : ''} naming ${supported.join(', ')}`);
  },
});

/** The method a recorded server message answers, if it is an answer. */
function answered(ctx: CheckContext, rec: Recorded): string | undefined {
  if (rec.kind !== 'result' && rec.kind !== 'error') return undefined;
  if (rec.requestMethod !== undefined) return rec.requestMethod;
  const m = requestOf(ctx, rec)?.method;
  return typeof m === 'string' ? m : undefined;
}

const modernSchema = modernCheck({
  id: 'modern.schema',
  title: 'every server message validates against schema.json (2026-07-28)',
  clause: `schema.json ${MODERN_SCHEMA}`,
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const all = ctx.traffic.fromServer();
    let first: { rec: Recorded; method: string | undefined; lines: string[] } | undefined;
    let count = 0;
    for (const rec of all) {
      const method = answered(ctx, rec);
      // the answer to a handshake-era initialize (modern.initialize-refused) is not a 2026-07-28 message
      if (rec.kind === 'invalid' || rec.claims.includes('') || method === 'initialize') continue;
      const vs = unclaimed(serverMessageViolations(rec.message, method, MODERN_SCHEMA), rec.claims);
      if (vs.length === 0) continue;
      count++;
      first ??= { rec, method, lines: vs.slice(0, 3).map(describeViolation) };
    }
    if (first === undefined) return pass(`${all.length} messages`);
    const what = first.method !== undefined ? `the ${first.rec.kind === 'error' ? 'error' : 'response'} to ${first.method}` : `a ${first.rec.kind}`;
    const more = count > 1 ? ` (${count} of ${all.length} messages do not validate)` : '';
    return violated(`${what} does not validate against the ${MODERN_SCHEMA} schema: ${first.lines.join('; ')}${more}`, first.rec.message);
  },
});

export { outcomeText };

export const modernChecks: CheckDef[] = [discover, unsupportedVersion, initializeRefused, metaRequired, capabilitiesDeclared, cacheHints, resourceNotFound, subscriptionsListen, extensions];
export const modernAggregates: CheckDef[] = [resultType, inputRequired, modernSchema];
