/**
 * Parsing `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1) for the Bearer
 * challenge: `resource_metadata`, `scope`, `error` (basic.authorization#18). Tolerant of
 * several challenges in one header, quoted strings with escapes and token68 values.
 */
import type { BearerChallenge } from './types.js';

const MAX_HEADER = 8192;

/**
 * The Bearer challenge of a WWW-Authenticate value — else its DPoP challenge (RFC 9449 §7.1: same
 * parameters) — or undefined when there is neither.
 */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (header === undefined) return undefined;
  const all = parseChallenges(header.slice(0, MAX_HEADER));
  return all.find((ch) => ch.scheme === 'bearer') ?? all.find((ch) => ch.scheme === 'dpop');
}

/** Every challenge of a WWW-Authenticate value. */
export function parseChallenges(header: string): BearerChallenge[] {
  const out: BearerChallenge[] = [];
  let i = 0;
  const n = header.length;
  let current: BearerChallenge | undefined;
  const skipWs = (): void => {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  while (i < n) {
    skipWs();
    if (header[i] === ',') {
      i++;
      continue;
    }
    const start = i;
    while (i < n && /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(header[i]!)) i++;
    const token = header.slice(start, i);
    if (token === '') {
      i++;
      continue;
    }
    skipWs();
    if (header[i] === '=') {
      // auth-param name=value (or the tail of a token68 like `abc==`)
      i++;
      skipWs();
      let value: string;
      if (header[i] === '"') {
        i++;
        let v = '';
        while (i < n && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < n) i++;
          v += header[i];
          i++;
        }
        i++;
        value = v;
      } else {
        const vs = i;
        while (i < n && header[i] !== ',' && header[i] !== ' ' && header[i] !== '\t') i++;
        value = header.slice(vs, i);
      }
      if (current !== undefined) addParam(current, token.toLowerCase(), value);
    } else {
      // a new scheme
      current = { scheme: token.toLowerCase(), params: {} };
      out.push(current);
    }
  }
  return out;
}

function addParam(ch: BearerChallenge, name: string, value: string): void {
  if (name in ch.params) return; // first wins (RFC 9110: a parameter MUST NOT occur twice)
  ch.params[name] = value;
  if (name === 'resource_metadata' || name === 'scope' || name === 'error' || name === 'error_description' || name === 'realm') {
    ch[name] = value;
  }
}
