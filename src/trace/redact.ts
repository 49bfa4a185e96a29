/**
 * Redaction for traces: built in and always on. A `Redactor` walks a value once and returns a
 * copy with secrets replaced by `[redacted]` (the same reference when nothing had to change),
 * long strings truncated with a marker, cycles and excessive depth cut. The same walk measures
 * the UTF-8 length of the value's compact JSON serialization (`lastBytes`), so the trace writer
 * never has to stringify a message twice.
 *
 * What is redacted:
 * - values under keys named like credentials (`authorization`, `cookie`, `set-cookie`, `token`,
 *   `access_token`, `refresh_token`, `id_token`, `client_secret`, `code_verifier`, `password`,
 *   `api_key`/`apikey`, `secret`, `x-api-key`, and any key ending in `token`, `secret`,
 *   `password` or `apikey`, except the protocol's `progressToken`);
 * - `code` when it sits beside OAuth fields (`state`, `redirect_uri`, `code_verifier`, …);
 * - inside any string: credential-like query/form parameters (`?code=…&state=…`,
 *   `grant_type=…&refresh_token=…`, `?key=…&sig=…&api-key=…`, `X-Amz-Signature=…`), `Bearer …` /
 *   `Basic …` credentials, whatever follows `Authorization:` / `Proxy-Authorization:` (any
 *   scheme: `Token …`, `Digest …`), the user info of `scheme://user:pass@host` URLs, and
 *   env-style assignments of names containing SECRET, TOKEN, PASSWORD, PASSWD, PASSPHRASE,
 *   API_KEY, ACCESS_KEY, PRIVATE_KEY or CREDENTIAL (`GITHUB_TOKEN=…`, `DB_PASSWORD: '…'`);
 * - every occurrence of a configured secret value (the env and header values that are credentials,
 *   see `configured-secrets.ts`; tokens learnt at run time) in the
 *   forms a server may echo it (`secretForms`): as given, URL- and form-encoded, JSON-escaped,
 *   base64/base64url; for `Scheme credentials` header values (Bearer, Basic, Token, Digest…) the
 *   credentials alone, and for Basic the decoded `user:pass` and the password; for a URL its
 *   user info and credential-like query values. Values shorter than `MIN_SECRET_LENGTH` (6)
 *   characters are only redacted where a whole string equals them, so an env value like `1` or
 *   `dev` does not blank every occurrence of it in the trace.
 */

import { JsonFastPath, SCRUB_CACHE_MAX_LENGTH, SCRUB_CACHE_SIZE } from './json-fast-path.js';
import { jsonStringBytes, prototypePolluted, safeStringify } from './json-text.js';
import { isOAuthCode, isSensitiveKey, REDACTED, redactPatterns } from './redaction-rules.js';

export { REDACTED } from './redaction-rules.js';
export { MIN_SECRET_LENGTH } from './secret-forms.js';
export { jsonStringBytes } from './json-text.js';

export interface RedactOptions {
  /** Values to redact wherever they appear. */
  secrets?: Iterable<string>;
  /** Strings longer than this (UTF-8 bytes) are truncated with a marker. Default 64 KiB. */
  maxStringBytes?: number;
  /** Deeper nesting is replaced by a marker. Default 64. */
  maxDepth?: number;
}

export const DEFAULT_MAX_STRING_BYTES = 64 * 1024;
const DEFAULT_MAX_DEPTH = 64;

const encoder = new TextEncoder();

/**
 * Walks values for the trace writer (the fast path, `JsonFastPath`, first where it can). One
 * instance per tracer; not re-entrant (it keeps the walk's state in fields so the hot path
 * allocates only where something changes).
 */
export class Redactor extends JsonFastPath {
  readonly maxStringBytes: number;
  private readonly stack: object[] = [];
  private readonly scrubCache = new Map<string, string>();
  private truncBuf: Uint8Array | undefined;

  constructor(options: RedactOptions = {}) {
    super(options.maxDepth ?? DEFAULT_MAX_DEPTH);
    this.maxStringBytes = Math.max(64, options.maxStringBytes ?? DEFAULT_MAX_STRING_BYTES);
    if (options.secrets) this.addSecrets(options.secrets);
  }

  /**
   * Adds values to redact (e.g. a token obtained at run time), each in all its `secretForms`.
   * Empty strings are ignored; values shorter than `MIN_SECRET_LENGTH` are redacted only where a
   * whole string equals them (or their URL-encoded form).
   */
  addSecrets(values: Iterable<string>): void {
    this.secrets.add(values);
    this.scrubCache.clear();
    this.secretsChanged();
  }

