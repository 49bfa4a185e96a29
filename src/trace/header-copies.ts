/**
 * HTTP headers that copy a request's body values, as a trace may show them. In revision
 * 2026-07-28 a `tools/call` mirrors the arguments its tool annotates with `x-mcp-header` into
 * `Mcp-Param-{Name}` headers (names the server chooses, so a name says nothing about the value),
 * and `Mcp-Name` copies `params.name`/`uri`/`taskId`; a value that is not plain ASCII goes as
 * `=?base64?…?=`. A copy is only as safe as the body value it mirrors: a header whose value
 * (decoded from the Base64 form) is a value the redaction of the body's `params` changes — under
 * a credential key (`credential`, `private_key`, `passwd`…), or holding a credential or a
 * configured secret in its text — is written `[redacted]`, whatever its name.
 */
import { isOAuthCode, isSensitiveKey, REDACTED } from './redaction-rules.js';

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const MAX_DEPTH = 64;

/** Whether a header (lower-case name) copies a body value: `mcp-name`, `mcp-param-*`. */
export function isHeaderCopy(name: string): boolean {
  return name === 'mcp-name' || name.startsWith('mcp-param-');
}

/** A header value as the client meant it: the Base64 sentinel decoded, else the value itself. */
function decoded(value: string): string {
  const m = SENTINEL.exec(value);
  return m === null ? value : Buffer.from(m[1]!, 'base64').toString('utf8');
}

/** The text a header would carry for a primitive value (as `paramValueText` converts it). */
function headerText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/**
 * The texts of the primitive values in `value` that its redaction hides: every primitive inside a
 * value under a credential key (the walk replaces a string or an object there), and every string
 * `changes` alters (a credential in text, a configured secret).
 */
function hiddenValues(value: unknown, changes: (s: string) => boolean, out: Set<string>, hidden: boolean, depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (value === null || typeof value !== 'object') {
    const text = headerText(value);
    if (text !== undefined && (hidden || (typeof value === 'string' && changes(value)))) out.add(text);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) hiddenValues(item, changes, out, hidden, depth + 1);
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const byKey = (typeof v === 'string' || (v !== null && typeof v === 'object')) && (isSensitiveKey(key) || (key === 'code' && typeof v === 'string' && isOAuthCode(obj)));
    hiddenValues(v, changes, out, hidden || byKey, depth + 1);
  }
}

/**
 * `headers` (lower-case names) with each copy of a body value that the body's redaction hides
 * replaced by `[redacted]` (see the module comment); the same object when none is. `body` is the
 * JSON-RPC message the headers came with; undefined when it was not seen (too big, not JSON, not
 * complete yet): then every copy is redacted, as nothing vouches for it. `changes(s)`: whether
 * the trace's redaction alters the string `s`.
 */
export function redactHeaderCopies(headers: Record<string, string>, body: unknown, changes: (s: string) => boolean): Record<string, string> {
  let hidden: Set<string> | undefined;
  let out: Record<string, string> | undefined;
  for (const name of Object.keys(headers)) {
    if (!isHeaderCopy(name)) continue;
    if (body === undefined) {
      (out ??= { ...headers })[name] = REDACTED;
      continue;
    }
    if (hidden === undefined) {
      hidden = new Set();
      // A single message: its params; a batch (no JSON-RPC of MCP's, but a peer may send one): all of it.
      const params = Array.isArray(body) ? body : body !== null && typeof body === 'object' ? (body as { params?: unknown }).params : undefined;
      hiddenValues(params, changes, hidden, false, 0);
    }
    const raw = headers[name]!;
    if (hidden.has(raw) || hidden.has(decoded(raw))) (out ??= { ...headers })[name] = REDACTED;
  }
  return out ?? headers;
}
