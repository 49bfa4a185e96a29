/**
 * The forms of a configured secret that a server may echo (`secretForms`) and the credentials
 * inside a URL (`urlSecrets`): what `SecretSet` registers for each value it is given.
 */

/**
 * Configured values shorter than this are redacted only where a whole string equals them (an env
 * value like `1`, `dev` or `info` would otherwise blank every occurrence of it in the trace).
 */
export const MIN_SECRET_LENGTH = 6;

/** Names of query/form parameters whose values are credentials (`--token=` too). */
const QUERY_NAMES =
  '(?:code|state_token|token|password|passwd|secret|assertion|client_assertion|code_verifier|key|apikey|sig|signature|auth|credential|session_?id|[\\w.-]*(?:_token|-token|token|_secret|-secret|secret|password|[-_]key|apikey|[-_]signature|[-_]sig|[-_]credential))';

/** Query parameter names whose values in a configured URL are credentials. */
export const SENSITIVE_QUERY_NAME = new RegExp(`^${QUERY_NAMES}$`, 'i');
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
