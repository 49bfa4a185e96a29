/**
 * Which requests a local HTTP listener of the tap layer (the tap, `replay --listen`) accepts.
 *
 * - The request target must be origin-form with a single leading `/`: a `//host/…` path, a
 *   `/\host/…` path (URL parsers read both as an authority) or an absolute-form
 *   `http://host/…` target would otherwise name another host, and a relay would connect there,
 *   credentials included. Browsers keep `//` paths, so a web page could use it. → 400.
 * - `Host` must name the listener itself, and `Origin`, when present, must be the listener's own
 *   origin: a page on another site that got a DNS name pointed at 127.0.0.1 (DNS rebinding)
 *   sends its own name in both. The listener is the server its host connects to, so it does what
 *   basic.transports#8/#9 ask of servers: validate `Origin`, 403 when it is present and invalid.
 */
import os from 'node:os';

export type Refusal = { status: 400 | 403; reason: string };

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD = new Set(['', '0.0.0.0', '::', '[::]']);

/** Whether `target` (the request line's target) is origin-form with one leading slash. */
export function isOriginForm(target: string | undefined): boolean {
  return typeof target === 'string' && target.startsWith('/') && target[1] !== '/' && target[1] !== '\\';
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The `host:port` values by which a client may name a listener bound to `bound` (the address it
 * listens on): that address, the loopback names when it is a loopback or wildcard address, and
 * every interface address when it is a wildcard. A DNS name pointed at one of these by someone
 * else is not among them: that is the rebinding this refuses.
 */
export function ownHosts(bound: string, port: number): Set<string> {
  const host = bound.toLowerCase();
  const names = new Set<string>();
  // The bound address as given, even a wildcard: it is the address the listener prints.
  if (host !== '') names.add(bracket(host));
  const loopback = host === 'localhost' || host.startsWith('127.') || host === '::1' || host === '[::1]';
  if (loopback || WILDCARD.has(host)) for (const n of LOOPBACK) names.add(n);
  if (WILDCARD.has(host)) {
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) names.add(bracket(a.address.toLowerCase()));
  }
  const out = new Set<string>();
  for (const n of names) {
    out.add(`${n}:${port}`);
    if (port === 80) out.add(n);
  }
  return out;
}

/** Why this request must not pass (`undefined`: it may). `hosts` comes from `ownHosts`. */
export function refusal(target: string | undefined, headers: { host?: string; origin?: string | string[] }, hosts: Set<string>): Refusal | undefined {
  if (!isOriginForm(target)) return { status: 400, reason: 'the request target must be a path starting with a single "/"' };
  const host = (headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) return { status: 403, reason: `Host "${headers.host ?? ''}" is not this listener's` };
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  if (typeof origin !== 'string' || !hosts.has(originHost(origin) ?? '')) return { status: 403, reason: `Origin "${String(origin)}" is not this listener's` };
  return undefined;
}

/** `host[:port]` of an `http:` origin as `Host` would write it; undefined for anything else (`null`, other schemes). */
function originHost(origin: string): string | undefined {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' || u.origin !== origin.toLowerCase().replace(/\/$/, '')) return undefined;
    return u.port ? `${u.hostname}:${u.port}` : `${u.hostname}:80`;
  } catch {
    return undefined;
  }
}
