#!/usr/bin/env node
// The correct 2026-07-28 Streamable HTTP mock (../modern/http-server.mjs, default scenario + tasks extension)
// behind a loopback proxy (which refuses a foreign Origin with 403) that plants one bug of bugs.mjs: it rewrites the request (headers,
// body) on the way in and the answer (status, headers, JSON body or each SSE event) on the way
// out. SSE streams are passed through event by event (a subscriptions/listen stays open).
//
//   node mock-servers/check-modern/http-server.mjs --bug=<name>   → prints "LISTEN <url>"
//   import { startCheckModernHttp } from './mock-servers/check-modern/http-server.mjs'
//   const s = await startCheckModernHttp({ bug: 'no-ttl' }); s.url; await s.close()

import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { startModernHttpMock } from '../modern/http-server.mjs';
import { BUGS, bugFrom, SCENARIO } from './bugs.mjs';

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** An Origin a browser on this machine sends (the DNS-rebinding defence refuses any other, basic.transports.streamable_http#3). */
function loopbackOrigin(origin) {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(origin).hostname);
  } catch {
    return false;
  }
}

export async function startCheckModernHttp({ bug: name } = {}) {
  const bug = name === undefined ? {} : BUGS[name];
  if (!bug) throw new Error(`unknown bug "${name}"`);
  const upstream = await startModernHttpMock({ scenario: SCENARIO, stderr: () => {} });
  const st = {};
  const target = new URL(upstream.url);
  const out = (m, req) => {
    if (m && ('result' in m || 'error' in m)) return bug.response ? bug.response(m, req ?? {}, st) : m;
    if (m && 'method' in m && bug.notification) return bug.notification(m, st);
    return m;
  };

  const server = http.createServer(async (req, res) => {
    try {
      if (req.headers.origin !== undefined && !loopbackOrigin(req.headers.origin) && bug.http?.anyOrigin !== true) {
        res.writeHead(403, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden origin' } }));
      }
      const text = req.method === 'POST' ? await readBody(req) : '';
      let msg = parse(text);
      const original = msg === undefined ? undefined : structuredClone(msg);
      let headers = { ...req.headers, host: target.host };
      if (msg && typeof msg === 'object' && 'method' in msg && 'id' in msg) {
        const changed = bug.request ? bug.request(msg, st) : msg;
        if (changed?.respond) {
          res.writeHead(400, { 'content-type': 'application/json' });
          return res.end(JSON.stringify(changed.respond));
        }
        msg = changed;
        if (bug.http?.request) headers = bug.http.request(headers, msg);
      }
      const body = msg === undefined ? text : JSON.stringify(msg);
      delete headers['content-length'];
      const up = http.request(upstream.url, { method: req.method, headers }, (r) => relay(r, res, original));
      up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      res.on('close', () => up.destroy());
      up.end(req.method === 'POST' ? body : undefined);
    } catch (err) {
      process.stderr.write(`check-modern http mock: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });

  async function relay(r, res, original) {
    const ct = String(r.headers['content-type'] ?? '');
    const head = (status, h, m) => (bug.http?.response ? bug.http.response(status, h, m) : { status, headers: h });
    const h = { ...r.headers };
    delete h['content-length'];
    delete h['transfer-encoding'];
    if (!ct.includes('text/event-stream')) {
      const text = await readBody(r);
      const m = parse(text);
      const changed = m === undefined ? undefined : out(m, original);
      const { status, headers } = head(r.statusCode ?? 502, h, changed);
      res.writeHead(status, headers);
      return res.end(changed === undefined ? text : JSON.stringify(changed));
    }
    const { status, headers } = head(r.statusCode ?? 200, h, undefined);
    res.writeHead(status, headers);
    let pending = '';
    r.setEncoding('utf8');
    r.on('data', (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const m = line.startsWith('data:') ? parse(line.slice(5).trim()) : undefined;
        res.write(m === undefined ? `${line}\n` : `data: ${JSON.stringify(out(m, original))}\n`);
      }
    });
    r.on('end', () => res.end(pending));
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
      await upstream.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = process.argv.slice(2).find((a) => a.startsWith('--bug='));
  bugFrom(process.argv.slice(2), process.env);
  const s = await startCheckModernHttp({ bug: arg ? arg.slice(6) : process.env.MODERN_BUG });
  process.stdout.write(`LISTEN ${s.url}\n`);
  const stop = () => s.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
