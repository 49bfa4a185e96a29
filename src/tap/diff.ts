/**
 * `mcpwire trace diff a.jsonl b.jsonl`: two sessions compared at the protocol level — the era
 * and negotiated version, the server's name and version, both sides' capabilities, the
 * tool/resource/template/prompt catalogs (added, removed, changed and which fields), error
 * counts per method, and the first exchange (client request and its answer, in order) where they
 * diverge. JSON-RPC ids, progress tokens, timestamps (ISO 8601 strings) and redacted values are
 * ignored, and so are pings (liveness: whether one is sent depends on timing). Latency
 * percentiles per method are reported beside, but are never a difference (two runs never take
 * the same time).
 *
 * Sessions of different eras (`initialize` vs 2026-07-28's `server/discover`) are compared by
 * meaning: the era and version of each are shown but are no difference, the opening exchanges
 * are left out, a request's input_required rounds count as one exchange with its final answer,
 * and the 2026-07-28 envelope (`_meta` keys `io.modelcontextprotocol/…`, `resultType:
 * "complete"`, `inputResponses`, `requestState`) is not compared. Capabilities come from the
 * `initialize` result or the DiscoverResult, the server's name and version from `serverInfo`.
 */
import { eraText, inputRounds, pairExchanges, round3, sessionEras, type Exchange, type SessionEra } from '../trace/read.js';
import { isMessageRecord, type TraceRecord } from '../trace/record.js';
import { REDACTED } from '../trace/redact.js';
import { percentile } from '../trace/stats.js';
import { normalizeParams } from './match.js';

export interface DiffOptions {
  /** Compare only this server's lines (default: every line). */
  server?: string;
}

export interface CatalogDiff {
  added: string[];
  removed: string[];
  changed: Array<{ name: string; fields: string[] }>;
}

export interface ValueChange {
  path: string;
  a?: unknown;
  b?: unknown;
}

export interface LatencyRow {
  method: string;
  a?: { count: number; p50: number; p95: number };
  b?: { count: number; p50: number; p95: number };
}

export interface Divergence {
  /** 1-based position among the client's requests. */
  index: number;
  method?: string;
  what: 'request' | 'response' | 'missing';
  path?: string;
  a?: unknown;
  b?: unknown;
  detail: string;
}

export interface TraceDiff {
  same: boolean;
  /** Each side's era and version (`modern 2026-07-28`, `handshake 2025-11-25`), when the trace shows it. */
  era: { a?: string; b?: string };
  protocolVersion?: { a?: string; b?: string };
  /** Fields of `serverInfo` (name, version…) that differ. */
  serverInfo: ValueChange[];
  serverCapabilities: ValueChange[];
  clientCapabilities: ValueChange[];
  catalogs: { tools: CatalogDiff; resources: CatalogDiff; resourceTemplates: CatalogDiff; prompts: CatalogDiff };
  errors: Array<{ method: string; a: number; b: number }>;
  latency: LatencyRow[];
  firstDivergence?: Divergence;
}

