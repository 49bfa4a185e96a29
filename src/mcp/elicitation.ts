/**
 * client/elicitation: the checks around the host's `onElicitation` handler.
 *
 * - A request without `mode` is form mode (client.elicitation#8); a mode the client did not
 *   declare is refused with -32602 (client.elicitation#6, #30).
 * - Form mode: `requestedSchema` must be the spec's restricted subset — a flat object whose
 *   properties are primitive schemas (string, number/integer, boolean, single/multi-select
 *   enums) — else -32602 (client.elicitation#9). The accepted answer gets the schema's defaults
 *   when `applyDefaults` is declared, and is validated against the schema before it is sent
 *   (client.elicitation#52).
 * - URL mode: `url` must be a valid http(s) URL and `elicitationId` a string (client.elicitation#11,
 *   #12, #41). The URL is handed to the host untouched: this module never fetches or opens it
 *   (client.elicitation#42). `notifications/elicitation/complete` is passed on only for ids this
 *   client knows and has not seen complete (client.elicitation#15).
 * - A request answered with -32042 becomes a typed `UrlElicitationRequiredError` carrying the
 *   URL elicitations (client.elicitation#18, #19).
 */
import { JsonRpcError } from '../errors.js';
import { ErrorCode } from '../jsonrpc/types.js';
import { rpcMessage } from '../protocol/error-text.js';
import type { ElicitRequestParams, ElicitResult } from './types.js';

/** The JSON-RPC error code of `URLElicitationRequiredError`. */
export const URL_ELICITATION_REQUIRED = -32042;

/** A URL mode elicitation, as in `elicitation/create` or in a -32042 error's `data.elicitations`. */
export interface UrlElicitation {
  mode: 'url';
  message: string;
  url: string;
  elicitationId: string;
  [key: string]: unknown;
}

/**
 * A request was refused with -32042: the user must complete these URL elicitations before it can
 * be retried (client/elicitation: URL Elicitation Required Error). Still a `JsonRpcError`.
 */
export class UrlElicitationRequiredError extends JsonRpcError {
  readonly elicitations: UrlElicitation[];
  constructor(message: string, elicitations: UrlElicitation[], data: unknown, cause: JsonRpcError) {
    super(URL_ELICITATION_REQUIRED, message, data, { cause, serverId: cause.serverId, phase: cause.phase });
    this.name = 'UrlElicitationRequiredError';
    Object.defineProperty(this, 'code', { value: 'MCPWIRE_URL_ELICITATION_REQUIRED', enumerable: true });
    this.elicitations = elicitations;
  }
}

export function isUrlElicitationRequiredError(e: unknown): e is UrlElicitationRequiredError {
  return e instanceof UrlElicitationRequiredError;
}

const invalid = (message: string): JsonRpcError => new JsonRpcError(ErrorCode.InvalidParams, message);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---- the restricted schema subset ---------------------------------------------------------

const COMMON = ['type', 'title', 'description', 'default'];
const STRING_KEYS = new Set([...COMMON, 'minLength', 'maxLength', 'pattern', 'format', 'enum', 'enumNames', 'oneOf']);
const NUMBER_KEYS = new Set([...COMMON, 'minimum', 'maximum']);
const BOOLEAN_KEYS = new Set(COMMON);
const ARRAY_KEYS = new Set([...COMMON, 'items', 'minItems', 'maxItems']);
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isConstList = (v: unknown): boolean =>
  Array.isArray(v) && v.length > 0 && v.every((o) => isObject(o) && typeof o.const === 'string' && Object.keys(o).every((k) => k === 'const' || k === 'title'));

function unknownKey(p: Record<string, unknown>, allowed: Set<string>): string | undefined {
  return Object.keys(p).find((k) => !allowed.has(k));
}

/** Why property schema `p` is not a primitive schema of the subset, or undefined. */
function primitiveProblem(p: unknown): string | undefined {
  if (!isObject(p)) return 'is not an object';
  const bad = (keys: Set<string>) => {
    const k = unknownKey(p, keys);
    return k === undefined ? undefined : `uses "${k}", which the elicitation schema subset does not allow`;
  };
  switch (p.type) {
    case 'string':
      if (p.format !== undefined && !FORMATS.has(String(p.format))) return `has unsupported format "${String(p.format)}"`;
      if (p.enum !== undefined && !isStringList(p.enum)) return 'has an enum that is not a list of strings';
      if (p.oneOf !== undefined && !isConstList(p.oneOf)) return 'has a oneOf that is not a list of {const, title}';
      return bad(STRING_KEYS);
    case 'number':
    case 'integer':
      return bad(NUMBER_KEYS);
    case 'boolean':
      return bad(BOOLEAN_KEYS);
    case 'array': {
      const items = p.items;
      const ok = isObject(items) && ((items.type === 'string' && isStringList(items.enum)) || isConstList(items.anyOf));
      if (!ok) return 'is an array whose items are not a string enum (only multi-select enums may be arrays)';
      return bad(ARRAY_KEYS);
    }
    default:
      return `has type ${JSON.stringify(p.type)}; only string, number, integer, boolean and enum arrays are allowed`;
  }
}

