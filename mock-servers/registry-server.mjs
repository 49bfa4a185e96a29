#!/usr/bin/env node
// A scripted MCP registry on loopback speaking the generic registry API of
// modelcontextprotocol/registry (/v0.1): search and cursor paging, one server by name and
// version, the versions of a name; plus files (MCPB bundles) under /files/, and misbehaviour.
//
//   import { startRegistry } from './mock-servers/registry-server.mjs'
//   const reg = await startRegistry({ documents: [serverJson, …], files: { 'b.mcpb': bytes } });
//   reg.url; reg.requests; reg.mode = 'garbage'; await reg.close()
//
//   node mock-servers/registry-server.mjs --port 0 doc.json…   → prints "LISTEN <url>"
//
// Documents are server.json objects; several with one name are its versions, the last one
// given is the latest. Modes: 'ok'; 'garbage' (200 with an HTML body); 'not-a-list' (JSON
// without "servers"); 'huge' (a body over any sane bound); 'error' (HTTP 503).
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export async function startRegistry(o = {}) {
  const docs = [...(o.documents ?? [])];
  const files = { ...(o.files ?? {}) };
  const state = { mode: o.mode ?? 'ok', requests: [] };
  const latest = () => {
    const byName = new Map();
    for (const d of docs) byName.set(d.name, d);
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };
  const item = (d) => ({ server: d, _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: latest().includes(d) } } });
  const send = (res, status, body, type = 'application/json') => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://registry.invalid');
    state.requests.push({ method: req.method, path: u.pathname, query: Object.fromEntries(u.searchParams) });
    if (u.pathname.startsWith('/files/')) {
      const f = files[decodeURIComponent(u.pathname.slice(7))];
      if (f === undefined) return send(res, 404, { error: 'no such file' });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': f.length });
      return res.end(f);
    }
    if (state.mode === 'error') return send(res, 503, { error: 'down for maintenance' });
    if (state.mode === 'garbage') return send(res, 200, '<html><body>Bad gateway</body></html>', 'text/html');
    if (state.mode === 'not-a-list') return send(res, 200, { items: [] });
    if (state.mode === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let n = 0;
      const more = () => {
        while (n < 40) {
          n++;
          if (!res.write(chunk)) return res.once('drain', more);
        }
        res.end('{}');
      };
      return more();
    }
    const parts = u.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== 'v0.1' || parts[1] !== 'servers') return send(res, 404, { error: 'not found' });
    if (parts.length === 2) {
      const search = (u.searchParams.get('search') ?? '').toLowerCase();
      const limit = Math.min(Number(u.searchParams.get('limit') ?? 30) || 30, 100);
      const cursor = u.searchParams.get('cursor');
      let list = u.searchParams.get('version') === 'latest' ? latest() : [...docs];
      if (search) list = list.filter((d) => d.name.toLowerCase().includes(search));
      if (cursor) list = list.filter((d) => d.name > cursor);
      const page = list.slice(0, limit);
      const more = list.length > limit;
      return send(res, 200, { servers: page.map(item), metadata: { count: page.length, ...(more ? { nextCursor: page[page.length - 1].name } : {}) } });
    }
    // /v0.1/servers/{name}/versions[/{version}] — the name is one URL-encoded segment
    const name = parts[2];
    const versions = docs.filter((d) => d.name === name);
    if (parts[3] !== 'versions' || versions.length === 0) return send(res, 404, { error: 'Server not found' });
    if (parts.length === 4) return send(res, 200, { servers: [...versions].reverse().map(item), metadata: { count: versions.length } });
    const v = parts[4];
    const d = v === 'latest' ? versions[versions.length - 1] : versions.find((x) => x.version === v);
    if (d === undefined) return send(res, 404, { error: 'Server version not found' });
    return send(res, 200, item(d));
  });
  await new Promise((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return state.requests;
    },
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    publish(doc) {
      docs.push(doc);
    },
    addFile(name, bytes) {
      files[name] = bytes;
    },
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--port');
  const port = at >= 0 ? Number(args.splice(at, 2)[1]) : 0;
  const documents = args.map((f) => JSON.parse(readFileSync(f, 'utf8')));
  const reg = await startRegistry({ port, documents });
  process.stdout.write(`LISTEN ${reg.url}\n`);
}
