/**
 * The headers the HTTP tap passes on, each way, and the upstream's user info as credentials.
 *
 * RFC 9110 §7.6.1: a proxy removes the `Connection` header, every header named in it, and the
 * hop-by-hop headers (`Proxy-Connection`, `Keep-Alive`, `TE`, `Transfer-Encoding`, `Upgrade`).
 * The tap also drops `Host` (the upstream's is set), `Accept-Encoding` (bodies stay readable for
 * the trace) and the proxy's own credentials; `Content-Length` is kept because the body is
 * relayed unchanged.
 */
import type http from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'host', 'accept-encoding']);

/** The header names `Connection` lists (lower case). */
function connectionOptions(headers: http.IncomingHttpHeaders): Set<string> {
  const names = new Set<string>();
  for (const field of [headers.connection, headers['proxy-connection']]) {
    for (const v of Array.isArray(field) ? field : field === undefined ? [] : [field]) {
      for (const name of String(v).split(',')) if (name.trim()) names.add(name.trim().toLowerCase());
    }
  }
  return names;
}

/** The end-to-end headers of `headers`: without hop-by-hop ones and those `Connection` names. */
export function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = connectionOptions(headers);
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

/** Credentials in an upstream URL's user info, taken out of the URL. */
export interface UpstreamCredentials {
  /** `Basic …` for the upstream's `Authorization` header. */
  authorization: string;
  /** Values to redact: the header value (its forms are derived by the tracer) and the secret part. */
  secrets: string[];
}

/** `https://user:pass@host/…` → Basic credentials; `undefined` without user info. Clears them from `url`. */
export function takeUserInfo(url: URL): UpstreamCredentials | undefined {
  if (!url.username && !url.password) return undefined;
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const authorization = `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
  // Without a password the user name is the credential (`https://TOKEN@host`).
  return { authorization, secrets: [authorization, pass || user] };
}