/** Why `schema` is not the restricted form-mode subset (flat object of primitives), or undefined. */
export function requestedSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return 'requestedSchema is missing or not an object';
  if (schema.type !== 'object') return 'requestedSchema must have type "object"';
  if (!isObject(schema.properties)) return 'requestedSchema must have "properties"';
  // `additionalProperties: false` (what schema generators add to objects) says nothing more.
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return 'requestedSchema may not allow additional properties';
  const extra = unknownKey(schema, new Set(['$schema', '$comment', 'type', 'properties', 'required', 'title', 'description', 'additionalProperties']));
  if (extra !== undefined) return `requestedSchema uses "${extra}", which the elicitation schema subset does not allow`;
  for (const [name, p] of Object.entries(schema.properties)) {
    const problem = primitiveProblem(p);
    if (problem !== undefined) return `requestedSchema property "${name}" ${problem}`;
  }
  if (schema.required !== undefined && !isStringList(schema.required)) return 'requestedSchema "required" must be a list of names';
  return undefined;
}

// ---- answers --------------------------------------------------------------------------------

/** `content` with each missing property that has a `default` filled in (elicitation `applyDefaults`). */
export function applyElicitationDefaults(schema: Record<string, unknown>, content: Record<string, unknown> = {}): Record<string, unknown> {
  const out = { ...content };
  for (const [name, p] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    if (out[name] === undefined && p.default !== undefined) out[name] = p.default;
  }
  return out;
}

