/**
 * Surface snapshots (`mcpwire snapshot`): what a server offers — server info, capabilities,
 * tools (with input/output schemas, annotations), resources, resource templates, prompts (with
 * arguments) — normalized (keys sorted, lists sorted by name/uri, `_meta` dropped) so that two
 * snapshots diff cleanly; and the diff, split into breaking changes (a removed tool, a new
 * required argument, a narrowed type, a removed enum value…) and additive ones.
 */
import type { ServerConfig } from '../../transport/create.js';
import { CheckContext, isObject } from '../core/context.js';
import { LIST_KEY, listAll, MAX_PAGES, type ListMethod } from '../core/lists.js';
import { META_SERVER_INFO } from '../core/modern-wire.js';
import { describeOutcome } from '../core/probe.js';
import { NEWEST_HANDSHAKE } from '../core/revisions.js';
import { chooseEra, initializeRefusal } from './era.js';
import { targetName } from './runner.js';

export const SNAPSHOT_VERSION = 1;

export interface Surface {
  snapshotVersion: number;
  protocolVersion?: string;
  serverInfo: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  tools: Record<string, unknown>[];
  resources: Record<string, unknown>[];
  resourceTemplates: Record<string, unknown>[];
  prompts: Record<string, unknown>[];
}

/** Deep copy with object keys sorted and `_meta` dropped. */
export function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) if (k !== '_meta') out[k] = normalize(v[k]);
  return out;
}

const by = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) => String(a[key]).localeCompare(String(b[key]));

/** What a snapshot reads from a server, in either era. */
interface Offered {
  protocolVersion: string | undefined;
  serverInfo: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  list: (m: ListMethod) => Promise<Record<string, unknown>[]>;
}

export interface SnapshotOptions {
  timeoutMs?: number;
  closeOnExit?: boolean;
  /** Pins the protocol version and so the era (default: `server/discover` first, as the client chooses). */
  protocolVersion?: string;
}

/**
 * Connects, reads every list (all pages), and returns the normalized surface. The era is chosen
 * as `check` chooses it (src/check/era.ts): a 2026-07-28 server is read statelessly
 * (`server/discover`, then each declared list with its per-request `_meta`), any other one
 * through an `initialize` session.
 */
export async function takeSnapshot(target: ServerConfig, options: SnapshotOptions = {}): Promise<Surface> {
  const pinned = options.protocolVersion;
  const ctx = new CheckContext(target, { timeoutMs: options.timeoutMs ?? 10_000, ...(options.closeOnExit ? { closeOnExit: true } : {}), ...(pinned !== undefined ? { protocolVersion: pinned } : {}) });
  const fail = (what: string): Error => new Error(`snapshot of ${targetName(target)}: ${what}`);
  try {
    const era = await chooseEra(ctx, pinned);
    if (era.refused !== undefined) throw fail(era.refused.detail);
    ctx.era = era.era;
    ctx.version = era.version;
    ctx.discover = era.discover;
    const offered = era.era === 'modern' ? await modernOffer(ctx, era.discover, fail) : await handshakeOffer(ctx, pinned, fail);
    const read = async (m: ListMethod, cap: string): Promise<Record<string, unknown>[]> => (isObject(offered.capabilities[cap]) ? offered.list(m) : []);
    const tools = await read('tools/list', 'tools');
    const resources = await read('resources/list', 'resources');
    const resourceTemplates = await read('resources/templates/list', 'resources').catch(() => []);
    const prompts = await read('prompts/list', 'prompts');
    const info = offered.serverInfo;
    return normalize({
      snapshotVersion: SNAPSHOT_VERSION,
      ...(offered.protocolVersion ? { protocolVersion: offered.protocolVersion } : {}),
      serverInfo: Object.fromEntries(['name', 'title', 'version'].filter((k) => info[k] !== undefined).map((k) => [k, info[k]])),
      capabilities: offered.capabilities,
      tools: [...tools].sort(by('name')),
      resources: [...resources].sort(by('uri')),
      resourceTemplates: [...resourceTemplates].sort(by('uriTemplate')),
      prompts: [...prompts].map((p) => (Array.isArray(p.arguments) ? { ...p, arguments: [...p.arguments].filter(isObject).sort(by('name')) } : p)).sort(by('name')),
    }) as Surface;
  } finally {
    await ctx.closeAll();
  }
}

