/**
 * The host's filtering proxy for one sandboxed server with a network allow-list: an HTTP proxy
 * (CONNECT for TLS and anything else, absolute-form requests for plain HTTP) listening on a Unix
 * socket in a private 0700 directory — never on a TCP port — bound into the sandbox. It lets a
 * connection through only to a host name on the list (`api.github.com`, `*.npmjs.org`,
 * `host:port`); it resolves names itself (the sandbox has no DNS), and refuses an allowed name
 * that resolves to a loopback or link-local address unless the entry names that address or
 * `localhost` itself (a name cannot be used to reach the host's own services). Each refusal is
 * answered 403 and reported with the host name.
 */
import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { SandboxDenial } from './sandbox-policy.js';

export interface SandboxProxy {
  /** The Unix socket (host side; Linux), or … */
  readonly socket?: string;
  /** …the port on 127.0.0.1 (macOS: Seatbelt allows one loopback port, it cannot bind a socket in). */
  readonly port?: number;
  close(): void;
}

const MAX_SOCKETS = 256;
const CONNECT_TIMEOUT_MS = 15_000;

/** Whether `host:port` is on `allow` (names case-insensitive; `*.x` matches below x; an entry's `:port` must match). */
export function allowedBy(allow: readonly string[], host: string, port: number): string | undefined {
  const h = host.toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
  for (const entry of allow) {
    const m = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase())!;
    const name = m[1].replace(/^\[(.*)\]$/, '$1');
    if (m[2] !== undefined && Number(m[2]) !== port) continue;
    if (name === h || (name.startsWith('*.') && h.endsWith(name.slice(1)) && h.length > name.length - 1)) return entry;
  }
  return undefined;
}

/** Loopback or link-local (the host's own services, cloud metadata endpoints). */
export function isInternalAddress(address: string): boolean {
  if (net.isIPv4(address)) return address.startsWith('127.') || address.startsWith('169.254.') || address === '0.0.0.0';
  const a = address.toLowerCase();
  if (a.startsWith('::ffff:')) return isInternalAddress(a.slice(7));
  return a === '::1' || a === '::' || /^fe[89ab]/.test(a);
}

/** The address to connect to for `host:port`, or why not (see the module comment). */
export async function decideTarget(allow: readonly string[], host: string, port: number): Promise<{ address: string } | { refused: string }> {
  if (allowedBy(allow, host, port) === undefined) return { refused: 'not on the allow-list' };
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let address = bare;
  if (net.isIP(bare) === 0) {
    try {
      address = (await lookup(bare)).address;
    } catch {
      return { refused: 'name does not resolve' };
    }
  }
  const literal = net.isIP(bare) !== 0 || bare.toLowerCase() === 'localhost';
  if (isInternalAddress(address) && !literal) return { refused: `resolves to an internal address (${address})` };
  return { address };
}

type Deny = (host: string, port: number, reason: string) => void;
type Track = (s: Duplex) => void;

/** A plain-HTTP request in absolute form (`GET http://host/path`): forwarded when allowed. */
function plainRequest(allow: readonly string[], deny: Deny, req: http.IncomingMessage, res: http.ServerResponse): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400).end('mcpwire sandbox proxy: absolute http:// URL expected\n');
    return;
  }
  const port = Number(url.port || 80);
  void decideTarget(allow, url.hostname, port).then((d) => {
    if ('refused' in d) {
      deny(url.hostname, port, d.refused);
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`mcpwire sandbox: ${url.hostname}:${port} ${d.refused}\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const up = http.request({ host: d.address, port, method: req.method, path: url.pathname + url.search, headers, setHost: false, timeout: CONNECT_TIMEOUT_MS }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(up);
  });
}

/** A CONNECT tunnel: opened when allowed, else 403. */
function tunnel(allow: readonly string[], deny: Deny, track: Track, req: http.IncomingMessage, client: Duplex, head: Buffer): void {
  track(client);
  client.on('error', () => {});
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
  if (m === null) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  const host = m[1];
  const port = Number(m[2]);
  void decideTarget(allow, host, port).then((d) => {
    if ('refused' in d) {
      deny(host, port, d.refused);
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nmcpwire sandbox: ${host}:${port} ${d.refused}\n`);
      return;
    }
    const up = net.connect({ host: d.address, port, timeout: CONNECT_TIMEOUT_MS });
    track(up);
    up.once('connect', () => {
      up.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.once('timeout', () => up.destroy());
    up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.once('close', () => up.destroy());
  });
}

/** Starts the proxy of one sandbox (see the module comment); `tcp`: on 127.0.0.1 instead of a Unix socket. */
export async function startSandboxProxy(allow: readonly string[], onDenied: (d: SandboxDenial) => void, tcp = false): Promise<SandboxProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-proxy-'));
  fs.chmodSync(dir, 0o700);
  const socket = path.join(dir, 'proxy.sock');
  const sockets = new Set<Duplex>();
  const track: Track = (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const deny: Deny = (host, port, reason) => onDenied({ kind: 'network', host: host.slice(0, 253), port, reason, at: Date.now() });
  const server = http.createServer((req, res) => plainRequest(allow, deny, req, res));
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => tunnel(allow, deny, track, req, client, head));
  server.on('connection', (s) => {
    if (sockets.size >= MAX_SOCKETS) return void s.destroy();
    track(s);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const up = () => {
      server.off('error', reject);
      server.on('error', () => {});
      resolve();
    };
    if (tcp) server.listen(0, '127.0.0.1', up);
    else server.listen(socket, up);
  });
  const address = server.address();
  return {
    ...(tcp && typeof address === 'object' && address !== null ? { port: address.port } : { socket }),
    close() {
      server.close();
      for (const s of sockets) s.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
