/**
 * The request metadata headers of the Streamable HTTP transport in revision 2026-07-28
 * (basic/transports/streamable-http.md, "Request Metadata"), computed from a request's method
 * and params — pure: no I/O. The transport stays MCP-agnostic: the client hands these to it per
 * message (`SendOptions.headers`).
 *
 * - `MCP-Protocol-Version` mirrors the body's `_meta` `io.modelcontextprotocol/protocolVersion`
 *   (basic.transports.streamable_http#22, #23: the header matches the body by construction).
 * - `Mcp-Method` for every request, `Mcp-Name` from `params.name` (tools/call, prompts/get) or
 *   `params.uri` (resources/read) (#9, #28), or `params.taskId` (tasks/get, tasks/update,
 *   tasks/cancel: the tasks extension's routing rule), encoded when not header-safe (#29).
 * - `Mcp-Param-{Name}` for each `x-mcp-header` annotation of the called tool's `inputSchema`
 *   (#30, #31, #50): the value at the annotated property's exact path in the arguments, omitted
 *   when absent or null (#57, #58), converted (string as is, integer in decimal, boolean
 *   `true`/`false`) and encoded (#43, #44, #49).
 * - Value encoding: a value that is not plain visible ASCII with inner spaces — non-ASCII,
 *   control characters (tab included), leading/trailing whitespace — or that looks like the
 *   sentinel itself is sent as `=?base64?{Base64 of its UTF-8}?=`, markers lowercase (#46).
 * - `headerAnnotationProblems` checks a tool's annotations against #32–#39 (server.tools#19–#25):
 *   a client on Streamable HTTP drops a tool with any problem from `tools/list` and warns with its
 *   name and the reason (#40–#42, server.tools#26–#28).
 */

export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** Where an `x-mcp-header` annotation points: the header's name part and the property path. */
export interface HeaderParam {
  /** The annotation's value: the header is `Mcp-Param-{name}`. */
  readonly name: string;
  /** The chain of `properties` keys from the schema root to the annotated property. */
  readonly path: readonly string[];
}

