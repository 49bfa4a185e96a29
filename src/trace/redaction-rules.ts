/**
 * The redaction rules that need no configured value: keys named like credentials (`isSensitiveKey`,
 * `isOAuthCode`) and credentials written out in text (`redactPatterns`: query/form parameters,
 * env-style assignments, JSON members, `Authorization:` lines, `Bearer …`/`Basic …`, URL user
 * info). The list of what each rule covers is in `redact.ts` and `README.md`.
 */
import { SENSITIVE_QUERY_NAME } from './secret-forms.js';

export const REDACTED = '[redacted]';

/** Keys whose values are credentials. Matched case-insensitively on the whole key. */
const SENSITIVE_KEY =
  /^(?:(?:proxy[-_]?)?authorization|dpop(?:[-_]?nonce)?|cookie|set[-_]?cookie|x[-_]?api[-_]?key|api[-_]?key|code[-_]?verifier|client[-_]?assertion|private[-_]?key|passwd|credentials?|.*tokens?|.*secrets?|.*password|.*api[-_]?key)$/i;
/** Keys that look sensitive by the suffix rule but are protocol fields, not secrets. */
export const NOT_SENSITIVE = /^(?:progress[-_]?token|next[-_]?token|token[-_]?type|max[-_]?tokens?)$/i;
/** Siblings that make a `code` key an OAuth authorization code. */
const OAUTH_SIBLINGS = ['state', 'redirect_uri', 'code_verifier', 'grant_type', 'client_id', 'iss', 'session_state'];

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

/** Keys repeat endlessly (`jsonrpc`, `id`, `params`…): remember the verdicts, boundedly. */
const keyVerdicts = new Map<string, boolean>();
export const MAX_KEY_VERDICTS = 4096;

export function isSensitiveKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = SENSITIVE_KEY.test(key) && !NOT_SENSITIVE.test(key);
    if (keyVerdicts.size < MAX_KEY_VERDICTS && key.length <= 64) keyVerdicts.set(key, v);
  }
  return v;
}

export function isOAuthCode(obj: Record<string, unknown>): boolean {
  for (const k of OAUTH_SIBLINGS) if (k in obj) return true;
  return false;
}

/**
 * The credentials `s` writes out in text (see the module comment), each value replaced by
 * `REDACTED`; `s` itself when there is none.
 */
export function redactPatterns(s: string): string {
  let r = s;
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
      if (sep === 58 && isProse(r, b, e, v, end)) continue;
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

/** A run of lowercase ASCII letters from `from` to `to` (at least one). */
function lowercaseWord(r: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = r.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

/**
 * `name: value` that is a sentence, not a credential: `needs a bearer token: give --token-env
 * <NAME>`, `OAuth tokens: logout <id>`. The name is a word as prose writes it (lowercase, or
 * capitalized: not `GITHUB_TOKEN`, `api_key`, `Api-Key`), a space follows the colon, and the
 * value is an unquoted lowercase word followed by more text on the same line. A credential
 * written so (`password: hunter2`, `token: ghp_…`, `password: letmein` at the end of its line,
 * `DB_PASSWORD: x y`, `token: 'x y'`) is still redacted.
 */
function isProse(r: string, nameStart: number, nameEnd: number, v: number, end: number): boolean {
  if (v === nameEnd + 1 || r.charCodeAt(nameEnd) !== 58) return false; // `name:value`, or spaces before the colon
  const first = r.charCodeAt(nameStart);
  if (!lowercaseWord(r, nameStart + 1, nameEnd) || !(lowercaseWord(r, nameStart, nameStart + 1) || (first >= 65 && first <= 90))) return false;
  if (!lowercaseWord(r, v, end)) return false; // quoted (v past the quote) values fail here too: `"` or `'` ends no word
  const q = r.charCodeAt(v - 1);
  if (q === 34 || q === 39) return false;
  return r.charCodeAt(end) === 32 && end + 1 < r.length && r.charCodeAt(end + 1) > 32;
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