const FORMAT_CHECKS: Record<string, (s: string) => boolean> = {
  email: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  uri: (s) => /^[a-z][a-z0-9+.-]*:/i.test(s) && URL.canParse(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(s) && !Number.isNaN(Date.parse(s)),
};

function allowedValues(p: Record<string, unknown>): string[] | undefined {
  if (isStringList(p.enum)) return p.enum;
  const consts = p.oneOf ?? p.anyOf;
  if (Array.isArray(consts)) return consts.map((o) => String((o as { const: unknown }).const));
  return undefined;
}

/** Why `value` does not satisfy primitive schema `p`, or undefined. */
export function fieldProblem(p: Record<string, unknown>, value: unknown): string | undefined {
  switch (p.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if (typeof p.minLength === 'number' && value.length < p.minLength) return `must be at least ${p.minLength} characters`;
      if (typeof p.maxLength === 'number' && value.length > p.maxLength) return `must be at most ${p.maxLength} characters`;
      if (typeof p.pattern === 'string' && !safeRegExp(p.pattern)?.test(value)) return `must match ${p.pattern}`;
      const check = typeof p.format === 'string' ? FORMAT_CHECKS[p.format] : undefined;
      if (check !== undefined && !check(value)) return `must be a valid ${String(p.format)}`;
      const allowed = allowedValues(p);
      if (allowed !== undefined && !allowed.includes(value)) return `must be one of ${allowed.join(', ')}`;
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (p.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (typeof p.minimum === 'number' && value < p.minimum) return `must be ≥ ${p.minimum}`;
      if (typeof p.maximum === 'number' && value > p.maximum) return `must be ≤ ${p.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array': {
      if (!isStringList(value)) return 'must be a list of strings';
      const allowed = allowedValues((p.items ?? {}) as Record<string, unknown>) ?? [];
      const wrong = value.find((v) => !allowed.includes(v));
      if (wrong !== undefined) return `"${wrong}" is not one of ${allowed.join(', ')}`;
      if (typeof p.minItems === 'number' && value.length < p.minItems) return `needs at least ${p.minItems} choices`;
      if (typeof p.maxItems === 'number' && value.length > p.maxItems) return `allows at most ${p.maxItems} choices`;
      return undefined;
    }
    default:
      return 'has an unsupported schema';
  }
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** Problems of an accepted form answer against the requested schema (empty when it conforms). */
export function elicitContentProblems(schema: Record<string, unknown>, content: unknown): string[] {
  if (!isObject(content)) return ['content must be an object'];
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const problems: string[] = [];
  for (const name of isStringList(schema.required) ? schema.required : []) {
    if (content[name] === undefined) problems.push(`"${name}" is required`);
  }
  for (const [name, value] of Object.entries(content)) {
    const p = props[name];
    if (p === undefined) problems.push(`"${name}" is not in the requested schema`);
    else {
      const problem = fieldProblem(p, value);
      if (problem !== undefined) problems.push(`"${name}" ${problem}`);
    }
  }
  return problems;
}

// ---- requests -------------------------------------------------------------------------------

/** The request with its mode made explicit, or a -32602 error (client.elicitation#7–#12, #30). */
export function checkElicitRequest(params: unknown, modes: ReadonlySet<string>): ElicitRequestParams & { mode: 'form' | 'url' } {
  if (!isObject(params) || typeof params.message !== 'string') throw invalid('elicitation/create needs a "message"');
  // client.elicitation#8: no mode means form mode.
  const mode = params.mode ?? 'form';
  if (mode !== 'form' && mode !== 'url') throw invalid(`unknown elicitation mode ${JSON.stringify(mode)}`);
  // client.elicitation#30: a mode not declared in the client's capabilities → -32602.
  if (!modes.has(mode)) throw invalid(`elicitation mode "${mode}" is not supported by this client`);
  if (mode === 'form') {
    const problem = requestedSchemaProblem(params.requestedSchema);
    if (problem !== undefined) throw invalid(problem);
  } else {
    const problem = urlElicitationProblem(params);
    if (problem !== undefined) throw invalid(problem);
  }
  return { ...(params as ElicitRequestParams), mode };
}

/** Why `e` is not a usable URL mode elicitation, or undefined (client.elicitation#11, #12, #19, #41). */
export function urlElicitationProblem(e: unknown): string | undefined {
  if (!isObject(e)) return 'a URL elicitation must be an object';
  if (e.mode !== 'url') return 'a URL elicitation must have mode "url"';
  if (typeof e.elicitationId !== 'string' || e.elicitationId === '') return 'a URL elicitation needs an "elicitationId"';
  if (typeof e.message !== 'string') return 'a URL elicitation needs a "message"';
  if (typeof e.url !== 'string' || !URL.canParse(e.url)) return 'a URL elicitation needs a valid "url"';
  // client.elicitation#41: only web URLs are shown to a user (no javascript:, data:, file:).
  const protocol = new URL(e.url).protocol;
  if (protocol !== 'https:' && protocol !== 'http:') return `a URL elicitation's url must be http(s), not ${protocol}`;
  return undefined;
}

/**
 * The answer as it goes to the server: decline/cancel and URL-mode accepts carry no content;
 * a form accept gets defaults (when `applyDefaults`) and must match the requested schema, else
 * the handler's answer is refused (an internal error to the server, nothing invalid is sent).
 */
export function finishElicitResult(req: ElicitRequestParams & { mode: 'form' | 'url' }, result: unknown, applyDefaults: boolean): ElicitResult {
  if (!isObject(result) || !['accept', 'decline', 'cancel'].includes(result.action as string)) {
    throw new JsonRpcError(ErrorCode.InternalError, 'the client produced no valid elicitation answer');
  }
  const action = result.action as ElicitResult['action'];
  const meta = result._meta === undefined ? {} : { _meta: result._meta };
  if (action !== 'accept' || req.mode === 'url') return { action, ...meta };
  const schema = req.requestedSchema as Record<string, unknown>;
  const given = isObject(result.content) ? result.content : {};
  const content = applyDefaults ? applyElicitationDefaults(schema, given) : given;
  const problems = elicitContentProblems(schema, content);
  if (problems.length > 0) {
    throw new JsonRpcError(ErrorCode.InternalError, `the client's answer does not match the requested schema: ${problems.slice(0, 5).join('; ')}`);
  }
  return { action, content, ...meta };
}

// ---- URL elicitations in flight -------------------------------------------------------------

/** Remembers URL elicitation ids until they complete (client.elicitation#15). */
export class UrlElicitationTracker {
  private readonly pending = new Set<string>();

  add(elicitationId: string): void {
    this.pending.add(elicitationId);
  }
  /** True once for a known, pending id; false for unknown or already completed ids. */
  complete(elicitationId: unknown): boolean {
    return typeof elicitationId === 'string' && this.pending.delete(elicitationId);
  }
  has(elicitationId: string): boolean {
    return this.pending.has(elicitationId);
  }

  /** `err` as a `UrlElicitationRequiredError` when it is a well-formed -32042, else `err`. */
  fromError(err: unknown): unknown {
    if (!(err instanceof JsonRpcError) || err.rpcCode !== URL_ELICITATION_REQUIRED || err instanceof UrlElicitationRequiredError) return err;
    const list = isObject(err.data) ? err.data.elicitations : undefined;
    // client.elicitation#18/#19: a list, every entry a URL elicitation with an id; else untyped.
    if (!Array.isArray(list) || list.length === 0 || list.some((e) => urlElicitationProblem(e) !== undefined)) return err;
    const elicitations = list as UrlElicitation[];
    for (const e of elicitations) this.add(e.elicitationId);
    const message = rpcMessage(err);
    return new UrlElicitationRequiredError(message, elicitations, err.data, err);
  }
}
