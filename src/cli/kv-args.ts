/**
 * Tool arguments typed on a command line: `key=value` pairs, each value read as the type the
 * tool's `inputSchema` gives that property — numbers (`a=2`), booleans (`flag=true`), JSON for
 * objects and arrays (`tags='["x"]'`), strings as written (`text=123` stays "123" for a string).
 * A property the schema does not describe is read as JSON when it parses as a number, boolean,
 * null, object or array, else as a string. Then the whole object is validated against the
 * schema (the one schema module, through host-api) so a mistake is reported naming the field,
 * before the call is sent.
 */
import { validateValue } from '../host-api.js';
import { UsageError } from './args.js';
import { safeText } from './output.js';
import { signature } from './signature.js';
import { didYouMean } from './suggest.js';

type Schema = Record<string, unknown>;
const isObj = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a positional looks like `key=value`. */
export function isKeyValue(arg: string): boolean {
  return /^[^=\s]+=/.test(arg);
}

/** The JSON types a property schema allows (empty: unknown). */
function typesOf(prop: unknown): Set<string> {
  const out = new Set<string>();
  if (!isObj(prop)) return out;
  if (typeof prop.type === 'string') out.add(prop.type);
  if (Array.isArray(prop.type)) for (const t of prop.type) if (typeof t === 'string') out.add(t);
  if (Array.isArray(prop.enum)) for (const v of prop.enum) out.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  for (const key of ['anyOf', 'oneOf']) {
    const list = prop[key];
    if (Array.isArray(list)) for (const s of list) for (const t of typesOf(s)) out.add(t);
  }
  return out;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** One value typed by its property schema. */
export function typedValue(key: string, text: string, prop: unknown): unknown {
  const types = typesOf(prop);
  if (types.size === 0 || (types.has('string') && types.size > 1)) {
    if (types.has('string') && !/^[[{]/.test(text.trim())) {
      // a string, unless the text is a number/boolean the schema also allows
      const j = tryJson(text);
      if (j.ok && types.has(j.value === null ? 'null' : typeof j.value)) return j.value;
      return text;
    }
    const j = tryJson(text);
    return j.ok && (typeof j.value !== 'string') ? j.value : text;
  }
  if (types.has('string')) return text;
  if (types.has('number') || types.has('integer')) {
    const n = text.trim() === '' ? NaN : Number(text);
    if (Number.isFinite(n)) return n;
  }
  if (types.has('boolean')) {
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  if (types.has('null') && text === 'null') return null;
  if (types.has('object') || types.has('array')) {
    const j = tryJson(text);
    if (j.ok) return j.value;
    throw new UsageError(`argument "${safeText(key, 64)}" must be JSON (${[...types].join(' or ')}); got text that does not parse`);
  }
  throw new UsageError(`argument "${safeText(key, 64)}" must be ${[...types].join(' or ')} (got ${JSON.stringify(safeText(text, 40))})`);
}

/** `key=value` pairs typed by `inputSchema` (see the module comment). A repeated key is an error. */
export function keyValueArgs(pairs: readonly string[], inputSchema: unknown): Record<string, unknown> {
  const props = isObj(inputSchema) && isObj(inputSchema.properties) ? inputSchema.properties : {};
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new UsageError(`arguments are <key>=<value> pairs (got ${JSON.stringify(safeText(pair, 40))})`);
    const key = pair.slice(0, i);
    if (Object.hasOwn(out, key)) throw new UsageError(`argument "${safeText(key, 64)}" given twice`);
    out[key] = typedValue(key, pair.slice(i + 1), props[key]);
  }
  return out;
}

/**
 * The arguments `args` gives that the schema does not declare: not in `properties` nor matched
 * by a `patternProperties` pattern. Whatever `additionalProperties` allows, such a name is most
 * likely a typo (`heda=1` for `head=1`) that the server would ignore or reject late.
 */
export function undeclaredArgs(inputSchema: Schema, args: Record<string, unknown>): string[] {
  const props = isObj(inputSchema.properties) ? Object.keys(inputSchema.properties) : [];
  const patterns = isObj(inputSchema.patternProperties) ? Object.keys(inputSchema.patternProperties) : [];
  const matches = (key: string) =>
    patterns.some((p) => {
      try {
        return new RegExp(p, 'u').test(key);
      } catch {
        return false;
      }
    });
  return Object.keys(args).filter((k) => !props.includes(k) && !matches(k));
}

/**
 * Checks `args` against the tool's input schema and throws a UsageError naming each bad field
 * (unknown fields get a "did you mean"), with the tool's signature; nothing has been sent yet.
 * An argument the schema does not declare is refused unless `allowExtra` (`--allow-extra`).
 * A schema the module cannot use is not the user's mistake: the call goes on (the server decides).
 */
export function checkArgs(tool: { name: string; inputSchema?: unknown; outputSchema?: unknown }, args: Record<string, unknown>, options: { allowExtra?: boolean } = {}): void {
  if (!isObj(tool.inputSchema)) return;
  const props = isObj(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties) : [];
  const check = validateValue(tool.inputSchema, args);
  if (check.schemaError !== undefined) return;
  const extra = options.allowExtra === true ? [] : undeclaredArgs(tool.inputSchema, args);
  const problems = check.problems;
  if (extra.length === 0 && problems.length === 0) return;
  const unknown = (keys: string[]) => keys.map((k) => `unknown argument "${safeText(k, 64)}"${didYouMean(k, props)}`).join('; ');
  const lines = problems.slice(0, 10).map((p) => {
    const field = p.path === '/' || p.path === '' ? undefined : p.path.replace(/^\//, '').replace(/\//g, '.');
    const required = /must have required property '([^']+)'/.exec(p.message);
    if (required) return `missing required argument "${safeText(field ? `${field}.${required[1]}` : required[1], 64)}"`;
    const additional = /must NOT have additional properties/.test(p.message) ? Object.keys(args).filter((k) => !props.includes(k)) : [];
    if (additional.length > 0 && field === undefined) return extra.length > 0 ? '' : unknown(additional);
    return `argument "${safeText(field ?? '(root)', 64)}" ${safeText(p.message, 200)}`;
  });
  if (extra.length > 0) lines.unshift(`${unknown(extra)} (the tool does not declare ${extra.length === 1 ? 'it' : 'them'}; --allow-extra sends ${extra.length === 1 ? 'it' : 'them'} anyway)`);
  throw new UsageError(`invalid arguments for tool "${safeText(tool.name, 64)}": ${[...new Set(lines.filter(Boolean))].join('; ')}; nothing was sent\n  usage: ${signature(tool)}`);
}
