/**
 * A loopback page that renders one view in a browser (the CLI's `mcpwire app`): one listener on
 * 127.0.0.1, two origins — the host page at `http://localhost:<port>`, the sandbox proxy at
 * `http://127.0.0.1:<port>` (a web host "MUST" keep them apart) — and the relay to the host
 * process: the page reads the host's messages from an EventSource and POSTs the view's.
 *
 * Listener rules: loopback only; every path carries a per-run secret (the host page's) or a
 * per-run sandbox token (the proxy's), so other local pages cannot drive the session; `Host`
 * must name the origin the path belongs to (DNS rebinding, and the view's origin never reaches
 * the host's endpoints); an `Origin`, when sent, must be the host page's; POST bodies are capped.
 * The proxy is served with the view's CSP as an HTTP header (plus `frame-ancestors` the host page).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ViewChannel } from './bridge-types.js';
import { hostPageHtml, proxyPageHtml } from './page-html.js';

export interface AppPageOptions {
  title: string;
  /** The view's Content-Security-Policy (csp.ts). */
  csp: string;
  /** The iframe `allow` attribute (csp.ts). */
  allow: string;
  prefersBorder?: boolean;
  /** Cap on one POSTed message (default 1 MiB, as the bridge's). */
  maxMessageBytes?: number;
  /** Cap on what waits for the page to connect (default 256 messages). */
  maxQueued?: number;
  /** Port to listen on (default: any free one). */
  port?: number;
}

export interface AppPage {
  /** The host page's URL, secret included: open it in a browser. */
  url: string;
  port: number;
  /** The channel to hand to `AppBridgeHost`. */
  channel: ViewChannel;
  /** Whether a page is connected (its EventSource). */
  readonly connected: boolean;
  /** Ends the event stream and closes the listener. */
  close(): Promise<void>;
}

const token = () => randomBytes(18).toString('base64url');

/** Starts the page's listener (see the module comment). */
export async function startAppPage(o: AppPageOptions): Promise<AppPage> {
  const secret = token();
  const sandboxToken = token();
  const nonce = token();
  const maxBytes = o.maxMessageBytes ?? 1024 * 1024;
  const maxQueued = o.maxQueued ?? 256;
  const listeners = new Set<(m: unknown) => void>();
  const queue: string[] = [];
  let stream: http.ServerResponse | undefined;
  let port = 0;
  const hostOrigin = () => `http://localhost:${port}`;
  const sandboxOrigin = () => `http://127.0.0.1:${port}`;

  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    const host = (req.headers.host ?? '').toLowerCase();
    const origin = req.headers.origin;
    const deny = (status: number, why: string) => void res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${why}\n`);
    if (url.startsWith(`/s/${sandboxToken}/`)) {
      if (host !== `127.0.0.1:${port}`) return deny(403, 'wrong host');
      if (req.method !== 'GET' || url !== `/s/${sandboxToken}/proxy`) return deny(404, 'not found');
      return sendHtml(res, proxyPageHtml(hostOrigin()), { 'content-security-policy': `${o.csp}; frame-ancestors ${hostOrigin()}`, 'x-content-type-options': 'nosniff' });
    }
    if (!url.startsWith(`/h/${secret}/`)) return deny(404, 'not found');
    if (host !== `localhost:${port}`) return deny(403, 'wrong host');
    if (origin !== undefined && origin !== hostOrigin()) return deny(403, 'wrong origin');
    const site = req.headers['sec-fetch-site'];
    const rest = url.slice(`/h/${secret}/`.length);
    if (rest === '' && req.method === 'GET') {
      const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; frame-src ${sandboxOrigin()}; frame-ancestors 'none'; base-uri 'none'`;
      return sendHtml(res, hostPageHtml({ title: o.title, nonce, sandboxOrigin: sandboxOrigin(), proxyUrl: `${sandboxOrigin()}/s/${sandboxToken}/proxy`, allow: o.allow, prefersBorder: o.prefersBorder }), { 'content-security-policy': csp });
    }
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return deny(403, 'cross-site request');
    if (rest === 'events' && req.method === 'GET') {
      if (stream !== undefined) return deny(409, 'a page is connected already');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(': mcpwire app\n\n');
      stream = res;
      req.on('close', () => {
        if (stream === res) stream = undefined;
      });
      for (const line of queue.splice(0)) res.write(line);
      return;
    }
    if (rest === 'rpc' && req.method === 'POST') return receiveJson(req, res, deny, maxBytes, (msg) => {
      for (const l of listeners) l(msg);
    });
    return deny(404, 'not found');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  server.on('clientError', (_e, socket) => socket.destroy());

  const channel: ViewChannel = {
    post(message) {
      const line = `data: ${JSON.stringify(message)}\n\n`;
      if (stream !== undefined) stream.write(line);
      else if (queue.length < maxQueued) queue.push(line);
    },
    onMessage: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
  };
  return {
    url: `${hostOrigin()}/h/${secret}/`,
    port,
    channel,
    get connected() {
      return stream !== undefined;
    },
    async close() {
      stream?.end('event: end\ndata: {}\n\n');
      stream = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A page's HTML, never cached nor referred, with the headers given (its CSP above all). */
function sendHtml(res: http.ServerResponse, html: string, headers: Record<string, string>): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers });
  res.end(html);
}

/** One JSON message POSTed by the page, at most `maxBytes`: answered 204 and handed to `deliver`. */
function receiveJson(req: http.IncomingMessage, res: http.ServerResponse, deny: (s: number, w: string) => void, maxBytes: number, deliver: (msg: unknown) => void): void {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return deny(415, 'JSON only');
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > maxBytes) over = true;
    else chunks.push(c);
  });
  req.on('end', () => {
    if (over) return deny(413, `a message is at most ${maxBytes} bytes`);
    let msg: unknown;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return deny(400, 'not JSON');
    }
    res.writeHead(204, { 'cache-control': 'no-store' }).end();
    deliver(msg);
  });
}
