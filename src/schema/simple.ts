/**
 * The schemas most tools declare — an object of typed properties, some required, maybe an enum,
 * bounds or a nested object or list — answered without ajv: loading ajv, building an instance
 * and compiling one schema costs ~40–60 ms of CPU (more for draft-07, whose meta-schema ajv
 * compiles first), and every `mcpwire call` is a fresh process that checks one tool's arguments.
 *
 * `isSimpleSchema`: the schema uses only the keywords below, each with a value its dialect's
 * meta-schema accepts, and each means the same in 2020-12, 2019-09, draft-07 and draft-06 —
 * so it is a valid schema that ajv compiles (`compileSchema` needs no meta-check or compile to
 * say so). `surelyValid`: the value meets such a schema. It only ever says yes where ajv does; a
 * no means "ask ajv", which gives the problems with its own messages. Formats are never looked
 * at here: a caller that asserts them goes to ajv (test/schema/schema-simple.test.ts compares
 * both with ajv on generated schemas and values).
 */

type Schema = Record<string, unknown>;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isPrimitive = (v: unknown): boolean => v === null || typeof v === 'string' || typeof v === 'boolean' || isNumber(v);
const unique = (a: unknown[]): boolean => new Set(a).size === a.length;
/** A property name ajv would read through the prototype of a plain object (`data.toString`): left to ajv. */
const inherited = (key: string): boolean => key in Object.prototype || key === '__proto__';

/** Keywords that only annotate, with the value their meta-schemas allow. */
const ANNOTATIONS: Record<string, (v: unknown) => boolean> = {
  title: (v) => typeof v === 'string',
  description: (v) => typeof v === 'string',
  $comment: (v) => typeof v === 'string',
  default: () => true,
  examples: Array.isArray,
  deprecated: (v) => typeof v === 'boolean',
  readOnly: (v) => typeof v === 'boolean',
  writeOnly: (v) => typeof v === 'boolean',
  format: (v) => typeof v === 'string',
};

/** Keywords that assert, with the value their meta-schemas allow. */
const ASSERTIONS: Record<string, (v: unknown, depth: number) => boolean> = {
  type: (v) => (typeof v === 'string' ? TYPES.has(v) : Array.isArray(v) && v.length > 0 && unique(v) && v.every((t) => typeof t === 'string' && TYPES.has(t))),
  enum: (v) => Array.isArray(v) && v.length > 0 && unique(v) && v.every(isPrimitive),
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  required: (v) => Array.isArray(v) && unique(v) && v.every((k) => typeof k === 'string' && !inherited(k)),
  properties: (v, depth) => isObj(v) && Object.getPrototypeOf(v) === Object.prototype && Object.entries(v).every(([k, s]) => !inherited(k) && simple(s, depth + 1)),
  additionalProperties: (v, depth) => simple(v, depth + 1),
  items: (v, depth) => !Array.isArray(v) && simple(v, depth + 1), // one schema (draft-07's list form is left to ajv)
};

/** Deeper than this, ajv decides (a schema is untrusted input: no deep recursion here). */
const MAX_DEPTH = 16;

function simple(s: unknown, depth: number): boolean {
  if (typeof s === 'boolean') return true;
  if (!isObj(s) || depth > MAX_DEPTH || Object.getPrototypeOf(s) !== Object.prototype) return false;
  for (const [k, v] of Object.entries(s)) {
    // own keys only: a keyword named `constructor` or `toString` is not one of these
    const assertion = Object.hasOwn(ASSERTIONS, k) ? ASSERTIONS[k] : undefined;
    const annotation = Object.hasOwn(ANNOTATIONS, k) ? ANNOTATIONS[k] : undefined;
    if (assertion !== undefined ? !assertion(v, depth) : annotation === undefined || !annotation(v)) return false;
  }
  return true;
}

/** Whether `schema` (a whole schema, its `$schema` already found supported) keeps to the keywords above. */
export function isSimpleSchema(schema: object): boolean {
  if (!isObj(schema)) return false;
  const { $schema, ...rest } = schema;
  return ($schema === undefined || typeof $schema === 'string') && simple(rest, 0);
}

/** True only when `value` surely meets `schema` (a simple one): false means ajv must say. */
export function surelyValid(schema: unknown, value: unknown): boolean {
  if (typeof schema === 'boolean') return schema;
  const s = schema as Schema;
  if (s.type !== undefined && !(Array.isArray(s.type) ? s.type : [s.type]).some((t) => hasType(value, t as string))) return false;
  if (s.enum !== undefined && !(s.enum as unknown[]).includes(value)) return false;
  if (typeof value === 'number') return number(s, value);
  if (typeof value === 'string') return string(s, value);
  if (Array.isArray(value)) return list(s, value);
  if (isObj(value)) return object(s, value);
  return true;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return isNumber(value);
    case 'integer':
      return isNumber(value) && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    default:
      return isObj(value);
  }
}

function number(s: Schema, n: number): boolean {
  if (!Number.isFinite(n)) return false;
  return !(
    (s.minimum !== undefined && n < (s.minimum as number)) ||
    (s.maximum !== undefined && n > (s.maximum as number)) ||
    (s.exclusiveMinimum !== undefined && n <= (s.exclusiveMinimum as number)) ||
    (s.exclusiveMaximum !== undefined && n >= (s.exclusiveMaximum as number))
  );
}

function string(s: Schema, text: string): boolean {
  if (s.minLength === undefined && s.maxLength === undefined) return true;
  let length = 0; // in code points, as ajv counts
  for (const _ of text) length++;
  return !((s.minLength !== undefined && length < (s.minLength as number)) || (s.maxLength !== undefined && length > (s.maxLength as number)));
}

function list(s: Schema, a: unknown[]): boolean {
  if ((s.minItems !== undefined && a.length < (s.minItems as number)) || (s.maxItems !== undefined && a.length > (s.maxItems as number))) return false;
  if (s.items === undefined) return true;
  for (let i = 0; i < a.length; i++) if (!(i in a) || !surelyValid(s.items, a[i])) return false;
  return true;
}

function object(s: Schema, o: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(o) !== Object.prototype && Object.getPrototypeOf(o) !== null) return false;
  if (Reflect.ownKeys(o).length !== Object.keys(o).length) return false; // a symbol or hidden key: ajv reads what it reads
  const props = (s.properties ?? {}) as Record<string, unknown>;
  for (const k of (s.required ?? []) as string[]) if (!Object.prototype.hasOwnProperty.call(o, k) || o[k] === undefined) return false;
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || inherited(k)) return false;
    const own = Object.prototype.hasOwnProperty.call(props, k) ? props[k] : s.additionalProperties;
    if (own !== undefined && !surelyValid(own, v)) return false;
  }
  return true;
}
