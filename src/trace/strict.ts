/**
 * Strict mode: every message, both directions, checked against the spec's normative schema of
 * its session's revision (`schema/2025-11-25.schema.json` for the handshake era,
 * `schema/2026-07-28.schema.json` for the stateless one; JSON Schema 2020-12). Violations are
 * data, never thrown. `StrictChecker` finds the revision in the messages themselves: an
 * `initialize` (its `protocolVersion`) or a request carrying `_meta`
 * `io.modelcontextprotocol/protocolVersion`; an answer is checked with its request's schema.
 *
 * - requests/notifications: the spec `$def` for that method within the sender's union
 *   (`ClientRequest`/`ClientNotification` going out, `ServerRequest`/`ServerNotification`
 *   coming in); a method outside the union is itself a violation (then the JSON-RPC envelope is
 *   checked);
 * - results: the `JSONRPCResultResponse` envelope, then `result` against the result type of
 *   the request it answers (`tools/list` → `ListToolsResult`, built from the schema: the
 *   request `$def` `FooRequest` answers with `FooResult`, else `EmptyResult`; a task-augmented
 *   request may answer with `CreateTaskResult`; in 2026-07-28 `resultType` `input_required` is an
 *   `InputRequiredResult`, and a `resultType` the core schema does not define, an extension's
 *   (basic#9), only the common `Result`); unknown method → `ClientResult`/`ServerResult`;
 * - errors: `JSONRPCErrorResponse`; anything else: `JSONRPCMessage`.
 *
 * Each schema is read once, lazily, on first use. Its validators are the code the build
 * generated for it (dist/schema/spec-<revision>.cjs, scripts/spec-validators.mjs: ajv's standalone
 * code, `format` asserted: strict means strict), so a process compiles nothing; without a build
 * the one JSON Schema module (src/schema/) compiles the schema in an ajv instance of its own, each
 * `$def` on first use, with the same answers (test/trace/spec-validators.test.ts compares both).
 * Either way an error's `schemaPath` is its rule's place in the schema file. This module is only
 * imported when strict mode is on.
 */
import { readFileSync } from 'node:fs';
import { packageFile } from '../util/package-files.js';
import { generatedSchemaDocument, openSchemaDocument, type DocumentValidator, type ErrorObject, type SchemaDocument } from '../schema/index.js';
import { META_PROTOCOL_VERSION } from './read.js';

/** The revisions whose schema ships in schema/ (`<version>.schema.json`). */
export const SCHEMA_VERSIONS = ['2025-11-25', '2026-07-28'] as const;
export type SchemaVersion = (typeof SCHEMA_VERSIONS)[number];
/** The handshake era's schema: the default until a message names a revision. */
export const SCHEMA_VERSION: SchemaVersion = SCHEMA_VERSIONS[0];
/** The stateless era's schema (`server/discover`, per-request `_meta`). */
export const MODERN_SCHEMA_VERSION: SchemaVersion = SCHEMA_VERSIONS[1];
const schemaFile = (version: SchemaVersion) => packageFile('schema', `${version}.schema.json`);
/** The build's generated validators of a revision's schema (scripts/spec-validators.mjs). */
const generatedFile = (version: SchemaVersion) => packageFile('dist', 'schema', `spec-${version}.cjs`);

/**
 * The schema for a session of `era` at `version`: that revision's own when shipped, else the
 * era's (a handshake revision before 2025-11-25 is checked against 2025-11-25, as before).
 */
export function schemaVersionFor(era: 'modern' | 'handshake', version?: string): SchemaVersion {
  const known = SCHEMA_VERSIONS.find((v) => v === version);
  if (known !== undefined) return known;
  return era === 'modern' ? MODERN_SCHEMA_VERSION : SCHEMA_VERSION;
}
const MAX_VIOLATIONS_PER_MESSAGE = 20;

export type Direction = 'in' | 'out';

export interface ValidateInfo {
  kind?: string;
  method?: string;
  id?: string | number | null;
  /** For results/errors: the method of the request they answer. */
  requestMethod?: string;
  /** The revision whose schema applies (default SCHEMA_VERSION). */
  schema?: SchemaVersion;
}

