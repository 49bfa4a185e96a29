// What a scenario serves: tools, resources, resource templates, prompts and completions, plus
// the list pagination (opaque cursors) and the capability set derived from them. Pure data
// functions; the message loop lives in mcp-scenario.mjs.

import { BUILTIN_TOOLS, builtinDefinition } from './builtin-tools.mjs';
import { RpcError, INVALID_PARAMS, RESOURCE_NOT_FOUND, isObject } from './rpc.mjs';

/** Keys of a scenario tool entry that are mock configuration, not part of the Tool shown. */
const TOOL_CONFIG_KEYS = ['builtin', 'result', 'error', 'behavior'];
const RESOURCE_CONFIG_KEYS = ['text', 'blob', 'behavior', 'contentMeta'];
const PROMPT_CONFIG_KEYS = ['messages', 'behavior'];

const strip = (o, keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/** Normalizes scenario.tools into [{ def, builtin?, result?, error?, behavior }]. */
export function buildTools(list = []) {
  return list.map((entry) => {
    const t = typeof entry === 'string' ? { name: entry } : entry;
    const builtin = t.builtin ?? (BUILTIN_TOOLS[t.name] && t.result === undefined && t.error === undefined ? t.name : undefined);
    if (builtin !== undefined && !BUILTIN_TOOLS[builtin]) throw new Error(`scenario: unknown builtin tool "${builtin}"`);
    let def = strip(t, TOOL_CONFIG_KEYS);
    if (builtin) def = builtinDefinition(builtin, def);
    else if (!def.inputSchema) def.inputSchema = { type: 'object' };
    const behavior = { ...(builtin && BUILTIN_TOOLS[builtin].ignoreCancel ? { ignoreCancel: true } : {}), ...t.behavior };
    return { def, builtin, result: t.result, error: t.error, behavior };
  });
}

export function buildCatalog(scenario) {
  return {
    tools: buildTools(scenario.tools),
    resources: (scenario.resources ?? []).map((r) => ({ def: strip(r, RESOURCE_CONFIG_KEYS), src: r })),
    templates: (scenario.resourceTemplates ?? []).map((r) => ({ def: strip(r, ['text', 'completions']), src: r })),
    prompts: (scenario.prompts ?? []).map((p) => ({ def: promptDef(p), src: p })),
  };
}

function promptDef(p) {
  const def = strip(p, PROMPT_CONFIG_KEYS);
  if (Array.isArray(def.arguments)) def.arguments = def.arguments.map((a) => strip(a, ['completions']));
  return def;
}

/** ServerCapabilities derived from what is served (an explicit scenario.capabilities wins). */
export function deriveCapabilities(scenario, catalog) {
  if (scenario.capabilities) return scenario.capabilities;
  const caps = {};
  if (scenario.logging !== false) caps.logging = {};
  if (catalog.tools.length) caps.tools = { listChanged: true };
  if (catalog.resources.length || catalog.templates.length) caps.resources = { subscribe: true, listChanged: true };
  if (catalog.prompts.length) caps.prompts = { listChanged: true };
  if (catalog.prompts.length || catalog.templates.length) caps.completions = {};
  return caps;
}

// ---- pagination -------------------------------------------------------------------------------

const encodeCursor = (list, offset, n = 0) => Buffer.from(JSON.stringify({ l: list, o: offset, n })).toString('base64url');

function decodeCursor(list, cursor) {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (c.l === list && Number.isInteger(c.o) && c.o >= 0) return c;
  } catch {
    // fall through
  }
  throw new RpcError(INVALID_PARAMS, `Invalid cursor: ${String(cursor).slice(0, 100)}`);
}

/**
 * One page of `items` for list `list` ("tools", "resources", …). `loop` is a misbehaviour:
 * "wrap" (after the last page, nextCursor points at the first again), "repeat" (nextCursor is
 * always the same cursor: page 2 forever) or "endless" (fresh cursors forever, empty pages).
 */
