/**
 * The loopback page of `mcpwire app` (src/apps/page-server.ts) and its listener rules, as any
 * local client could probe them over raw HTTP: loopback only; the host page and its relay only
 * under the per-run secret, with `Host` naming the host page's origin (`localhost:<port>`) and an
 * `Origin`, when sent, the host page's; the sandbox proxy only under its own token and on the
 * other origin (`127.0.0.1:<port>`), with the view's CSP as an HTTP header; POSTed messages JSON
 * and bounded; one page at a time on the event stream, which carries what the host posts.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppPage, type AppPage } from '../../src/apps/index.js';
import { until } from '../support/until.js';

const CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; connect-src 'none'";

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}
/** One request to 127.0.0.1:`port` with the headers given (Host included, as a foreign page or a rebinding name would send it). */
function request(port: number, path: string, headers: Record<string, string>, o: { method?: string; body?: string; firstChunk?: boolean } = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        if (o.firstChunk) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          req.destroy();
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', (e) => (o.firstChunk ? undefined : reject(e)));
    req.end(o.body);
  });
}

/** An event stream kept open: its status, headers and what came so far. */
function openStream(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; data(): string; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('error', () => {});
      resolve({ status: res.statusCode ?? 0, headers: res.headers, data: () => body, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

let page: AppPage | undefined;
afterEach(async () => {
  await page?.close();
  page = undefined;
});

async function start(over: { maxMessageBytes?: number } = {}) {
  page = await startAppPage({ title: 't', csp: CSP, allow: 'clipboard-write', ...over });
  const url = new URL(page.url);
  const port = page.port;
  const hostHeader = { host: `localhost:${port}` };
  const hostPage = await request(port, url.pathname, hostHeader);
  const proxyPath = new URL(/src="(http:\/\/127\.0\.0\.1:\d+\/s\/[^"]+)"/.exec(hostPage.body)![1]).pathname;
  return { page, port, path: url.pathname, hostHeader, hostPage, proxyPath };
}

describe('the app page listener', () => {
  it('listens on loopback; the host page is on localhost with the secret, the proxy on 127.0.0.1 with its token', async () => {
    const s = await start();
    expect(s.page.url).toMatch(new RegExp(`^http://localhost:${s.port}/h/[\\w-]{20,}/$`));
    expect(s.hostPage.status).toBe(200);
    expect(s.hostPage.headers['content-security-policy']).toContain(`frame-src http://127.0.0.1:${s.port}`);
    const proxy = await request(s.port, s.proxyPath, { host: `127.0.0.1:${s.port}` });
    expect(proxy.status).toBe(200);
    expect(proxy.headers['content-security-policy']).toBe(`${CSP}; frame-ancestors http://localhost:${s.port}`);
    // no other interface answers
    await expect(new Promise((resolve, reject) => http.get({ host: '::1', port: s.port, path: '/' }, resolve).on('error', reject))).rejects.toThrow();
  });

  it('refuses a wrong secret, a foreign Host, the host page on the proxy origin and the proxy on the host origin', async () => {
    const s = await start();
    expect((await request(s.port, '/h/not-the-secret/', s.hostHeader)).status).toBe(404);
    expect((await request(s.port, '/', s.hostHeader)).status).toBe(404);
    expect((await request(s.port, s.path, { host: `evil.example:${s.port}` })).status).toBe(403);
    expect((await request(s.port, s.path, { host: `127.0.0.1:${s.port}` })).status).toBe(403);
    expect((await request(s.port, s.proxyPath, s.hostHeader)).status).toBe(403);
    expect((await request(s.port, s.proxyPath.replace(/\/s\/[^/]+\//, '/s/wrong-token/'), { host: `127.0.0.1:${s.port}` })).status).toBe(404);
    expect((await request(s.port, `${s.path}events`, { ...s.hostHeader, origin: 'http://evil.example' })).status).toBe(403);
    expect((await request(s.port, `${s.path}events`, { ...s.hostHeader, origin: `http://127.0.0.1:${s.port}` })).status).toBe(403); // the view's origin
    expect((await request(s.port, `${s.path}events`, { ...s.hostHeader, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('relays: POSTed JSON reaches the channel (bounded; JSON only); the event stream carries what the host posts; one page at a time', async () => {
    const s = await start({ maxMessageBytes: 1000 });
    const got: unknown[] = [];
    s.page.channel.onMessage((m) => got.push(m));
    const json = { ...s.hostHeader, origin: `http://localhost:${s.port}`, 'content-type': 'application/json' };
    expect((await request(s.port, `${s.path}rpc`, json, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'ping', id: 1 }) })).status).toBe(204);
    expect(got).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 1 }]);
    expect((await request(s.port, `${s.path}rpc`, json, { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(2000) }) })).status).toBe(413);
    expect((await request(s.port, `${s.path}rpc`, { ...json, 'content-type': 'text/plain' }, { method: 'POST', body: '{}' })).status).toBe(415);
    expect((await request(s.port, `${s.path}rpc`, json, { method: 'POST', body: '{not json' })).status).toBe(400);
    expect(got).toHaveLength(1);
    s.page.channel.post({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: {} } }); // queued until a page connects
    const stream = await openStream(s.port, `${s.path}events`, s.hostHeader);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      await until('the queued message on the stream', () => stream.data().includes('ui/notifications/tool-input'), 10_000);
      s.page.channel.post({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [] } });
      await until('the posted message on the stream', () => stream.data().includes('ui/notifications/tool-result'), 10_000);
      expect(s.page.connected).toBe(true);
      expect((await request(s.port, `${s.path}events`, s.hostHeader, { firstChunk: true })).status).toBe(409); // one page at a time
    } finally {
      stream.close();
    }
  });
});