/** One schema violation in one message. */
export interface Violation {
  dir: Direction;
  /** The message's kind by shape: request, notification, result, error or invalid. */
  kind: string;
  /** Requests/notifications: their method; results: the method of the request answered. */
  method?: string;
  id?: string | number | null;
  /** The `$def` the message was checked against, e.g. `ListToolsResult`. */
  schemaType: string;
  /** The revision of the schema that `schemaType` and `schemaPath` are in. */
  schema?: SchemaVersion;
  /** JSON Pointer into the message, e.g. `/result/tools/0`. */
  instancePath: string;
  /** The failing schema rule, e.g. `#/$defs/Tool/required`. */
  schemaPath: string;
  keyword: string;
  message: string;
  params?: Record<string, unknown>;
}

interface Tables {
  doc: SchemaDocument;
  /** Where the validators come from: the build's generated code or ajv compiling the schema here. */
  source: ValidatorSource;
  defs: Record<string, SchemaDef>;
  requests: { out: Map<string, string>; in: Map<string, string> };
  notifications: { out: Map<string, string>; in: Map<string, string> };
  resultType: Map<string, string>;
  taskAugmented: Set<string>;
  compiled: Map<string, DocumentValidator>;
}

/** `build`: the generated code in dist/schema/ (when there); `runtime`: ajv compiling the schema in this process. */
export type ValidatorSource = 'build' | 'runtime';
let preferred: ValidatorSource = 'build';

/**
 * Where the schemas' validators come from from now on (`build`, the default, falls back to
 * `runtime` when dist/ has no generated code). Tests compare the two; the tables are read again.
 */
export function useSpecValidators(source: ValidatorSource): void {
  preferred = source;
  tables.clear();
}

/** Where the validators of `version`'s schema come from in this process (reads the schema if not yet). */
export function specValidatorSource(version: SchemaVersion = SCHEMA_VERSION): ValidatorSource {
  return load(version).source;
}

interface SchemaDef {
  $ref?: string;
  anyOf?: SchemaDef[];
  properties?: Record<string, SchemaDef>;
  const?: unknown;
}

const tables = new Map<SchemaVersion, Tables>();

function defName(ref: string | undefined): string | undefined {
  return ref?.startsWith('#/$defs/') ? ref.slice(8) : undefined;
}

function methodsOf(defs: Record<string, SchemaDef>, union: string): Map<string, string> {
  const out = new Map<string, string>();
  // a "union" of one (2026-07-28's ClientNotification) is the message `$def` itself
  const members = defs[union]?.anyOf ?? (defs[union]?.properties?.method !== undefined ? [{ $ref: `#/$defs/${union}` }] : []);
  for (const member of members) {
    const name = defName(member.$ref);
    const method = name ? defs[name]?.properties?.method?.const : undefined;
    if (name && typeof method === 'string') out.set(method, name);
  }
  return out;
}

/** Whether the params of request `$def` `name` (or one of its alternatives) accept `task`. */
function acceptsTask(defs: Record<string, SchemaDef>, def: SchemaDef | undefined, depth = 0): boolean {
  if (!def || depth > 3) return false;
  if (def.properties?.task) return true;
  const ref = defName(def.$ref);
  if (ref) return acceptsTask(defs, defs[ref], depth + 1);
  return (def.anyOf ?? []).some((d) => acceptsTask(defs, d, depth + 1));
}

function load(version: SchemaVersion = SCHEMA_VERSION): Tables {
  const loaded = tables.get(version);
  if (loaded) return loaded;
  const schema = JSON.parse(readFileSync(schemaFile(version), 'utf8')) as { $defs: Record<string, SchemaDef> };
  const generated = preferred === 'build' ? generatedSchemaDocument(generatedFile(version)) : undefined;
  const doc = generated ?? openSchemaDocument(schema, { assertFormats: true });
  const defs = schema.$defs;
  const resultType = new Map<string, string>();
  const taskAugmented = new Set<string>();
  for (const [name, def] of Object.entries(defs)) {
    const method = def.properties?.method?.const;
    if (!name.endsWith('Request') || typeof method !== 'string' || !def.properties?.id) continue;
    const result = `${name.slice(0, -'Request'.length)}Result`;
    resultType.set(method, defs[result] ? result : 'EmptyResult');
    if (acceptsTask(defs, def.properties.params)) taskAugmented.add(method);
  }
  const t: Tables = {
    doc,
    source: generated !== undefined ? 'build' : 'runtime',
    defs,
    requests: { out: methodsOf(defs, 'ClientRequest'), in: methodsOf(defs, 'ServerRequest') },
    notifications: { out: methodsOf(defs, 'ClientNotification'), in: methodsOf(defs, 'ServerNotification') },
    resultType,
    taskAugmented,
    compiled: new Map(),
  };
  tables.set(version, t);
  return t;
}

