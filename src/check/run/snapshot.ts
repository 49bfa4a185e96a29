/**
 * Surface snapshots (`mcpwire snapshot`): what a server offers — server info, capabilities,
 * tools (with input/output schemas, annotations), resources, resource templates, prompts (with
 * arguments) — normalized (keys sorted, lists sorted by name/uri, `_meta` dropped) so that two
 * snapshots diff cleanly; and the diff, split into breaking changes (a removed tool, a new
 * required argument, a narrowed type, a removed enum value…) and additive ones.
 */
import type { ServerConfig } from '../../transport/create.js';
import { CheckContext, isObject } from '../core/context.js';
import { declared, listAll, type ListMethod } from '../core/lists.js';
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

/** Connects, reads every list (all pages), and returns the normalized surface. */
export async function takeSnapshot(target: ServerConfig, options: { timeoutMs?: number; closeOnExit?: boolean } = {}): Promise<Surface> {
  const ctx = new CheckContext(target, { timeoutMs: options.timeoutMs ?? 10_000, ...(options.closeOnExit ? { closeOnExit: true } : {}) });
  try {
    const s = await ctx.session().catch((err: Error) => {
      throw new Error(`snapshot of ${targetName(target)}: ${err.message.replace(/^blocked: /, '')}`);
    });
    const read = async (m: ListMethod, cap: string): Promise<Record<string, unknown>[]> => {
      if (!declared(s, cap)) return [];
      const l = await listAll(ctx, s, m);
      if (l.failed !== undefined && m !== 'resources/templates/list') throw new Error(`snapshot of ${targetName(target)}: ${m} failed`);
      return l.items;
    };
    const tools = await read('tools/list', 'tools');
    const resources = await read('resources/list', 'resources');
    const resourceTemplates = await read('resources/templates/list', 'resources');
    const prompts = await read('prompts/list', 'prompts');
    const info = s.serverInfo ?? {};
    return normalize({
      snapshotVersion: SNAPSHOT_VERSION,
      ...(s.protocolVersion ? { protocolVersion: s.protocolVersion } : {}),
      serverInfo: Object.fromEntries(['name', 'title', 'version'].filter((k) => info[k] !== undefined).map((k) => [k, info[k]])),
      capabilities: s.capabilities,
      tools: [...tools].sort(by('name')),
      resources: [...resources].sort(by('uri')),
      resourceTemplates: [...resourceTemplates].sort(by('uriTemplate')),
      prompts: [...prompts].map((p) => (Array.isArray(p.arguments) ? { ...p, arguments: [...p.arguments].filter(isObject).sort(by('name')) } : p)).sort(by('name')),
    }) as Surface;
  } finally {
    await ctx.closeAll();
  }
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