/** The handshake era: one `initialize` session, its lists read page by page. */
async function handshakeOffer(ctx: CheckContext, pinned: string | undefined, fail: (what: string) => Error): Promise<Offered> {
  const s = await ctx.session().catch((err: Error) => {
    // a -32022 naming other versions is a refused version, said as such; `check`'s pointer to its own check is not for snapshot
    throw fail(initializeRefusal(ctx, pinned ?? NEWEST_HANDSHAKE)?.detail ?? err.message.replace(/^blocked: /, '').replace(/; see [\w.-]+$/, ''));
  });
  return {
    protocolVersion: s.protocolVersion,
    serverInfo: s.serverInfo ?? {},
    capabilities: s.capabilities,
    list: async (m) => {
      const l = await listAll(ctx, s, m);
      if (l.failed !== undefined) throw fail(`${m} failed`);
      return l.items;
    },
  };
}

/** The 2026-07-28 era: the DiscoverResult, then each list with its per-request `_meta`. */
async function modernOffer(ctx: CheckContext, discover: Record<string, unknown> | undefined, fail: (what: string) => Error): Promise<Offered> {
  const wire = ctx.wire();
  let d = discover;
  if (d === undefined) {
    const a = await wire.send('server/discover');
    if (a.outcome.kind !== 'result') throw fail(`server/discover got ${describeOutcome(a.outcome)}`);
    d = a.outcome.result;
  }
  const info = isObject(d._meta) ? d._meta[META_SERVER_INFO] : undefined;
  return {
    protocolVersion: wire.version,
    serverInfo: isObject(info) ? info : {},
    capabilities: isObject(d.capabilities) ? d.capabilities : {},
    list: async (m) => {
      const items: Record<string, unknown>[] = [];
      const seen = new Set<string>();
      let cursor: unknown;
      for (let page = 1; page <= MAX_PAGES; page++) {
        const a = await wire.send(m, cursor === undefined ? {} : { cursor });
        if (a.outcome.kind !== 'result') throw fail(`${m} got ${describeOutcome(a.outcome)}`);
        const arr = a.outcome.result[LIST_KEY[m]];
        if (!Array.isArray(arr)) throw fail(`${m} answered no "${LIST_KEY[m]}" list`);
        items.push(...arr.filter(isObject));
        const next = a.outcome.result.nextCursor;
        if (next === undefined || next === null || seen.has(JSON.stringify(next))) return items;
        seen.add(JSON.stringify(next));
        cursor = next;
      }
      return items;
    },
  };
}

// ---- diff ------------------------------------------------------------------------------------

export type ChangeKind = 'breaking' | 'additive' | 'other';

export interface Change {
  kind: ChangeKind;
  /** Where: `tools/echo/inputSchema/properties/text`. */
  path: string;
  message: string;
}

export interface SurfaceDiff {
  breaking: Change[];
  additive: Change[];
  other: Change[];
}

function types(schema: Record<string, unknown>): Set<string> | undefined {
  const t = schema.type;
  if (typeof t === 'string') return new Set(t === 'number' ? ['number', 'integer'] : [t]);
  if (Array.isArray(t)) return new Set(t.flatMap((x) => (x === 'number' ? ['number', 'integer'] : [String(x)])));
  return undefined; // any type
}

const requiredOf = (s: Record<string, unknown>) => new Set(Array.isArray(s.required) ? s.required.map(String) : []);
const propsOf = (s: Record<string, unknown>) => (isObject(s.properties) ? s.properties : {});

/**
 * Compares two JSON Schemas. `input`: what clients send (narrowing breaks callers);
 * `output`: what clients receive (removing or widening breaks consumers).
 */