function validator(t: Tables, def: string): DocumentValidator {
  let v = t.compiled.get(def);
  if (!v) {
    v = t.doc.validator(`/$defs/${def}`);
    if (!v) throw new Error(`schema has no $defs/${def}`);
    t.compiled.set(def, v);
  }
  return v;
}

/** Reads and prepares the schemas now (compiling each `$def` stays lazy). */
export function warmUp(): void {
  for (const v of SCHEMA_VERSIONS) load(v);
}

/** The result `$def` for the answer to `method` (`tools/list` → `ListToolsResult`), if the schema knows it. */
export function resultTypeFor(method: string, schema: SchemaVersion = SCHEMA_VERSION): string | undefined {
  return load(schema).resultType.get(method);
}

function shapeOf(m: unknown): string {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return 'invalid';
  const o = m as Record<string, unknown>;
  if ('method' in o) return 'id' in o ? 'request' : 'notification';
  if ('result' in o) return 'result';
  if ('error' in o) return 'error';
  return 'invalid';
}

/**
 * Checks one message against the schema. `direction` is as seen by the client: `out` = sent by
 * the client, `in` = sent by the server. Never throws for bad input.
 */
export function validateMessage(direction: Direction, message: unknown, info: ValidateInfo = {}): Violation[] {
  const t = load(info.schema);
  const kind = shapeOf(message);
  const m = message as Record<string, unknown>;
  const method = kind === 'request' || kind === 'notification' ? (typeof m.method === 'string' ? m.method : info.method) : info.requestMethod ?? info.method;
  const id = kind === 'invalid' || kind === 'notification' ? info.id : (m.id as string | number | null | undefined);
  const base = { dir: direction, kind, ...(method !== undefined ? { method } : {}), ...(id !== undefined ? { id } : {}), schema: info.schema ?? SCHEMA_VERSION };
  const out: Violation[] = [];
  const check = (def: string, value: unknown, prefix = ''): boolean => {
    const v = validator(t, def);
    if (v(value)) return true;
    for (const e of filterErrors(v.errors ?? [])) out.push(toViolation(base, def, e, prefix));
    return false;
  };

  if (kind === 'request' || kind === 'notification') {
    const table = kind === 'request' ? t.requests[direction] : t.notifications[direction];
    const def = typeof m.method === 'string' ? table.get(m.method) : undefined;
    if (def) {
      check(def, message);
    } else {
      const envelope = kind === 'request' ? 'JSONRPCRequest' : 'JSONRPCNotification';
      check(envelope, message);
      if (typeof m.method === 'string') {
        const union = `${direction === 'out' ? 'Client' : 'Server'}${kind === 'request' ? 'Request' : 'Notification'}`;
        out.push({
          ...base,
          schemaType: union,
          instancePath: '/method',
          schemaPath: `#/$defs/${union}/anyOf`,
          keyword: 'anyOf',
          message: `"${m.method}" is not a ${kind} the ${direction === 'out' ? 'client' : 'server'} may send (${union})`,
        });
      }
    }
  } else if (kind === 'result') {
    if (check('JSONRPCResultResponse', message) && m.result !== null && typeof m.result === 'object') {
      check(resultDef(t, direction, method, m.result as Record<string, unknown>), m.result, '/result');
    }
  } else if (kind === 'error') {
    check('JSONRPCErrorResponse', message);
  } else {
    check('JSONRPCMessage', message);
  }
  return out.length > MAX_VIOLATIONS_PER_MESSAGE ? out.slice(0, MAX_VIOLATIONS_PER_MESSAGE) : out;
}

function resultDef(t: Tables, direction: Direction, method: string | undefined, result: Record<string, unknown>): string {
  const specific = method !== undefined ? t.resultType.get(method) : undefined;
  if (specific === undefined) return direction === 'out' ? 'ClientResult' : 'ServerResult';
  if (t.taskAugmented.has(method!) && result.task !== null && typeof result.task === 'object') return 'CreateTaskResult';
  // 2026-07-28: the result says its type; one the core schema does not define is an extension's
  // (basic#9: a tasks handle), checked for the common fields only
  const type = result.resultType;
  if (t.defs.InputRequiredResult !== undefined && typeof type === 'string' && type !== 'complete') return type === 'input_required' ? 'InputRequiredResult' : 'Result';
  return specific;
}

