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
 * - every occurrence of a configured secret value (env values, header values, tokens) in the
 *   forms a server may echo it (`secretForms`): as given, URL- and form-encoded, JSON-escaped,
 *   base64/base64url; for `Scheme credentials` header values (Bearer, Basic, Token, Digest…) the
 *   credentials alone, and for Basic the decoded `user:pass` and the password; for a URL its
 *   user info and credential-like query values. Values shorter than `MIN_SECRET_LENGTH` (6)
 *   characters are only redacted where a whole string equals them, so an env value like `1` or
 *   `dev` does not blank every occurrence of it in the trace.
 */

export const REDACTED = '[redacted]';

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
/**
 * Configured values shorter than this are redacted only where a whole string equals them (an env
 * value like `1`, `dev` or `info` would otherwise blank every occurrence of it in the trace).
 */
export const MIN_SECRET_LENGTH = 6;
const SCRUB_CACHE_MAX_LENGTH = 64;
const SCRUB_CACHE_SIZE = 4096;

/** Keys whose values are credentials. Matched case-insensitively on the whole key. */
const SENSITIVE_KEY =
  /^(?:(?:proxy[-_]?)?authorization|cookie|set[-_]?cookie|x[-_]?api[-_]?key|api[-_]?key|code[-_]?verifier|client[-_]?assertion|private[-_]?key|passwd|credentials?|.*tokens?|.*secrets?|.*password|.*api[-_]?key)$/i;
/** Keys that look sensitive by the suffix rule but are protocol fields, not secrets. */
const NOT_SENSITIVE = /^(?:progress[-_]?token|next[-_]?token|token[-_]?type|max[-_]?tokens?)$/i;
/** Siblings that make a `code` key an OAuth authorization code. */
const OAUTH_SIBLINGS = ['state', 'redirect_uri', 'code_verifier', 'grant_type', 'client_id', 'iss', 'session_state'];

/** Names of query/form parameters whose values are credentials (`--token=` too). */
const QUERY_NAMES =
  '(?:code|state_token|token|password|passwd|secret|assertion|client_assertion|code_verifier|key|apikey|sig|signature|auth|credential|session_?id|[\\w.-]*(?:_token|-token|token|_secret|-secret|secret|password|[-_]key|apikey|[-_]signature|[-_]sig|[-_]credential))';