export function paginate(list, items, params, pageSize, loop) {
  const cursor = params?.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') throw new RpcError(INVALID_PARAMS, 'cursor must be a string');
  const size = pageSize > 0 ? pageSize : loop ? Math.max(1, items.length) : Infinity;
  const c = cursor === undefined ? { o: 0, n: 0 } : decodeCursor(list, cursor);
  const page = items.slice(c.o, c.o + size);
  const next = c.o + size;
  let nextCursor;
  if (next < items.length) nextCursor = encodeCursor(list, next);
  if (loop === 'wrap' && next >= items.length) nextCursor = encodeCursor(list, 0);
  if (loop === 'repeat') nextCursor = cursor ?? encodeCursor(list, Math.min(next, items.length));
  if (loop === 'endless') nextCursor = encodeCursor(list, next, c.n + 1);
  return { page, nextCursor };
}

// ---- resources --------------------------------------------------------------------------------

/** Matches `uri` against an RFC 6570 level-1 template ("mem://notes/{id}"); returns vars or null. */
export function matchTemplate(template, uri) {
  const names = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name) => {
    names.push(name);
    return '([^/]+)';
  });
  const m = new RegExp(`^${pattern}$`).exec(uri);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
}

const fill = (s, vars) => String(s).replace(/\{\{?(\w+)\}?\}/g, (all, k) => (k in vars ? String(vars[k]) : all));

/** resources/read: { contents } for a static resource or a template match; else -32002. */
export function readResource(catalog, uri) {
  const r = catalog.resources.find((x) => x.def.uri === uri);
  if (r) return { contents: [contentOf(uri, r.src, {})], resource: r };
  for (const t of catalog.templates) {
    const vars = matchTemplate(t.def.uriTemplate, uri);
    if (vars) return { contents: [contentOf(uri, { mimeType: t.def.mimeType, text: t.src.text ?? `contents of ${uri}` }, vars)], resource: t };
  }
  throw new RpcError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
}

function contentOf(uri, src, vars) {
  const c = { uri };
  if (src.mimeType) c.mimeType = src.mimeType;
  if (src.blob !== undefined) c.blob = src.blob;
  else c.text = fill(src.text ?? '', vars);
  if (src.contentMeta !== undefined) c._meta = src.contentMeta; // the read content's _meta (MCP Apps: _meta.ui)
  return c;
}

// ---- prompts ----------------------------------------------------------------------------------

/** prompts/get: substitutes {{arg}} in every string of the prompt's messages. */
export function getPrompt(catalog, params) {
  const p = catalog.prompts.find((x) => x.def.name === params.name);
  if (!p) throw new RpcError(INVALID_PARAMS, `Unknown prompt: ${params.name}`);
  const args = params.arguments ?? {};
  if (!isObject(args)) throw new RpcError(INVALID_PARAMS, 'arguments must be an object');
  for (const a of p.def.arguments ?? []) {
    if (a.required && args[a.name] === undefined) throw new RpcError(INVALID_PARAMS, `Missing required argument: ${a.name}`);
  }
  const messages = p.src.messages ?? [{ role: 'user', content: { type: 'text', text: `Prompt ${p.def.name}` } }];
  const result = { messages: substitute(messages, args) };
  if (p.def.description) result.description = p.def.description;
  return result;
}

function substitute(v, args) {
  if (typeof v === 'string') return fill(v, args);
  if (Array.isArray(v)) return v.map((x) => substitute(x, args));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, args)]));
  return v;
}

// ---- completion -------------------------------------------------------------------------------

/** completion/complete: values come from `completions` on a prompt argument or a template. */
export function complete(catalog, params) {
  const { ref, argument } = params;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
    throw new RpcError(INVALID_PARAMS, 'completion/complete needs ref and argument {name, value}');
  }
  let candidates;
  if (ref.type === 'ref/prompt') {
    const p = catalog.prompts.find((x) => x.def.name === ref.name);
    if (!p) throw new RpcError(INVALID_PARAMS, `Unknown prompt: ${ref.name}`);
    candidates = (p.src.arguments ?? []).find((a) => a.name === argument.name)?.completions;
  } else if (ref.type === 'ref/resource') {
    const t = catalog.templates.find((x) => x.def.uriTemplate === ref.uri);
    if (!t) throw new RpcError(INVALID_PARAMS, `Unknown resource template: ${ref.uri}`);
    candidates = t.src.completions?.[argument.name];
  } else {
    throw new RpcError(INVALID_PARAMS, `Unknown ref type: ${ref.type}`);
  }
  const prefix = String(argument.value ?? '');
  const all = (candidates ?? []).map(String).filter((v) => v.startsWith(prefix));
  const values = all.slice(0, 100);
  return { completion: { values, total: all.length, hasMore: all.length > values.length } };
}