/** Keeps an `anyOf`/`oneOf` failure and drops the per-branch noise beneath it. */
function filterErrors(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath);
  if (unions.length === 0) return errors;
  return errors.filter((e) => {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') return !unions.some((p) => p !== e.instancePath && under(e.instancePath, p));
    return !unions.some((p) => under(e.instancePath, p));
  });
}

function under(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

function toViolation(
  base: Omit<Violation, 'schemaType' | 'instancePath' | 'schemaPath' | 'keyword' | 'message'>,
  def: string,
  e: ErrorObject,
  prefix: string,
): Violation {
  return {
    ...base,
    schemaType: def,
    instancePath: prefix + e.instancePath,
    // the rule's place in the schema file (src/schema/document.ts: `#/$defs/Tool/required`)
    schemaPath: e.schemaPath,
    keyword: e.keyword,
    message: e.message ?? e.keyword,
    ...(e.params && Object.keys(e.params).length ? { params: boundedParams(e.params as Record<string, unknown>) } : {}),
  };
}

/** ajv's params name schema facts (`missingProperty`, `type`…); keep them small. */
function boundedParams(p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) {
    out[k] = typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…` : v;
  }
  return out;
}

/**
 * Per-connection checker used by the tracer: remembers which method each in-flight request
 * had, and under which revision's schema, so answers are checked against their specific result
 * type of the same revision in both directions. The revision comes from the messages: an
 * `initialize` request or result (the handshake era at its `protocolVersion`) or a request
 * carrying `_meta` protocolVersion (the stateless era); until then, SCHEMA_VERSION.
 */
export class StrictChecker {
  private readonly pending = { in: new Map<string | number, Pending>(), out: new Map<string | number, Pending>() };
  private static readonly MAX_PENDING = 10_000;
  private current: SchemaVersion = SCHEMA_VERSION;

  /** The revision whose schema checks messages that name none (the tap's `era` event may set it). */
  get schema(): SchemaVersion {
    return this.current;
  }

  /** Sets the session's era and version (as the tap's `era` event says them). */
  setEra(era: 'modern' | 'handshake', version?: string): void {
    this.current = schemaVersionFor(era, version);
  }

  check(direction: Direction, message: unknown, info: ValidateInfo): Violation[] {
    const m = message as Record<string, unknown> | null;
    let requestMethod = info.requestMethod;
    let schema = info.schema;
    if (m !== null && typeof m === 'object') {
      if (typeof m.method === 'string') this.noteRequest(m);
      schema ??= this.current;
      if (typeof m.id === 'string' || typeof m.id === 'number') {
        if (typeof m.method === 'string') {
          const map = this.pending[direction];
          if (map.size >= StrictChecker.MAX_PENDING) map.delete(map.keys().next().value as string | number);
          map.set(m.id, { method: m.method, schema });
        } else {
          // An answer travels opposite to its request, and is in its request's revision.
          const map = this.pending[direction === 'in' ? 'out' : 'in'];
          const asked = map.get(m.id);
          map.delete(m.id);
          requestMethod ??= asked?.method;
          if (info.schema === undefined && asked !== undefined) schema = asked.schema;
          if (requestMethod === 'initialize') this.noteInitializeResult(m);
        }
      }
    }
    try {
      return validateMessage(direction, message, { ...info, ...(requestMethod !== undefined ? { requestMethod } : {}), ...(schema !== undefined ? { schema } : {}) });
    } catch (err) {
      return [
        {
          dir: direction,
          kind: info.kind ?? 'invalid',
          schemaType: 'JSONRPCMessage',
          instancePath: '',
          schemaPath: '',
          keyword: 'internal',
          message: `schema check failed: ${(err as Error).message}`,
        },
      ];
    }
  }

  /** A request naming its revision: `initialize` (handshake) or `_meta` protocolVersion (modern). */
  private noteRequest(m: Record<string, unknown>): void {
    const params = objectOf(m.params);
    if (m.method === 'initialize') {
      this.setEra('handshake', typeof params?.protocolVersion === 'string' ? params.protocolVersion : undefined);
      return;
    }
    const version = objectOf(params?._meta)?.[META_PROTOCOL_VERSION];
    if (typeof version === 'string') this.setEra('modern', version);
  }

  /** The version an `initialize` result chose. */
  private noteInitializeResult(m: Record<string, unknown>): void {
    const version = objectOf(m.result)?.protocolVersion;
    if (typeof version === 'string') this.setEra('handshake', version);
  }
}

interface Pending {
  method: string;
  schema: SchemaVersion;
}

function objectOf(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