/** Names of members in JSON text whose values are credentials. */
const JSON_NAMES = '(?:code|authorization|cookie|set-cookie|code_verifier|api_?key|x-api-key|assertion|client_assertion|[a-z0-9_-]*(?:token|secret|password|passwd|api_?key|access_?key|private_?key|credentials?)[a-z0-9_-]*)';
/** `"name": "value"` inside text that holds JSON (HTTP bodies, excerpts). */
const JSON_PAIR = new RegExp(`("(${JSON_NAMES})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)*)`, 'gi');
/** HTTP credentials written out in text. */
const AUTH_SCHEME = /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/-]+=*(?![A-Za-z0-9._~+/="-])/g;
/** `Authorization: <scheme> <credentials>` header lines, any scheme: the rest of the line goes. */
const AUTH_HEADER = /\b((?:proxy-)?authorization\s*:\s*['"]?)([^\r\n]*)/gi;
/** After `scheme://`: user info up to its `@` (sticky). */
const USERINFO_AT = /[^\s/?#@"'<>[\]]+@/y;
/** Env-style names of credentials: `GITHUB_TOKEN`, `MY_SECRET_THING`, `DB_PASSWORD`, `OPENAI_API_KEY`… */
const CREDENTIAL_WORD = /secret|token|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credential/i;
/** Characters whose JSON form is longer than their UTF-8 form, and surrogates. */
// eslint-disable-next-line no-control-regex
const NEEDS_EXACT_JSON_LENGTH = /["\\\u0000-\u001f\ud800-\udfff]/;

const encoder = new TextEncoder();

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Query parameter names whose values in a configured URL are credentials. */
const SENSITIVE_QUERY_NAME = new RegExp(`^${QUERY_NAMES}$`, 'i');
/** Parameters of a Digest-like credential list that are not secret. */
const PUBLIC_AUTH_PARAMS = /^(?:realm|uri|algorithm|qop|nc|charset|userhash|domain|stale|opaque)$/i;

/**
 * The credentials inside a URL: its user info (`user:pass`, the password, or a user-info token)
 * and the values of credential-like query parameters (`?key=…&sig=…`). The URL itself is not
 * one: it stays readable in traces and errors.
 */
export function urlSecrets(url: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  const dec = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  if (u.password) out.push(u.password, dec(u.password), `${dec(u.username)}:${dec(u.password)}`);
  else if (u.username) out.push(u.username, dec(u.username));
  for (const [name, value] of u.searchParams) if (value && SENSITIVE_QUERY_NAME.test(name)) out.push(value);
  return out;
}

/** `user:pass` from a Basic credential, when it decodes to printable text with a colon. */
function decodeBasic(cred: string): string | undefined {
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(cred)) return undefined;
  const text = Buffer.from(cred, 'base64').toString('utf8');
  // eslint-disable-next-line no-control-regex
  return text.includes(':') && !/[\u0000-\u001f\ufffd]/.test(text) ? text : undefined;
}

/** The encodings a server may echo a value in: as is, URL/form-encoded, JSON-escaped, base64. */
function encodings(v: string): string[] {
  const url = encodeURIComponent(v);
  const b64 = Buffer.from(v, 'utf8').toString('base64');
  return [v, url, url.replace(/%20/g, '+'), JSON.stringify(v).slice(1, -1), b64.replace(/=+$/, ''), Buffer.from(v, 'utf8').toString('base64url')];
}

/**
 * What to redact for one configured value: the value and, for a `Scheme credentials` value
 * (`Bearer X`, `Token X`, `Basic B64`, `Digest k="v", …`), the credentials alone; for Basic also
 * the decoded `user:pass` and the password; for a Digest-like list each non-public parameter
 * value; for a URL its credentials (`urlSecrets`). Each in every form of `encodings`. The parts
 * are returned longest first; callers apply `MIN_SECRET_LENGTH`.
 */
export function secretForms(value: string): string[] {
  const parts = new Set<string>([value]);
  const m = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(\S[\s\S]*?)\s*$/.exec(value);
  if (m !== null) {
    const cred = m[2];
    parts.add(cred);
    if (/^basic$/i.test(m[1])) {
      const pair = decodeBasic(cred);
      if (pair !== undefined) {
        parts.add(pair);
        parts.add(pair.slice(pair.indexOf(':') + 1));
      }
    }
    for (const p of cred.matchAll(/([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/g)) {
      if (!PUBLIC_AUTH_PARAMS.test(p[1])) parts.add(p[2] ?? p[3]);
    }
  }
  for (const u of urlSecrets(value)) parts.add(u);
  const out = new Set<string>();
  for (const p of parts) if (p) for (const f of encodings(p)) out.add(f);
  return [...out].sort((a, b) => b.length - a.length);
}

/** UTF-8 length of `JSON.stringify(s)` (quotes included), without building it. */
export function jsonStringBytes(s: string): number {
  const n = s.length;
  if (n > 256 && !NEEDS_EXACT_JSON_LENGTH.test(s)) return Buffer.byteLength(s, 'utf8') + 2;
  let bytes = 2;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c < 0x20) bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
      else bytes += c === 34 || c === 92 ? 2 : 1;
    } else if (c < 0x800) {
      bytes += 2;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 6; // lone high surrogate: JSON.stringify writes \udXXX
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      bytes += 6;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/** Keys repeat endlessly (`jsonrpc`, `id`, `params`…): remember the verdicts, boundedly. */
const keyVerdicts = new Map<string, boolean>();
const MAX_KEY_VERDICTS = 4096;

function isSensitiveKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = SENSITIVE_KEY.test(key) && !NOT_SENSITIVE.test(key);
    if (keyVerdicts.size < MAX_KEY_VERDICTS && key.length <= 64) keyVerdicts.set(key, v);
  }
  return v;
}

interface JsonText {
  json: string;
  bytes: number;
  /** The string holds a lone surrogate (see `LONE_SURROGATE`). */
  lone?: true;
}

/** Printable ASCII but `"` and `\\`: JSON writes such a string as it is, between quotes. */
// eslint-disable-next-line no-control-regex
const NEEDS_JSON_ESCAPE_OR_UTF8 = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

function jsonOf(s: string): JsonText {
  if (!NEEDS_JSON_ESCAPE_OR_UTF8.test(s)) return { json: `"${s}"`, bytes: s.length + 2 };
  const json = JSON.stringify(s);
  return LONE_SURROGATE.test(s) ? { json, bytes: Buffer.byteLength(json, 'utf8'), lone: true } : { json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** `"key":` per key (keys are few and repeat), boundedly. */
const keyJson = new Map<string, JsonText>();

/** What `cleanCheck` needs of a key, in one lookup: its `"key":` sizes and whether it names a credential. */
interface KeyInfo {
  bytes: number;
  chars: number;
  sensitive: boolean;
  /** The key holds a lone surrogate (then `sensitive` too). */
  lone?: true;
}
const keyInfos = new Map<string, KeyInfo>();

/** The keys of nearly every message (none names a credential): found by comparison, not hashing. */
const K5 = { bytes: 5, chars: 5, sensitive: false };
const K6 = { bytes: 6, chars: 6, sensitive: false };
const K7 = { bytes: 7, chars: 7, sensitive: false };
const K8 = { bytes: 8, chars: 8, sensitive: false };
const K9 = { bytes: 9, chars: 9, sensitive: false };
const K10 = { bytes: 10, chars: 10, sensitive: false };
const K12 = { bytes: 12, chars: 12, sensitive: false };

function keyInfo(key: string): KeyInfo {
  switch (key) {
    case 'id':
      return K5;
    case 'text':
    case 'name':
    case 'type':
    case 'data':
      return K7;
    case 'method':
    case 'params':
    case 'result':
      return K9;
    case 'jsonrpc':
    case 'content':
    case 'message':
      return K10;
    case 'arguments':
      return K12;
    case 'error':
    case '_meta':
      return K8;
    case 'uri':
      return K6;
    case 'isError':
      return K10;
  }
  let k = keyInfos.get(key);
  if (k === undefined) {
    const j = jsonOf(key);
    // A key with a lone surrogate never passes as clean (see `LONE_SURROGATE`): `sensitive` takes
    // it off the common path, `lone` rejects it there.
    k = j.lone === true ? { bytes: j.bytes + 1, chars: j.json.length + 1, sensitive: true, lone: true } : { bytes: j.bytes + 1, chars: j.json.length + 1, sensitive: isSensitiveKey(key) };
    if (keyInfos.size >= MAX_KEY_VERDICTS) keyInfos.clear();
    if (key.length <= 256) keyInfos.set(key, k);
  }
  return k;
}

/**
 * Whether a JSON text may write the number `x` in fewer characters than `JSON.stringify` does.
 * `isClean(value, true)` compares a peer's text with the length of its parsed value's compact
 * JSON, so that a text holding more than the value (a member repeated under one name: JSON.parse
 * keeps the last) is never written as it is; that comparison holds only while no part of the text
 * can be shorter than its compact JSON. Strings cannot (JSON.stringify writes every character in
 * its shortest form; lone surrogates aside, see `LONE_SURROGATE`); numbers only through an
 * exponent: an integer written with three or more trailing zeros (`1e3` for 1000), a fraction below 0.01
 * (`1e-3` for 0.001, `12e-8` for 1.2e-7) and anything from 1e21 on (`1e21`, not `1e+21`).
 * Other numbers a text writes no shorter than JSON.stringify (same digits, or more).
 */
function mayBeWrittenShorter(x: number): boolean {
  const a = Math.abs(x);
  if (a >= 1e21) return true;
  // (beyond 2^53 JSON writes the shortest digits that round-trip, padded with zeros: 2520063900022630000
  // is a double whose exact value does not end in 000, but a text may write it as 252006390002263e4)
  if (Math.floor(a) === a) return a !== 0 && (a < 2 ** 53 ? a % 1000 === 0 : String(a).endsWith('000'));
  return a < 0.01;
}

/**
 * A lone surrogate: JSON.stringify writes it as `\udXXX` (6 characters) where a peer's text may
 * hold it raw (1), so a string or key holding one is never counted as clean (see
 * `mayBeWrittenShorter`). Text decoded from UTF-8 bytes has none.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** An enumerable property on Object.prototype would show in `for…in` but not in JSON: leave such a process to the full walk. */
const EMPTY = {};
function prototypePolluted(): boolean {
  for (const _ in EMPTY) return true;
  return false;
}

function isOAuthCode(obj: Record<string, unknown>): boolean {
  for (const k of OAUTH_SIBLINGS) if (k in obj) return true;
  return false;
}

/**
 * Walks values for the trace writer. One instance per tracer; not re-entrant (it keeps the
 * walk's state in fields so the hot path allocates only where something changes).
 */
export class Redactor {
  readonly maxStringBytes: number;
  private readonly maxDepth: number;
  private readonly exactSecrets = new Set<string>();
  private readonly substringSecrets = new Set<string>();
  /** The values given to `addSecrets` (for `removeSecrets`). */
  private readonly values = new Set<string>();
  private secretRe: RegExp | undefined;
  private maxSecretLength = 0;
  private readonly stack: object[] = [];
  private readonly scrubCache = new Map<string, string>();
  /** Short strings the redaction leaves alone, with their JSON; null for those it changes. */
  private readonly jsonCache = new Map<string, JsonText | null>();
  private truncBuf: Uint8Array | undefined;
  /** UTF-8 length of the compact JSON of the value last passed to `redact()`. */
  lastBytes = 0;
  /** After `isClean()` returned true: the UTF-16 length of that compact JSON. */
  lastChars = 0;
  /** `isClean`'s `parsed` for the walk under way. */
  private parsed = false;
  /** `"form"` for each short secret form matched whole (`exactSecrets`), as JSON text holds it. */
  private exactJson: string[] = [];

  constructor(options: RedactOptions = {}) {
    this.maxStringBytes = Math.max(64, options.maxStringBytes ?? DEFAULT_MAX_STRING_BYTES);
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (options.secrets) this.addSecrets(options.secrets);
  }

  /**
   * Adds values to redact (e.g. a token obtained at run time), each in all its `secretForms`.
   * Empty strings are ignored; values shorter than `MIN_SECRET_LENGTH` are redacted only where a
   * whole string equals them (or their URL-encoded form).
   */
  addSecrets(values: Iterable<string>): void {
    for (const v of values) {
      if (typeof v !== 'string' || v.length === 0) continue;
      this.values.add(v);
      if (v.length < MIN_SECRET_LENGTH) {
        this.exactSecrets.add(v);
        this.exactSecrets.add(encodeURIComponent(v));
        continue;
      }
      for (const f of secretForms(v)) {
        if (f.length < MIN_SECRET_LENGTH) this.exactSecrets.add(f);
        else this.substringSecrets.add(f);
      }
    }
    // A form holding another (`Bearer X` holds `X`) is redacted through it: the regex needs only
    // the shortest ones, which keeps the alternation small.
    const list: string[] = [];
    for (const f of [...this.substringSecrets].sort((a, b) => a.length - b.length)) if (!list.some((k) => f.includes(k))) list.push(f);
    list.reverse();
    this.maxSecretLength = 0;
    for (const f of this.substringSecrets) this.maxSecretLength = Math.max(this.maxSecretLength, f.length);
    this.secretRe = list.length ? new RegExp(list.map(escapeRegExp).join('|'), 'g') : undefined;
    this.exactJson = [...this.exactSecrets].map((e) => JSON.stringify(e));
    this.scrubCache.clear();
    this.jsonCache.clear();
  }

  /**
   * Stops redacting `values` (added before), e.g. the id of an HTTP session that was replaced: a
   * long-lived client renews its session again and again, and every id kept would make every
   * later redaction slower (one alternation of all their forms) and the process bigger.
   */
  removeSecrets(values: Iterable<string>): void {
    let removed = false;
    for (const v of values) if (this.values.delete(v)) removed = true;
    if (!removed) return;
    const keep = [...this.values];
    this.values.clear();
    this.exactSecrets.clear();
    this.substringSecrets.clear();
    this.addSecrets(keep);
  }

  /** Whether any secret value is configured. */
  get hasSecrets(): boolean {
    return this.secretRe !== undefined || this.exactSecrets.size > 0;
  }

  /**
   * Replaces the configured secret values (in all their forms) in `s`, and nothing else: no
   * pattern rules, no truncation. For data that must stay intact but for credentials (tool
   * results handed to an agent).
   */
  redactSecrets(s: string): string {
    if (this.exactSecrets.has(s)) return REDACTED;
    const re = this.secretRe;
    if (re === undefined) return s;
    re.lastIndex = 0;
    if (!re.test(s)) return s;
    re.lastIndex = 0;
    return s.replace(re, REDACTED);
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

  /**
   * Whether `redact(value)` would give `value` back unchanged and JSON would write it as plain
   * data (the conditions of `redactJson`'s fast path), without writing anything; sets `lastBytes`
   * to the UTF-8 length of its compact JSON when it returns true. For a message whose JSON text
   * exists already (what the transport writes or read): the trace reuses that text.
   *
   * `parsed`: the value came from `JSON.parse` (an incoming message), so every object in it is
   * plain data with Object.prototype and no `toJSON`: those two checks are skipped; and its text
   * may hold more than the value (a repeated member), so the walk returns false for anything the
   * text could have written shorter than `lastChars` counts (`mayBeWrittenShorter`,
   * `LONE_SURROGATE`): a text as long as `lastChars` then holds exactly the value.
   */
  isClean(value: unknown, parsed = false): boolean {
    this.lastBytes = 0;
    this.lastChars = 0;
    this.parsed = parsed;
    if (prototypePolluted()) return false;
    if (typeof value === 'object' && value !== null) return this.cleanCheck(value, 0);
    return (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) && this.cleanMember(value, 0);
  }

  private cleanCheck(v: object, depth: number): boolean {
    if (depth >= this.maxDepth) return false;
    if (Array.isArray(v)) {
      if (!this.parsed && typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
      const n = v.length;
      this.lastBytes += n > 0 ? n + 1 : 2; // brackets and commas
      this.lastChars += n > 0 ? n + 1 : 2;
      for (let i = 0; i < n; i++) if (!this.cleanMember(v[i], depth)) return false;
      return true;
    }
    // A plain object: what JSON.parse makes, and object literals. (`constructor` is read rather
    // than the prototype, which costs a runtime call; an own `constructor` member or a null
    // prototype only sends the value to the full walk.) toJSON is Object.prototype's: none.
    if (!this.parsed && ((v as { constructor?: unknown }).constructor !== Object || typeof (v as { toJSON?: unknown }).toJSON === 'function')) return false;
    const obj = v as Record<string, unknown>;
    const checkKeys = this.secretRe !== undefined || this.exactSecrets.size > 0;
    let members = 1; // the opening brace; each member adds its comma or the closing brace
    for (const key in obj) {
      const x = obj[key];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue; // JSON leaves the member out
      const k = keyInfo(key);
      if (k.sensitive) {
        if (typeof x === 'string' || (typeof x === 'object' && x !== null) || k.lone === true) return false;
      } else if (key === 'code' && typeof x === 'string' && isOAuthCode(obj)) {
        return false;
      }
      if (checkKeys && this.scrub(key) !== key) return false;
      if (!this.cleanMember(x, depth)) return false;
      this.lastBytes += k.bytes;
      this.lastChars += k.chars;
      members++;
    }
    if (members === 1) members = 2; // {}
    this.lastBytes += members;
    this.lastChars += members;
    return true;
  }

  /** One array element or member value for `cleanCheck` (arrays write `null` where JSON has no value). */
  private cleanMember(x: unknown, depth: number): boolean {
    // (`typeof x === '…'` tests, not a switch on `typeof x`: optimized code tests types directly
    // instead of building the type's name)
    let n: number;
    if (typeof x === 'string') {
      const j = this.cleanString(x);
      if (j === undefined) return false;
      this.lastChars += j.length;
      return true;
    } else if (typeof x === 'number') {
      if (x >= 0 && x < 1e9 && Math.floor(x) === x) {
        // (1000, 2000…: a peer may have written 1e3, shorter than JSON's digits; see below)
        if (x >= 1000 && this.parsed && x % 1000 === 0) return false;
        n = x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : 9;
      } else if (Number.isFinite(x)) {
        if (this.parsed && mayBeWrittenShorter(x)) return false;
        n = String(x).length;
      } else {
        n = 4;
      }
    } else if (typeof x === 'object') {
      if (x !== null) return this.cleanCheck(x, depth + 1);
      n = 4;
    } else if (typeof x === 'boolean') {
      n = x ? 4 : 5;
    } else if (typeof x === 'bigint') {
      return false;
    } else {
      n = 4; // undefined, function, symbol: an array element JSON writes as null
    }
    this.lastBytes += n;
    this.lastChars += n;
    return true;
  }

  /**
   * Whether `text` holds a configured secret in a form the redaction replaces: for the JSON text
   * of a message `isClean()` passed, which may hold what the parsed value does not (a member
   * repeated under the same name keeps only its last value).
   */
  textHasSecret(text: string): boolean {
    const re = this.secretRe;
    if (re !== undefined) {
      re.lastIndex = 0;
      if (re.test(text)) return true;
    }
    for (const e of this.exactJson) if (text.includes(e)) return true;
    return false;
  }

  /** JSON of a string the redaction leaves alone (counting its bytes), or undefined. */
  private cleanString(s: string): string | undefined {
    if (s.length <= SCRUB_CACHE_MAX_LENGTH) {
      let c = this.jsonCache.get(s);
      if (c === undefined) {
        c = this.redactString(s) === s ? jsonOf(s) : null;
        if (c !== null && c.lone === true) c = null;
        if (this.jsonCache.size >= SCRUB_CACHE_SIZE) this.jsonCache.clear();
        this.jsonCache.set(s, c);
      }
      if (c === null) return undefined;
      this.lastBytes += c.bytes;
      return c.json;
    }
    if (this.redactString(s) !== s) return undefined;
    const c = jsonOf(s);
    if (c.lone === true) return undefined;
    this.lastBytes += c.bytes;
    return c.json;
  }

  /** `"key":` for a key the redaction leaves alone (counting its bytes), or undefined. */
  private cleanKey(key: string, checkKeys: boolean): string | undefined {
    let c = keyJson.get(key);
    if (c === undefined) {
      const j = jsonOf(key);
      c = { json: `${j.json}:`, bytes: j.bytes + 1 };
      if (keyJson.size >= MAX_KEY_VERDICTS) keyJson.clear();
      keyJson.set(key, c);
    }
    if (checkKeys && this.scrub(key) !== key) return undefined;
    this.lastBytes += c.bytes;
    return c.json;
  }

  private cleanJson(v: object, depth: number): string | undefined {
    if (depth >= this.maxDepth) return undefined;
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return undefined;
    if (Array.isArray(v)) {
      const n = v.length;
      this.lastBytes += n > 0 ? n + 1 : 2; // brackets and commas
      let out = '[';
      for (let i = 0; i < n; i++) {
        const x: unknown = v[i];
        let j: string | undefined;
        switch (typeof x) {
          case 'string':
            j = this.cleanString(x);
            break;
          case 'number':
            j = Number.isFinite(x) ? String(x) : 'null';
            this.lastBytes += j.length;
            break;
          case 'boolean':
            j = x ? 'true' : 'false';
            this.lastBytes += j.length;
            break;
          case 'object':
            if (x === null) {
              j = 'null';
              this.lastBytes += 4;
            } else {
              j = this.cleanJson(x, depth + 1);
            }
            break;
          case 'bigint':
            return undefined;
          default: // undefined, function, symbol: JSON writes null
            j = 'null';
            this.lastBytes += 4;
        }
        if (j === undefined) return undefined;
        out += i === 0 ? j : `,${j}`;
      }
      return `${out}]`;
    }
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto !== Object.prototype && proto !== null) return undefined;
    const obj = v as Record<string, unknown>;
    const checkKeys = this.secretRe !== undefined || this.exactSecrets.size > 0;
    this.lastBytes += 2;
    let out = '{';
    let first = true;
    for (const key in obj) {
      const x = obj[key];
      let j: string | undefined;
      switch (typeof x) {
        case 'string':
          if (isSensitiveKey(key) || (key === 'code' && isOAuthCode(obj))) return undefined;
          j = this.cleanString(x);
          break;
        case 'number':
          j = Number.isFinite(x) ? String(x) : 'null';
          this.lastBytes += j.length;
          break;
        case 'boolean':
          j = x ? 'true' : 'false';
          this.lastBytes += j.length;
          break;
        case 'object':
          if (x === null) {
            j = 'null';
            this.lastBytes += 4;
          } else {
            if (isSensitiveKey(key)) return undefined;
            j = this.cleanJson(x, depth + 1);
          }
          break;
        case 'bigint':
          return undefined;
        default:
          continue; // undefined, function, symbol: JSON leaves the member out
      }
      if (j === undefined) return undefined;
      const k = this.cleanKey(key, checkKeys);
      if (k === undefined) return undefined;
      if (first) {
        out += k + j;
        first = false;
      } else {
        out += `,${k}${j}`;
        this.lastBytes += 1;
      }
    }
    return `${out}}`;
  }

  /** Returns the redacted form of `value`; sets `lastBytes` to the JSON size of the original. */
  redact(value: unknown): unknown {
    this.lastBytes = 0;
    this.stack.length = 0;
    return this.walk(value, 0);
  }

  /** Redacts one string (secrets, credentials in text, length). */
  redactString(s: string): string {
    if (s.length > this.maxStringBytes && s.length * 3 > this.maxStringBytes) {
      const total = Buffer.byteLength(s, 'utf8');
      if (total > this.maxStringBytes) return this.truncate(s, total);
    }
    return this.scrub(s);
  }

  /** Short strings repeat (`2.0`, method names, keys): remember their scrubbed form, boundedly. */
  private scrub(s: string): string {
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
    if (this.exactSecrets.has(s)) return REDACTED;
    let r = s;
    const re = this.secretRe;
    if (re !== undefined) {
      re.lastIndex = 0;
      if (re.test(r)) {
        re.lastIndex = 0;
        r = r.replace(re, REDACTED);
      }
      if (r.indexOf('…') !== -1) r = this.redactCutSecrets(r);
    }
    if (r.indexOf('=') !== -1 || r.indexOf(':') !== -1) r = redactAssignments(r);
    if (r.indexOf('":') !== -1) {
      JSON_PAIR.lastIndex = 0;
      if (JSON_PAIR.test(r)) {
        JSON_PAIR.lastIndex = 0;
        r = r.replace(JSON_PAIR, (all: string, head: string, name: string) => (NOT_SENSITIVE.test(name) ? all : head + REDACTED));
      }
    }
    const colon = r.indexOf(':') !== -1;
    if (colon && r.length > 14 && (r.indexOf('uthorization') !== -1 || r.indexOf('UTHORIZATION') !== -1)) {
      AUTH_HEADER.lastIndex = 0;
      if (AUTH_HEADER.test(r)) {
        AUTH_HEADER.lastIndex = 0;
        r = r.replace(AUTH_HEADER, authHeader);
      }
    }
    if (colon && r.indexOf('@') !== -1 && r.indexOf('://') !== -1) r = redactUserInfo(r);
    if (r.length > 6 && (r.indexOf('Bearer') !== -1 || r.indexOf('Basic') !== -1)) {
      AUTH_SCHEME.lastIndex = 0;
      if (AUTH_SCHEME.test(r)) {
        AUTH_SCHEME.lastIndex = 0;
        r = r.replace(AUTH_SCHEME, `$1$2${REDACTED}`);
      }
    }
    return r;
  }

  /**
   * A text cut short with `…` (an excerpt of an HTTP body, a capped message) may end in the first
   * part of a secret: a head of at least `MIN_SECRET_LENGTH` characters of a configured secret
   * right before a `…` is redacted too.
   */
  private redactCutSecrets(r: string): string {
    let out = '';
    let last = 0;
    for (let i = r.indexOf('…'); i !== -1; i = r.indexOf('…', i + 1)) {
      let best = 0;
      for (const secret of this.substringSecrets) {
        const first = secret.charCodeAt(0);
        for (let j = Math.max(last, i - secret.length + 1); j <= i - MIN_SECRET_LENGTH && i - j > best; j++) {
          if (r.charCodeAt(j) === first && secret.startsWith(r.slice(j, i))) {
            best = i - j;
            break;
          }
        }
      }
      if (best > 0) {
        out += r.slice(last, i - best) + REDACTED;
        last = i;
      }
    }
    return last === 0 ? r : out + r.slice(last);
  }

  /** Keeps a redacted head of at most `maxStringBytes` bytes (never splitting a character). */
  private truncate(s: string, totalBytes: number): string {
    // Scrub a little past the cut so a secret straddling it is redacted, not half-kept.
    const head = this.scrub(s.slice(0, this.maxStringBytes + this.maxSecretLength + 1));
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
    const checkKeys = this.secretRe !== undefined || this.exactSecrets.size > 0;
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

/** `Authorization: <rest of line>`: a token68 credential (after an optional scheme) goes; an auth-param list (`Digest k="v", …`) goes to the end of the line. */
function authHeader(all: string, head: string, rest: string): string {
  if (rest.startsWith(REDACTED) || rest === '') return all;
  const m = /^([A-Za-z][\w-]*)(\s+)(\S[\s\S]*)$/.exec(rest);
  if (m === null) return head + rest.replace(/^[^\s"'\\,;]+/, REDACTED);
  const cred = m[3];
  if (cred.startsWith(REDACTED)) return all;
  const token68 = /^[A-Za-z0-9._~+/-]+=*(?=$|[\s"'\\,;)])/.exec(cred);
  if (token68 !== null && !/^[A-Za-z][\w-]*=[^=]/.test(cred)) return `${head}${m[1]}${m[2]}${REDACTED}${cred.slice(token68[0].length)}`;
  return `${head}${m[1]}${m[2]}${REDACTED}`;
}

/** `[A-Za-z0-9_.-]`: the characters of a parameter or variable name. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}

/** What may come before a query/form parameter name: start, `?`, `&`, `#`, `;`, `,`, whitespace. */
function isParamStart(c: number): boolean {
  return c === 63 || c === 38 || c === 35 || c === 59 || c === 44 || c === 32 || c === 9 || c === 10 || c === 13;
}

/** The end of the run of characters from `from` that `ok` accepts. */
function runEnd(r: string, from: number, ok: (c: number) => boolean): number {
  let i = from;
  while (i < r.length && ok(r.charCodeAt(i))) i++;
  return i;
}
const queryValueChar = (c: number): boolean => !(c === 38 || c === 35 || c === 34 || c === 39 || c === 60 || c === 62 || c <= 32);
const envValueChar = (c: number): boolean => !(c <= 32 || c === 39 || c === 34 || c === 38 || c === 44 || c === 59 || c === 125 || c === 92);

/** Names repeat (`https`, `page`, `id`…): their verdicts, boundedly. 1: a credential-like parameter name; 2: an env-style credential name. */
const nameVerdicts = new Map<string, number>();

function nameVerdict(name: string): number {
  let v = nameVerdicts.get(name);
  if (v === undefined) {
    v = 0;
    if (name !== '' && !NOT_SENSITIVE.test(name)) {
      const dash = name.lastIndexOf('-');
      if (SENSITIVE_QUERY_NAME.test(name) || (dash > 0 && SENSITIVE_QUERY_NAME.test(name.slice(dash + 1)))) v |= 1;
      if (CREDENTIAL_WORD.test(name)) v |= 2;
    }
    if (name.length <= 64) {
      if (nameVerdicts.size >= MAX_KEY_VERDICTS) nameVerdicts.clear();
      nameVerdicts.set(name, v);
    }
  }
  return v;
}

/**
 * One pass over the `=` and `:` of `r`, for two rules on the name before it (the run of name
 * characters, spaces allowed before the separator):
 * - `name=value` with a credential-like parameter name (`QUERY_NAMES`) after the start, `?`,
 *   `&`, `#`, `;`, `,` or whitespace: URLs, form bodies, `--token=…`;
 * - `NAME=value` / `NAME: value` / `NAME: 'value'` with a credential word in the name
 *   (`CREDENTIAL_WORD`: `GITHUB_TOKEN`, `MY_SECRET_X`, `DB_PASSWORD`, also after an escaped newline
 *   `\u000a` as `excerpt()` writes one): shell, .env, util.inspect, YAML.
 * Protocol names (`progressToken`, `maxTokens`, `token_type`…) are left alone. The value goes.
 */
function redactAssignments(r: string): string {
  let out = '';
  let last = 0;
  // The separators in order, found with indexOf (far faster than a loop over every character).
  let eq = r.indexOf('=');
  let colon = r.indexOf(':');
  for (let i = 0; eq !== -1 || colon !== -1; ) {
    if (eq !== -1 && eq < i) eq = r.indexOf('=', i);
    if (colon !== -1 && colon < i) colon = r.indexOf(':', i);
    if (eq === -1 && colon === -1) break;
    i = eq === -1 ? colon : colon === -1 ? eq : Math.min(eq, colon);
    const sep = r.charCodeAt(i);
    i++;
    const at = i - 1;
    if (sep === 58 && r.charCodeAt(i) === 47) continue; // `scheme:/`: a URL, not an assignment
    let e = at;
    while (e > last && r.charCodeAt(e - 1) === 32) e--;
    let b = e;
    while (b > last && isNameChar(r.charCodeAt(b - 1))) b--;
    if (b === e) continue;
    let name = r.slice(b, e);
    if (b > 0 && r.charCodeAt(b - 1) === 92 && /^u00[0-9a-f]{2}/i.test(name)) name = name.slice(5); // `\u000aNAME`
    const verdict = nameVerdict(name);
    if (verdict === 0) continue;
    let v = at + 1;
    let end: number;
    if ((verdict & 1) !== 0 && sep === 61 && e === at && (b === 0 || isParamStart(r.charCodeAt(b - 1)))) {
      if (r.charCodeAt(v) === 34 || r.charCodeAt(v) === 39) v++;
      end = runEnd(r, v, queryValueChar);
    } else if ((verdict & 2) !== 0) {
      while (r.charCodeAt(v) === 32) v++;
      if (r.charCodeAt(v) === 34 || r.charCodeAt(v) === 39) v++;
      end = runEnd(r, v, envValueChar);
    } else {
      continue;
    }
    if (end === v || r.startsWith(REDACTED, v)) continue;
    out += r.slice(last, v) + REDACTED;
    last = end;
    i = end;
  }
  return last === 0 ? r : out + r.slice(last);
}

/** `scheme://user:pass@` → `scheme://user:[redacted]@`; `scheme://token@` → `scheme://[redacted]@`. */
function redactUserInfo(r: string): string {
  let out = '';
  let last = 0;
  for (let i = r.indexOf('://'); i !== -1; i = r.indexOf('://', i + 3)) {
    if (i === 0 || i < last || !isNameChar(r.charCodeAt(i - 1))) continue;
    const at = r.indexOf('@', i + 3);
    if (at === -1) break;
    const slash = r.indexOf('/', i + 3);
    if (slash !== -1 && slash < at) continue; // a path before any `@`: no user info
    USERINFO_AT.lastIndex = i + 3;
    const m = USERINFO_AT.exec(r);
    if (m === null) continue;
    const info = m[0].slice(0, -1);
    const colon = info.indexOf(':');
    out += r.slice(last, i + 3) + (colon === -1 ? REDACTED : `${info.slice(0, colon + 1)}${REDACTED}`) + '@';
    last = i + 3 + m[0].length;
  }
  return last === 0 ? r : out + r.slice(last);
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

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return 'null';
  }
}

/** One-shot convenience: redacts `value` with the default rules plus `secrets`. */
export function redact(value: unknown, options?: RedactOptions): unknown {
  return new Redactor(options).redact(value);
}