/** One violation of the `x-mcp-header` constraints in an inputSchema. */
export interface HeaderAnnotationProblem {
  /** JSON Pointer of the annotated schema within the inputSchema (`""` for the root). */
  readonly pointer: string;
  /** What is wrong, with the clause id. */
  readonly message: string;
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/**
 * `value` as an HTTP header value: itself when it is plain header-safe ASCII (visible characters
 * and inner spaces), else the Base64 sentinel form (#44); a plain value that looks like the
 * sentinel is encoded too, so it cannot be mistaken for one (#49).
 */
export function encodeHeaderValue(value: string): string {
  if (isPlainSafe(value) && !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/** Visible ASCII (0x21–0x7E) and spaces, with no space at either end (#44). */
function isPlainSafe(value: string): boolean {
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x20 ? i === 0 || i === n - 1 : c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/**
 * The string form of an annotated parameter's value ("Value Encoding", type conversion), or
 * undefined when it has none: null or absent (#57, #58), or not a primitive the annotation may
 * carry (an object, a fraction, an integer outside the safe range, #36/#37).
 */
export function paramValueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * The metadata headers of one request (names as the spec writes them; header names are
 * case-insensitive, #60). `inputSchema` is the called tool's, for `tools/call`; a tool whose
 * annotations have problems should not be called at all (it is dropped from `tools/list`), and
 * its invalid annotations give no headers here.
 */
/** The tasks extension (SEP-2663): these carry their `params.taskId` in `Mcp-Name`, for routing to the task's holder. */
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

export function requestHeaders(method: string, params: Record<string, unknown> | undefined, inputSchema?: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta !== null && typeof meta === 'object' ? meta[PROTOCOL_VERSION_META] : undefined;
  if (typeof version === 'string') out['MCP-Protocol-Version'] = version;
  out['Mcp-Method'] = method;
  const nameSource = method === 'tools/call' || method === 'prompts/get' ? params?.name : method === 'resources/read' ? params?.uri : TASK_METHODS.has(method) ? params?.taskId : undefined;
  if (typeof nameSource === 'string') out['Mcp-Name'] = encodeHeaderValue(nameSource);
  if (method === 'tools/call' && inputSchema !== undefined) {
    const args = params?.arguments;
    for (const p of headerParams(inputSchema)) {
      const text = paramValueText(valueAt(args, p.path));
      if (text !== undefined) out[`Mcp-Param-${p.name}`] = encodeHeaderValue(text);
    }
  }
  return out;
}

/** The instance value at `path` (own properties of plain objects only), or undefined. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const cache = new WeakMap<object, readonly HeaderParam[]>();

/**
 * The valid `x-mcp-header` annotations of an inputSchema, statically reachable through
 * `properties` keys only (#38, #39). Memoized per schema object (a tool's schema is read once
 * per `tools/list`, its calls are many).
 */
export function headerParams(inputSchema: unknown): readonly HeaderParam[] {
  if (inputSchema === null || typeof inputSchema !== 'object') return [];
  const hit = cache.get(inputSchema);
  if (hit !== undefined) return hit;
  const found: HeaderParam[] = [];
  const { annotations } = scan(inputSchema);
  for (const a of annotations) if (a.path !== undefined && annotationProblem(a) === undefined) found.push({ name: a.value as string, path: a.path });
  cache.set(inputSchema, found);
  return found;
}

/**
 * Every violation of the `x-mcp-header` constraints in `inputSchema` (empty when the tool may be
 * used): a non-string or empty value (#32), not an RFC 9110 token (#33) or with control
 * characters (#34), not case-insensitively unique (#35), on a property whose type is not
 * integer, string or boolean (#36), or not statically reachable from the root (#38, #39).
 */
export function headerAnnotationProblems(inputSchema: unknown): HeaderAnnotationProblem[] {
  if (inputSchema === null || typeof inputSchema !== 'object') return [];
  const problems: HeaderAnnotationProblem[] = [];
  const seen = new Map<string, string>();
  for (const a of scan(inputSchema).annotations) {
    const pointer = a.pointer;
    if (a.path === undefined) {
      problems.push({ pointer, message: `x-mcp-header ${describe(a.value)} is not on a property reachable from the root through "properties" keys only (basic.transports.streamable_http#38, #39)` });
    }
    const wrong = annotationProblem(a);
    if (wrong !== undefined) problems.push({ pointer, message: wrong });
    if (typeof a.value === 'string' && a.value !== '') {
      const key = a.value.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) problems.push({ pointer, message: `x-mcp-header ${describe(a.value)} repeats the one at ${first || '/'}, ignoring case (basic.transports.streamable_http#35)` });
      else seen.set(key, pointer);
    }
  }
  return problems;
}

/** A tool left out of `tools/list` for its `x-mcp-header` annotations, and why. */
export interface RejectedTool {
  readonly name: string;
  readonly problems: readonly HeaderAnnotationProblem[];
}

/**
 * Splits a `tools/list` page for a client on Streamable HTTP: the tools whose annotations are
 * valid are kept (in order), the others are left out with their problems, for a warning naming
 * the tool and the reason (basic.transports.streamable_http#40–#42): one malformed tool does not
 * cost the others.
 */
export function screenTools<T extends { name: string; inputSchema?: unknown }>(tools: readonly T[]): { kept: T[]; rejected: RejectedTool[] } {
  const kept: T[] = [];
  const rejected: RejectedTool[] = [];
  for (const tool of tools) {
    const problems = headerAnnotationProblems(tool.inputSchema);
    if (problems.length === 0) kept.push(tool);
    else rejected.push({ name: tool.name, problems });
  }
  return { kept, rejected };
}

/** One `x-mcp-header` found in a schema: where, its value, and its property path when reachable. */
interface Annotation {
  pointer: string;
  value: unknown;
  /** The `properties` chain to it, when it is statically reachable; undefined otherwise. */
  path: string[] | undefined;
  schema: Record<string, unknown>;
}

/** The problem of one annotation's value or its property's type (not reachability, not uniqueness). */
function annotationProblem(a: Annotation): string | undefined {
  const v = a.value;
  if (typeof v !== 'string') return `x-mcp-header must be a string, not ${describe(v)} (basic.transports.streamable_http#33)`;
  if (v === '') return 'x-mcp-header must not be empty (basic.transports.streamable_http#32)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(v)) return `x-mcp-header ${describe(v)} contains control characters (basic.transports.streamable_http#34)`;
  if (!TOKEN.test(v)) return `x-mcp-header ${describe(v)} is not an HTTP field-name token (1*tchar, RFC 9110 §5.1; basic.transports.streamable_http#33)`;
  if (!primitiveType(a.schema.type)) {
    return `x-mcp-header ${describe(v)} is on a property of type ${describe(a.schema.type)}: only integer, string or boolean may be mirrored (basic.transports.streamable_http#36)`;
  }
  return undefined;
}

/** RFC 9110 §5.6.2 token: 1*tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES = new Set(['string', 'integer', 'boolean']);

/** `type` names one primitive (integer, string, boolean), optionally with `null` (a null value omits the header, #57). */
function primitiveType(type: unknown): boolean {
  if (typeof type === 'string') return PRIMITIVES.has(type);
  if (!Array.isArray(type)) return false;
  const nonNull = type.filter((t) => t !== 'null');
  return nonNull.length === 1 && PRIMITIVES.has(nonNull[0] as string);
}

/** Keywords whose values are instances, not schemas: an `x-mcp-header` key inside them is data. */
const INSTANCE_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Every `x-mcp-header` in the schema, with whether it is reachable through `properties` only. */
function scan(root: object): { annotations: Annotation[] } {
  const annotations: Annotation[] = [];
  // path: the properties chain so far, or undefined once any other keyword was crossed.
  const visit = (node: unknown, pointer: string, path: string[] | undefined, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > 64) return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${pointer}/${i}`, undefined, depth + 1));
      return;
    }
    const schema = node as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(schema, 'x-mcp-header')) {
      // The root itself is no property: an annotation there is unreachable.
      annotations.push({ pointer, value: schema['x-mcp-header'], path: path !== undefined && path.length > 0 ? path : undefined, schema });
    }
    for (const key of Object.keys(schema)) {
      if (key === 'x-mcp-header' || INSTANCE_KEYWORDS.has(key)) continue;
      const child = schema[key];
      const at = `${pointer}/${escapePointer(key)}`;
      if (key === 'properties' && child !== null && typeof child === 'object' && !Array.isArray(child)) {
        // Its keys are property names, each naming a subschema.
        for (const name of Object.keys(child)) {
          visit((child as Record<string, unknown>)[name], `${at}/${escapePointer(name)}`, path !== undefined ? [...path, name] : undefined, depth + 1);
        }
      } else {
        visit(child, at, undefined, depth + 1);
      }
    }
  };
  visit(root, '', [], 0);
  return { annotations };
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A short, quoted rendering of a peer's value for a message (bounded, control characters escaped). */
function describe(v: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  // eslint-disable-next-line no-control-regex
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length > 80 ? `${safe.slice(0, 80)}…` : safe;
}