  /**
   * Stops redacting `values` (added before), e.g. the id of an HTTP session that was replaced: a
   * long-lived client renews its session again and again, and every id kept would make every
   * later redaction slower (one alternation of all their forms) and the process bigger.
   */
  removeSecrets(values: Iterable<string>): void {
    if (!this.secrets.remove(values)) return;
    this.scrubCache.clear();
    this.secretsChanged();
  }

  /** Whether any secret value is configured. */
  get hasSecrets(): boolean {
    return !this.plain;
  }

  /**
   * Replaces the configured secret values (in all their forms) in `s`, and nothing else: no
   * pattern rules, no truncation. For data that must stay intact but for credentials (tool
   * results handed to an agent).
   */
  redactSecrets(s: string): string {
    return this.secrets.replace(s);
  }

  /**
   * The compact JSON text of `redact(value)` (undefined where JSON has none, e.g. `undefined`);
   * sets `lastBytes` like `redact()`.
   *
   * Fast path, for what JSON-RPC messages are: one walk that checks the redaction walk would
   * give `value` back unchanged (plain objects and arrays, no credential-named key holding a
   * string or object, no OAuth `code`, every string and key untouched by `redactString`/`scrub`)
   * and meanwhile writes its JSON and counts its UTF-8 bytes; the first thing that could change
   * (or that JSON would write differently: class instances, `toJSON`, bigint, excessive depth,
   * so cycles too) abandons it for the full walk and `JSON.stringify` of its result. Both paths
   * give the same bytes (tested); the fast one copies nothing and walks once.
   */
  redactJson(value: unknown): string | undefined {
    if (!prototypePolluted()) {
      this.lastBytes = 0;
      const json = typeof value === 'object' && value !== null ? this.cleanJson(value, 0) : typeof value === 'string' ? this.cleanString(value) : undefined;
      if (json !== undefined) return json;
    }
    const redacted = this.redact(value);
    return redacted === undefined ? undefined : safeStringify(redacted);
  }

  /** Returns the redacted form of `value`; sets `lastBytes` to the JSON size of the original. */
  redact(value: unknown): unknown {
    this.lastBytes = 0;
    this.stack.length = 0;
    return this.walk(value, 0);
  }

  /** Redacts one string (secrets, credentials in text, length). */
  redactString(s: string): string {
    // The bound is in bytes: a string of fewer characters than the bound may still pass it (a
    // character is up to 3 UTF-8 bytes; a surrogate pair, 4 bytes for 2), so only strings that
    // cannot reach it skip the count.
    if (s.length * 3 > this.maxStringBytes) {
      const total = Buffer.byteLength(s, 'utf8');
      if (total > this.maxStringBytes) return this.truncate(s, total);
    }
    return this.scrub(s);
  }

  /** Short strings repeat (`2.0`, method names, keys): remember their scrubbed form, boundedly. */
  protected scrub(s: string): string {
    if (s.length > SCRUB_CACHE_MAX_LENGTH) return this.scrubUncached(s);
    let r = this.scrubCache.get(s);
    if (r === undefined) {
      r = this.scrubUncached(s);
      if (this.scrubCache.size >= SCRUB_CACHE_SIZE) this.scrubCache.clear();
      this.scrubCache.set(s, r);
    }
    return r;
  }
  private scrubUncached(s: string): string {
    const secrets = this.secrets;
    if (secrets.exact.has(s)) return REDACTED;
    let r = s;
    const re = secrets.re;
    if (re !== undefined) {
      re.lastIndex = 0;
      if (re.test(r)) {
        re.lastIndex = 0;
        r = r.replace(re, REDACTED);
      }
      if (r.indexOf('…') !== -1) r = secrets.redactCut(r);
    }
    return redactPatterns(r);
  }

  /** Keeps a redacted head of at most `maxStringBytes` bytes (never splitting a character). */
  private truncate(s: string, totalBytes: number): string {
    // Scrub a little past the cut so a secret straddling it is redacted, not half-kept.
    const head = this.scrub(s.slice(0, this.maxStringBytes + this.secrets.maxLength + 1));
    this.truncBuf ??= new Uint8Array(this.maxStringBytes);
    const { read } = encoder.encodeInto(head, this.truncBuf);
    return `${head.slice(0, read)}…[truncated by mcpwire: ${totalBytes} bytes in all]`;
  }

