/**
 * Which configured values are secrets. A server's env and header values are configuration: a
 * workspace name, a directory, a protocol version, a log level. Registered as secrets, each would
 * be cut out of every trace, error and result wherever its text appears (`X-Workspace: codelia`
 * turned `/tmp/codelia-cli-…` into `/tmp/[redacted]-cli-…`). So a value is a secret when
 * - its name says so (`isCredentialName`: token, key, secret, password, authorization, cookie,
 *   credential, session, signature, auth…), or
 * - it looks like a credential (`looksLikeCredential`: `Scheme credentials` such as `Bearer …`,
 *   known token prefixes such as `sk-`, `ghp_`, `xoxb-`, `AKIA…`, a JWT, a URL with credentials
 *   in it, or a long random-looking token), or
 * - the config marks it: its env or header name is listed in the entry's `secret_names`
 *   (`secretNames`), whatever it looks like.
 * The credentials in the server's URL (user info, credential-like query values) always are.
 */
import { urlSecrets } from './secret-forms.js';

/** What `configuredSecrets` reads of a server's config (an mcp `ServerConfig` or the host's normalized entry). */
export interface ConfiguredValues {
  env?: Record<string, string>;
  headers?: Record<string, string>;
  url?: string;
  /** Env and header names whose values are secrets whatever they look like (any case). */
  secretNames?: readonly string[];
}

/**
 * Env and header names of credentials, matched anywhere in the name, any case. `auth` but not
 * `author`/`authority`; `key`, `pat`, `sig`, `dsn`, `pwd` only as a word of the name (`DB_PWD`,
 * not `PWD`, the working directory).
 */
const CREDENTIAL_NAME =
  /secret|token|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credential|cookie|signature|session|bearer|jwt|auth(?!or(?!i[sz]))|(?:^|[_-])(?:keys?|pat|sig|dsn)(?:$|[_-])|[_-]pwd(?:$|[_-])/i;

/** `Scheme credentials` with an HTTP authentication scheme (RFC 9110 §11 and the registered ones). */
const AUTH_SCHEME_VALUE = /^(?:Bearer|Basic|Digest|Token|Negotiate|NTLM|Hawk|HOBA|Mutual|DPoP|MAC|OAuth|ApiKey|Key|SharedAccessSignature|AWS4-HMAC-SHA256|SCRAM-SHA-(?:1|256))\s+\S/i;

/** Prefixes of well-known API keys and tokens (OpenAI/Anthropic/Stripe `sk-`, GitHub, GitLab, Slack, AWS, Google, npm, Hugging Face…). */
const KNOWN_TOKEN =
  /^(?:(?:sk|rk|pk)[-_]|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|xapp-|(?:AKIA|ASIA)[0-9A-Z]{12}|AIza[0-9A-Za-z_-]{20}|ya29\.|npm_|hf_|shp(?:at|ss|ca|pa)_|whsec_|sq0[a-z]{3}-|SG\.|dop_v1_|glsa_|pypi-)/;

/** A JSON Web Token: three base64url parts, the first a JSON object (`eyJ`). */
const JWT = /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Hex digits, in groups joined by `-` (a UUID). */
const HEX_TOKEN = /^[0-9a-f]+(?:-[0-9a-f]+)*$/i;

/** Characters of tokens: base64, base64url, hex, and the separators keys use. */
const TOKEN_CHARS = /^[A-Za-z0-9+/=_.~-]+$/;

/** Whether an env or header name says its value is a credential. */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/**
 * Whether a value looks like a credential whatever it is called: `Scheme credentials`, a known
 * token prefix, a JWT, a URL with credentials, or a long random-looking token (see `randomLooking`).
 * Words, paths, dates, versions, host names and URLs without credentials do not.
 */
export function looksLikeCredential(value: string): boolean {
  const v = value.trim();
  if (v.length < 8) return false;
  if (AUTH_SCHEME_VALUE.test(v)) return true;
  if (/\s/.test(v)) return false;
  if ((KNOWN_TOKEN.test(v) && v.length >= 12) || JWT.test(v)) return true;
  if (v.includes('://')) return urlSecrets(v).length > 0;
  return randomLooking(v);
}

/**
 * A token of 16 or more characters that looks random: hex with letters and digits (`8f3e2a91c7d4…`,
 * a UUID); 20 or more characters mixing upper and lower case with many distinct characters
 * (base64 or base64url of random bytes); or one of its pieces (split at `-`, `_`, `.`, `~`, `/`) of 8
 * or more mixing letters and digits, or of 12 or more mixing cases. Mixing cases means three
 * capitals or more inside words, not at their start (`Acme-West` mixes nothing).
 * `production-eu-west-1`, `my-workspace-name`, `release-2024-build-1234` and `2025-11-25` are
 * none of these, nor is a path of such words (`/tmp/codelia-cli-1234`).
 */
function randomLooking(v: string): boolean {
  if (v.length < 16 || !TOKEN_CHARS.test(v)) return false;
  const digit = /[0-9]/.test(v);
  if (HEX_TOKEN.test(v) && digit && /[a-f]/i.test(v)) return true;
  if (v.length >= 20 && /[a-z]/.test(v) && innerCapitals(v) >= 3 && distinct(v) >= (digit ? 12 : 14)) return true;
  for (const piece of v.split(/[-_.~/]/)) {
    if (piece.length >= 8 && /[A-Za-z]/.test(piece) && /[0-9]/.test(piece) && distinct(piece) >= Math.min(6, piece.length / 2)) return true;
    if (piece.length >= 12 && /[a-z]/.test(piece) && innerCapitals(piece) >= 3 && distinct(piece) >= 10) return true;
  }
  return false;
}

/** Capitals that follow a letter or digit (a capital starting a word does not count). */
function innerCapitals(s: string): number {
  let n = 0;
  for (let i = 1; i < s.length; i++) if (/[A-Z]/.test(s[i]) && /[A-Za-z0-9]/.test(s[i - 1])) n++;
  return n;
}

function distinct(s: string): number {
  return new Set(s).size;
}

/** Whether the value of env variable or header `name` is a secret (see the module comment). */
export function isSecretSetting(name: string, value: string, marked: ReadonlySet<string> = new Set()): boolean {
  return marked.has(name.toLowerCase()) || isCredentialName(name) || looksLikeCredential(value);
}

/**
 * The values of a server's config that must never appear in a trace, an error or a result: the
 * env and header values that are secrets (`isSecretSetting`) and the credentials in its URL
 * (user info, credential-like query values; the URL itself stays readable). The redactor adds
 * each one's derived forms (the credentials of `Bearer X`, `Basic …` decoded, URL-encoded…).
 */
export function configuredSecrets(config: ConfiguredValues): string[] {
  const marked = new Set((config.secretNames ?? []).map((n) => n.toLowerCase()));
  const values: string[] = [];
  for (const settings of [config.env, config.headers]) {
    for (const [name, value] of Object.entries(settings ?? {})) {
      if (typeof value === 'string' && value !== '' && isSecretSetting(name, value, marked)) values.push(value);
    }
  }
  if (typeof config.url === 'string') values.push(...urlSecrets(config.url));
  return [...new Set(values.filter((v) => v !== ''))];
}