function compareSchema(a: unknown, b: unknown, path: string, mode: 'input' | 'output', out: Change[], depth = 0): void {
  if (depth > 8) return;
  if (!isObject(a) || !isObject(b)) {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ kind: a === undefined ? 'additive' : 'breaking', path, message: a === undefined ? 'schema added' : b === undefined ? 'schema removed' : 'schema replaced' });
    return;
  }
  const ta = types(a);
  const tb = types(b);
  if (ta !== undefined || tb !== undefined) {
    const narrowed = tb !== undefined && (ta === undefined || [...ta].some((t) => !tb.has(t)));
    const widened = ta !== undefined && (tb === undefined || [...tb].some((t) => !ta.has(t)));
    if (narrowed || widened) {
      const breaking = mode === 'input' ? narrowed : widened;
      out.push({ kind: breaking ? 'breaking' : 'additive', path, message: `type ${narrowed && !widened ? 'narrowed' : widened && !narrowed ? 'widened' : 'changed'}: ${JSON.stringify(a.type ?? 'any')} → ${JSON.stringify(b.type ?? 'any')}` });
    }
  }
  if (Array.isArray(a.enum) || Array.isArray(b.enum)) {
    const ea = new Set((Array.isArray(a.enum) ? a.enum : []).map((x) => JSON.stringify(x)));
    const eb = new Set((Array.isArray(b.enum) ? b.enum : []).map((x) => JSON.stringify(x)));
    const removed = Array.isArray(b.enum) ? [...ea].filter((x) => !eb.has(x)) : [];
    const added = Array.isArray(a.enum) ? [...eb].filter((x) => !ea.has(x)) : [];
    if (!Array.isArray(a.enum) && Array.isArray(b.enum)) out.push({ kind: mode === 'input' ? 'breaking' : 'additive', path, message: `now restricted to enum ${[...eb].join(', ')}` });
    if (removed.length > 0) out.push({ kind: mode === 'input' ? 'breaking' : 'additive', path, message: `enum value(s) removed: ${removed.join(', ')}` });
    if (added.length > 0) out.push({ kind: mode === 'input' ? 'additive' : 'breaking', path, message: `enum value(s) added: ${added.join(', ')}` });
  }
  const pa = propsOf(a);
  const pb = propsOf(b);
  const ra = requiredOf(a);
  const rb = requiredOf(b);
  for (const k of Object.keys(pa)) {
    if (!(k in pb)) out.push({ kind: 'breaking', path: `${path}/properties/${k}`, message: mode === 'input' ? `argument "${k}" removed` : `output field "${k}" removed` });
  }
  for (const k of Object.keys(pb)) {
    if (!(k in pa)) {
      const req = rb.has(k);
      out.push({ kind: mode === 'input' && req ? 'breaking' : 'additive', path: `${path}/properties/${k}`, message: mode === 'input' ? `${req ? 'new required' : 'new optional'} argument "${k}"` : `new output field "${k}"` });
    } else compareSchema(pa[k], pb[k], `${path}/properties/${k}`, mode, out, depth + 1);
  }
  for (const k of rb) if (!ra.has(k) && k in pa) out.push({ kind: mode === 'input' ? 'breaking' : 'additive', path: `${path}/required`, message: mode === 'input' ? `argument "${k}" is now required` : `output field "${k}" is now always present` });
  for (const k of ra) if (!rb.has(k) && k in pb) out.push({ kind: mode === 'input' ? 'additive' : 'breaking', path: `${path}/required`, message: mode === 'input' ? `argument "${k}" is now optional` : `output field "${k}" may now be absent` });
  if (a.additionalProperties !== false && b.additionalProperties === false && mode === 'input') out.push({ kind: 'breaking', path, message: 'additional properties are no longer accepted' });
  if (isObject(a.items) || isObject(b.items)) compareSchema(a.items, b.items, `${path}/items`, mode, out, depth + 1);
}

function keyed(list: unknown, key: string): Map<string, Record<string, unknown>> {
  const m = new Map<string, Record<string, unknown>>();
  for (const x of Array.isArray(list) ? list : []) if (isObject(x)) m.set(String(x[key]), x);
  return m;
}