  private walk(v: unknown, depth: number): unknown {
    switch (typeof v) {
      case 'string':
        this.lastBytes += jsonStringBytes(v);
        return this.redactString(v);
      case 'number':
        this.lastBytes += Number.isFinite(v) ? String(v).length : 4;
        return v;
      case 'boolean':
        this.lastBytes += v ? 4 : 5;
        return v;
      case 'bigint':
        return this.walk(String(v), depth);
      case 'object':
        if (v === null) {
          this.lastBytes += 4;
          return v;
        }
        return this.walkObject(v, depth);
      default:
        return undefined; // undefined, function, symbol: JSON leaves them out
    }
  }

  private walkObject(v: object, depth: number): unknown {
    if (this.stack.includes(v)) return '[circular]';
    if (depth >= this.maxDepth) {
      this.lastBytes += Buffer.byteLength(safeStringify(v), 'utf8');
      return '[too deep]';
    }
    if (Array.isArray(v)) return this.walkArray(v, depth);
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto !== Object.prototype && proto !== null) {
      const special = this.special(v);
      if (special !== v) return this.walk(special, depth);
    }
    this.stack.push(v);
    const obj = v as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    let first = true;
    const checkKeys = this.secrets.any;
    this.lastBytes += 2;
    for (const key in obj) {
      const value = obj[key];
      const t = typeof value;
      if (t === 'undefined' || t === 'function' || t === 'symbol') {
        out ??= copyHead(obj, key);
        continue;
      }
      this.lastBytes += (first ? 1 : 2) + jsonStringBytes(key); // comma, key, colon
      first = false;
      let next = this.walk(value, depth + 1);
      if (typeof next === 'string' || (next !== null && typeof next === 'object')) {
        if (isSensitiveKey(key) || (key === 'code' && typeof value === 'string' && isOAuthCode(obj))) next = REDACTED;
      }
      const outKey = checkKeys ? this.scrub(key) : key;
      if (next !== value || outKey !== key) out ??= copyHead(obj, key);
      if (out !== undefined) put(out, outKey, next);
    }
    this.stack.pop();
    return out ?? obj;
  }

  private walkArray(arr: unknown[], depth: number): unknown[] {
    this.stack.push(arr);
    let out: unknown[] | undefined;
    this.lastBytes += 2 + (arr.length > 0 ? arr.length - 1 : 0);
    for (let i = 0; i < arr.length; i++) {
      const value = arr[i];
      let next = this.walk(value, depth + 1);
      if (next === undefined) {
        this.lastBytes += 4; // JSON writes null
        next = null;
      }
      if (next !== value) out ??= arr.slice(0, i);
      if (out !== undefined) out.push(next);
    }
    this.stack.pop();
    return out ?? arr;
  }

  /** Plain-data views of the non-plain values events may carry. */
  private special(v: object): unknown {
    if (v instanceof Error) {
      const e = v as Error & { code?: unknown; cause?: unknown };
      const out: Record<string, unknown> = { name: e.name, message: e.message };
      if (e.code !== undefined) out.code = e.code;
      if (e.cause !== undefined) out.cause = e.cause;
      return out;
    }
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
    if (v instanceof URL) return v.href;
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return `[binary: ${v.byteLength} bytes]`;
    if (v instanceof Map) return Object.fromEntries(v);
    if (v instanceof Set) return [...v];
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return (v as { toJSON(): unknown }).toJSON();
    if (typeof (v as { entries?: unknown }).entries === 'function' && typeof (v as { get?: unknown }).get === 'function') {
      // Headers-like objects.
      try {
        return Object.fromEntries((v as unknown as { entries(): Iterable<[string, unknown]> }).entries());
      } catch {
        return v;
      }
    }
    return v;
  }
}

/** A copy of the members of `obj` that come before `stop` (all of them were kept unchanged). */
function copyHead(obj: Record<string, unknown>, stop: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    if (k === stop) break;
    const val = obj[k];
    const t = typeof val;
    if (t !== 'undefined' && t !== 'function' && t !== 'symbol') put(out, k, val);
  }
  return out;
}

/**
 * `out[key] = value`, but an own `__proto__` member (JSON.parse makes one from `{"__proto__":…}`)
 * stays a member: the assignment would set the copy's prototype instead and the member would
 * vanish from the trace.
 */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** One-shot convenience: redacts `value` with the default rules plus `secrets`. */
export function redact(value: unknown, options?: RedactOptions): unknown {
  return new Redactor(options).redact(value);
}