interface Side {
  era?: SessionEra;
  protocolVersion?: string;
  serverInfo?: unknown;
  serverCapabilities?: unknown;
  clientCapabilities?: unknown;
  catalogs: Record<'tools' | 'resources' | 'resourceTemplates' | 'prompts', Map<string, Record<string, unknown>>>;
  errors: Map<string, number>;
  latencies: Map<string, number[]>;
  exchanges: Exchange[];
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Equal for the purposes of a diff: redacted values and timestamps match anything of their kind. */
function equivalent(a: unknown, b: unknown): boolean {
  return firstDifference(a, b, '') === undefined;
}

/** The JSON Pointer of the first place `a` and `b` differ, with both values there. */
export function firstDifference(a: unknown, b: unknown, path: string): ValueChange | undefined {
  if (a === b) return undefined;
  if (a === REDACTED || b === REDACTED) return undefined;
  if (typeof a === 'string' && typeof b === 'string') {
    if (ISO_TIME.test(a) && ISO_TIME.test(b)) return undefined;
    if (a.includes(REDACTED) || b.includes(REDACTED)) {
      const [pattern, other] = a.includes(REDACTED) ? [a, b] : [b, a];
      const re = new RegExp(`^${pattern.split(REDACTED).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
      if (re.test(other)) return undefined;
    }
    return { path: path || '/', a, b };
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length) return { path: `${path}/${i}`, b: b[i] };
      if (i >= b.length) return { path: `${path}/${i}`, a: a[i] };
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d) return d;
    }
    return undefined;
  }
  const oa = obj(a);
  const ob = obj(b);
  if (oa && ob) {
    const keys = [...new Set([...Object.keys(oa), ...Object.keys(ob)])];
    for (const k of keys) {
      const p = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(k in oa)) return { path: p, b: ob[k] };
      if (!(k in ob)) return { path: p, a: oa[k] };
      const d = firstDifference(oa[k], ob[k], p);
      if (d) return d;
    }
    return undefined;
  }
  return { path: path || '/', a, b };
}

/** Every leaf path where two capability objects differ (`tools.listChanged`, `logging`…). */
function capabilityChanges(a: unknown, b: unknown, path = ''): ValueChange[] {
  const oa = obj(a);
  const ob = obj(b);
  if (oa && ob) {
    const out: ValueChange[] = [];
    for (const k of [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort()) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in oa)) out.push({ path: p, b: ob[k] });
      else if (!(k in ob)) out.push({ path: p, a: oa[k] });
      else out.push(...capabilityChanges(oa[k], ob[k], p));
    }
    return out;
  }
  if (a === undefined && b === undefined) return [];
  return equivalent(a, b) ? [] : [{ path: path || '(all)', ...(a !== undefined ? { a } : {}), ...(b !== undefined ? { b } : {}) }];
}

const CATALOG_OF: Record<string, { catalog: keyof Side['catalogs']; list: string; key: string }> = {
  'tools/list': { catalog: 'tools', list: 'tools', key: 'name' },
  'resources/list': { catalog: 'resources', list: 'resources', key: 'uri' },
  'resources/templates/list': { catalog: 'resourceTemplates', list: 'resourceTemplates', key: 'uriTemplate' },
  'prompts/list': { catalog: 'prompts', list: 'prompts', key: 'name' },
};

const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

function summarize(records: TraceRecord[], options: DiffOptions): Side {
  const mine = options.server === undefined ? records : records.filter((r) => r.server === options.server);
  const side: Side = {
    era: sessionEras(mine)[0],
    catalogs: { tools: new Map(), resources: new Map(), resourceTemplates: new Map(), prompts: new Map() },
    errors: new Map(),
    latencies: new Map(),
    exchanges: [],
  };
  for (const ex of pairExchanges(mine).exchanges) {
    const method = String(ex.request.method ?? '?');
    // A ping is liveness: whether one is sent (a keepalive, the era probe's sign-of-life check)
    // depends on timing, so neither it nor its answer is a difference.
    const liveness = method === 'ping';
    if (ex.request.dir === 'out' && !liveness) side.exchanges.push(ex);
    const res = obj(ex.response?.msg);
    if (ex.response?.kind === 'error' && !liveness) side.errors.set(method, (side.errors.get(method) ?? 0) + 1);
    if (ex.latencyMs !== undefined && ex.request.dir === 'out') {
      const l = side.latencies.get(method) ?? [];
      l.push(ex.latencyMs);
      side.latencies.set(method, l);
    }
    if (ex.request.dir !== 'out') continue;
    const params = obj(obj(ex.request.msg)?.params);
    // 2026-07-28: the client's capabilities travel in every request's _meta.
    side.clientCapabilities ??= obj(params?._meta)?.[META_CLIENT_CAPABILITIES];
    const result = obj(res?.result);
    if (!result) continue;
    if (method === 'initialize') {
      side.protocolVersion ??= typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
      side.serverCapabilities ??= result.capabilities;
      side.clientCapabilities ??= params?.capabilities;
      side.serverInfo ??= result.serverInfo;
    } else if (method === 'server/discover') {
      side.serverCapabilities ??= result.capabilities;
    }
    side.serverInfo ??= obj(result._meta)?.[META_SERVER_INFO];
    catalog(side, method, params, result);
  }
  if (side.era?.era === 'modern') side.protocolVersion ??= side.era.version;
  // The input_required rounds of one request are one exchange, answered by the last round.
  for (const chain of inputRounds(side.exchanges)) {
    const [first, ...rounds] = chain;
    const i = side.exchanges.indexOf(first);
    side.exchanges[i] = { request: first.request, response: rounds[rounds.length - 1].response };
    side.exchanges = side.exchanges.filter((e) => !rounds.includes(e));
  }
  return side;
}

function catalog(side: Side, method: string, params: Record<string, unknown> | undefined, result: Record<string, unknown>): void {
  const cat = CATALOG_OF[method];
  if (!cat || !Array.isArray(result[cat.list])) return;
  // A first page (no cursor) starts the catalog afresh: the newest listing wins.
  if (params?.cursor === undefined) side.catalogs[cat.catalog] = new Map();
  for (const item of result[cat.list] as unknown[]) {
    const o = obj(item);
    if (o && typeof o[cat.key] === 'string') side.catalogs[cat.catalog].set(o[cat.key] as string, o);
  }
}

function catalogDiff(a: Map<string, Record<string, unknown>>, b: Map<string, Record<string, unknown>>): CatalogDiff {
  const added = [...b.keys()].filter((k) => !a.has(k)).sort();
  const removed = [...a.keys()].filter((k) => !b.has(k)).sort();
  const changed: CatalogDiff['changed'] = [];
  for (const [name, ia] of a) {
    const ib = b.get(name);
    if (!ib) continue;
    const fields = [...new Set([...Object.keys(ia), ...Object.keys(ib)])].filter((f) => !equivalent(ia[f], ib[f])).sort();
    if (fields.length) changed.push({ name, fields });
  }
  changed.sort((x, y) => x.name.localeCompare(y.name));
  return { added, removed, changed };
}

const ENVELOPE = 'io.modelcontextprotocol/';
/** The openings of each era: compared only between sessions of one era. */
const OPENINGS = new Set(['initialize', 'server/discover']);

/** `o` without the 2026-07-28 envelope in its `_meta` (and without `_meta` when nothing else is left). */
function withoutEnvelope(o: Record<string, unknown>): Record<string, unknown> {
  const meta = obj(o._meta);
  if (!meta) return o;
  const { _meta: _drop, ...rest } = o;
  const kept = Object.entries(meta).filter(([k]) => !k.startsWith(ENVELOPE));
  return kept.length ? { ...rest, _meta: Object.fromEntries(kept) } : rest;
}

/**
 * A message as compared: no id, no progress token, no 2026-07-28 envelope (`_meta` protocol keys,
 * a complete resultType, a retry's inputResponses and requestState); `byMeaning` (sessions of
 * two eras): nor the caching hints a 2026-07-28 list result carries (`ttlMs`, `cacheScope`).
 */
function comparable(msg: unknown, byMeaning: boolean): unknown {
  const o = obj(msg);
  if (!o) return msg;
  const { id: _id, ...rest } = o;
  const params = obj(normalizeParams(rest.params));
  if (params) {
    const { inputResponses: _r, requestState: _s, ...p } = params;
    const kept = withoutEnvelope(p);
    if (Object.keys(kept).length) rest.params = kept;
    else delete rest.params;
  }
  const result = obj(rest.result);
  if (result) {
    const { resultType, ttlMs, cacheScope, ...r } = result;
    const hints = byMeaning ? {} : { ...(ttlMs !== undefined ? { ttlMs } : {}), ...(cacheScope !== undefined ? { cacheScope } : {}) };
    rest.result = withoutEnvelope({ ...r, ...hints, ...(resultType !== 'complete' && resultType !== undefined ? { resultType } : {}) });
  }
  return rest;
}

function divergence(a: Exchange[], b: Exchange[], byMeaning: boolean): Divergence | undefined {
  if (byMeaning) {
    a = a.filter((e) => !OPENINGS.has(String(e.request.method)));
    b = b.filter((e) => !OPENINGS.has(String(e.request.method)));
  }
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const ea = a[i];
    const eb = b[i];
    if (!ea || !eb) {
      const e = (ea ?? eb)!;
      return { index: i + 1, method: e.request.method, what: 'missing', detail: `request #${i + 1} (${e.request.method}) is only in ${ea ? 'a' : 'b'}` };
    }
    const dq = firstDifference(comparable(ea.request.msg, byMeaning), comparable(eb.request.msg, byMeaning), '');
    if (dq) return { index: i + 1, method: ea.request.method, what: 'request', ...dq, detail: `request #${i + 1}: ${ea.request.method} vs ${eb.request.method}${ea.request.method === eb.request.method ? ` (params differ at ${dq.path})` : ''}` };
    const dr = firstDifference(comparable(ea.response?.msg, byMeaning), comparable(eb.response?.msg, byMeaning), '');
    if (dr) return { index: i + 1, method: ea.request.method, what: 'response', ...dr, detail: `answer to request #${i + 1} (${ea.request.method}) differs at ${dr.path}` };
  }
  return undefined;
}

function latencyRow(l: number[] | undefined): LatencyRow['a'] {
  if (!l || l.length === 0) return undefined;
  const s = [...l].sort((x, y) => x - y);
  return { count: s.length, p50: round3(percentile(s, 50)!), p95: round3(percentile(s, 95)!) };
}

/** Compares two traces (records in file order). */
export function diffTraces(a: TraceRecord[], b: TraceRecord[], options: DiffOptions = {}): TraceDiff {
  const sa = summarize(a, options);
  const sb = summarize(b, options);
  const errors: TraceDiff['errors'] = [];
  for (const m of [...new Set([...sa.errors.keys(), ...sb.errors.keys()])].sort()) {
    const x = sa.errors.get(m) ?? 0;
    const y = sb.errors.get(m) ?? 0;
    if (x !== y) errors.push({ method: m, a: x, b: y });
  }
  const latency: LatencyRow[] = [...new Set([...sa.latencies.keys(), ...sb.latencies.keys()])].sort().map((method) => {
    const row: LatencyRow = { method };
    const ra = latencyRow(sa.latencies.get(method));
    const rb = latencyRow(sb.latencies.get(method));
    if (ra) row.a = ra;
    if (rb) row.b = rb;
    return row;
  });
  const catalogs = {
    tools: catalogDiff(sa.catalogs.tools, sb.catalogs.tools),
    resources: catalogDiff(sa.catalogs.resources, sb.catalogs.resources),
    resourceTemplates: catalogDiff(sa.catalogs.resourceTemplates, sb.catalogs.resourceTemplates),
    prompts: catalogDiff(sa.catalogs.prompts, sb.catalogs.prompts),
  };
  // Different eras: compared by meaning, the era (and so the version) shown but no difference.
  const byMeaning = sa.era !== undefined && sb.era !== undefined && sa.era.era !== sb.era.era;
  const out: TraceDiff = {
    same: true,
    era: { ...(sa.era ? { a: eraText(sa.era) } : {}), ...(sb.era ? { b: eraText(sb.era) } : {}) },
    serverInfo: capabilityChanges(sa.serverInfo, sb.serverInfo),
    serverCapabilities: capabilityChanges(sa.serverCapabilities, sb.serverCapabilities),
    clientCapabilities: capabilityChanges(sa.clientCapabilities, sb.clientCapabilities),
    catalogs,
    errors,
    latency,
  };
  if (!byMeaning && sa.protocolVersion !== sb.protocolVersion) out.protocolVersion = { a: sa.protocolVersion, b: sb.protocolVersion };
  const first = divergence(sa.exchanges, sb.exchanges, byMeaning);
  if (first) out.firstDivergence = first;
  out.same =
    out.protocolVersion === undefined &&
    out.serverInfo.length === 0 &&
    out.serverCapabilities.length === 0 &&
    out.clientCapabilities.length === 0 &&
    Object.values(catalogs).every((c) => c.added.length === 0 && c.removed.length === 0 && c.changed.length === 0) &&
    errors.length === 0 &&
    first === undefined;
  return out;
}

function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}

/** Plain text; `safe` makes untrusted trace text safe for a terminal. */
export function formatDiff(d: TraceDiff, safe: (s: unknown, max?: number) => string = (s) => String(s)): string {
  const lines: string[] = [];
  if (d.era.a !== undefined || d.era.b !== undefined) {
    const [a, b] = [safe(d.era.a ?? '(not shown)'), safe(d.era.b ?? '(not shown)')];
    lines.push(a === b ? `era: ${a}` : `era: ${a} → ${b}${d.era.a !== undefined && d.era.b !== undefined && d.era.a.split(' ')[0] !== d.era.b.split(' ')[0] ? ' (compared by meaning)' : ''}`);
  }
  if (d.protocolVersion) lines.push(`protocol version: ${safe(d.protocolVersion.a ?? '(none)')} → ${safe(d.protocolVersion.b ?? '(none)')}`);
  for (const [label, changes] of [['server info', d.serverInfo], ['server capabilities', d.serverCapabilities], ['client capabilities', d.clientCapabilities]] as const) {
    if (!changes.length) continue;
    lines.push(`${label}:`);
    for (const c of changes) {
      if (c.a === undefined) lines.push(`  + ${safe(c.path)} ${safe(show(c.b))}`);
      else if (c.b === undefined) lines.push(`  - ${safe(c.path)} ${safe(show(c.a))}`);
      else lines.push(`  ~ ${safe(c.path)}: ${safe(show(c.a))} → ${safe(show(c.b))}`);
    }
  }
  const labels = { tools: 'tools', resources: 'resources', resourceTemplates: 'resource templates', prompts: 'prompts' } as const;
  for (const [key, label] of Object.entries(labels) as Array<[keyof TraceDiff['catalogs'], string]>) {
    const c = d.catalogs[key];
    if (!c.added.length && !c.removed.length && !c.changed.length) continue;
    lines.push(`${label}:`);
    for (const n of c.added) lines.push(`  + ${safe(n)}`);
    for (const n of c.removed) lines.push(`  - ${safe(n)}`);
    for (const ch of c.changed) lines.push(`  ~ ${safe(ch.name)} (${ch.fields.map((f) => safe(f, 40)).join(', ')} changed)`);
  }
  if (d.errors.length) {
    lines.push('errors per method:');
    for (const e of d.errors) lines.push(`  ${safe(e.method)}: ${e.a} → ${e.b}`);
  }
  if (d.firstDivergence) {
    const f = d.firstDivergence;
    lines.push(`first diverging exchange: ${safe(f.detail, 200)}`);
    if (f.what !== 'missing') lines.push(`  a: ${safe(show(f.a), 120)}`, `  b: ${safe(show(f.b), 120)}`);
  }
  if (d.same) lines.push('no protocol-level difference');
  if (d.latency.length) {
    lines.push('', 'latency (ms, p50/p95, not compared):');
    const w = Math.max(6, ...d.latency.map((r) => safe(r.method, 50).length));
    const cell = (x: LatencyRow['a']) => (x ? `${x.p50.toFixed(1)}/${x.p95.toFixed(1)} (${x.count})` : '-');
    lines.push(`  ${'method'.padEnd(w)}  ${'a'.padEnd(20)}  b`);
    for (const r of d.latency) lines.push(`  ${safe(r.method, 50).padEnd(w)}  ${cell(r.a).padEnd(20)}  ${cell(r.b)}`);
  }
  return lines.join('\n');
}