/** Breaking vs additive changes from `a` (old) to `b` (new). */
export function diffSurfaces(a: Surface, b: Surface): SurfaceDiff {
  const out: Change[] = [];
  const capsA = isObject(a.capabilities) ? a.capabilities : {};
  const capsB = isObject(b.capabilities) ? b.capabilities : {};
  for (const k of Object.keys(capsA)) if (!(k in capsB)) out.push({ kind: 'breaking', path: `capabilities/${k}`, message: `capability "${k}" removed` });
  for (const k of Object.keys(capsB)) if (!(k in capsA)) out.push({ kind: 'additive', path: `capabilities/${k}`, message: `capability "${k}" added` });
  if (a.protocolVersion !== b.protocolVersion) out.push({ kind: 'other', path: 'protocolVersion', message: `${String(a.protocolVersion)} → ${String(b.protocolVersion)}` });
  if (JSON.stringify(a.serverInfo) !== JSON.stringify(b.serverInfo)) out.push({ kind: 'other', path: 'serverInfo', message: `${JSON.stringify(a.serverInfo)} → ${JSON.stringify(b.serverInfo)}` });

  const ta = keyed(a.tools, 'name');
  const tb = keyed(b.tools, 'name');
  for (const [name, t] of ta) {
    const u = tb.get(name);
    const p = `tools/${name}`;
    if (u === undefined) {
      out.push({ kind: 'breaking', path: p, message: `tool "${name}" removed` });
      continue;
    }
    compareSchema(t.inputSchema, u.inputSchema, `${p}/inputSchema`, 'input', out);
    if (t.outputSchema !== undefined || u.outputSchema !== undefined) compareSchema(t.outputSchema, u.outputSchema, `${p}/outputSchema`, 'output', out);
    const ea = isObject(t.execution) ? t.execution.taskSupport : undefined;
    const eb = isObject(u.execution) ? u.execution.taskSupport : undefined;
    if (ea !== eb) out.push({ kind: eb === 'required' || (eb ?? 'forbidden') === 'forbidden' ? 'breaking' : 'additive', path: `${p}/execution/taskSupport`, message: `${JSON.stringify(ea ?? 'forbidden')} → ${JSON.stringify(eb ?? 'forbidden')}` });
    if (t.description !== u.description || t.title !== u.title || JSON.stringify(t.annotations) !== JSON.stringify(u.annotations)) out.push({ kind: 'other', path: p, message: 'description, title or annotations changed' });
  }
  for (const name of tb.keys()) if (!ta.has(name)) out.push({ kind: 'additive', path: `tools/${name}`, message: `tool "${name}" added` });

  for (const [list, key, what] of [['resources', 'uri', 'resource'], ['resourceTemplates', 'uriTemplate', 'resource template']] as const) {
    const ma = keyed(a[list], key);
    const mb = keyed(b[list], key);
    for (const k of ma.keys()) if (!mb.has(k)) out.push({ kind: 'breaking', path: `${list}/${k}`, message: `${what} "${k}" removed` });
    for (const k of mb.keys()) if (!ma.has(k)) out.push({ kind: 'additive', path: `${list}/${k}`, message: `${what} "${k}" added` });
    for (const [k, x] of ma) {
      const y = mb.get(k);
      if (y !== undefined && x.mimeType !== y.mimeType) out.push({ kind: 'breaking', path: `${list}/${k}/mimeType`, message: `${String(x.mimeType)} → ${String(y.mimeType)}` });
    }
  }

  const pa = keyed(a.prompts, 'name');
  const pb = keyed(b.prompts, 'name');
  for (const [name, p] of pa) {
    const q = pb.get(name);
    const path = `prompts/${name}`;
    if (q === undefined) {
      out.push({ kind: 'breaking', path, message: `prompt "${name}" removed` });
      continue;
    }
    const aa = keyed(p.arguments, 'name');
    const ab = keyed(q.arguments, 'name');
    for (const k of aa.keys()) if (!ab.has(k)) out.push({ kind: 'breaking', path: `${path}/arguments/${k}`, message: `argument "${k}" removed` });
    for (const [k, arg] of ab) {
      const old = aa.get(k);
      if (old === undefined) out.push({ kind: arg.required === true ? 'breaking' : 'additive', path: `${path}/arguments/${k}`, message: `${arg.required === true ? 'new required' : 'new optional'} argument "${k}"` });
      else if (old.required !== true && arg.required === true) out.push({ kind: 'breaking', path: `${path}/arguments/${k}`, message: `argument "${k}" is now required` });
      else if (old.required === true && arg.required !== true) out.push({ kind: 'additive', path: `${path}/arguments/${k}`, message: `argument "${k}" is now optional` });
    }
  }
  for (const name of pb.keys()) if (!pa.has(name)) out.push({ kind: 'additive', path: `prompts/${name}`, message: `prompt "${name}" added` });

  return { breaking: out.filter((c) => c.kind === 'breaking'), additive: out.filter((c) => c.kind === 'additive'), other: out.filter((c) => c.kind === 'other') };
}

/** Checks that a parsed file looks like a snapshot. */
export function asSurface(v: unknown, what: string): Surface {
  if (!isObject(v) || v.snapshotVersion !== SNAPSHOT_VERSION || !Array.isArray(v.tools)) throw new Error(`${what} is not an mcpwire surface snapshot (snapshotVersion ${SNAPSHOT_VERSION}; make one with "mcpwire snapshot <server> -o file.json")`);
  return v as unknown as Surface;
}
