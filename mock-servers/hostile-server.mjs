#!/usr/bin/env node
/**
 * A scripted hostile stdio MCP server (no dependencies): each tool tries one thing a server
 * should not be able to do, and answers with what happened (the OS's error code, or what it
 * got), as an error result when the attempt failed. The sandbox tests run it sandboxed and not.
 *
 * Tools (arguments in parentheses):
 * - `read_file` (path): reads a file (e.g. a planted ~/.ssh/id_rsa)
 * - `write_file` (path, content): writes a file
 * - `connect` (host, port): a TCP connection, straight (no proxy)
 * - `resolve` (host): a DNS lookup
 * - `proxy_get` (url): GET through HTTP(S)_PROXY with CONNECT, as proxy-aware clients do
 * - `spawn_orphan` (marker): starts a detached child (its own session) that outlives this server;
 *   the child's command line carries `marker` so a test can look for it in the host's /proc
 * - `env` (names): which of these environment variables it can see, and whether the host's
 *   /proc/<pid>/environ of its parent is readable
 */
import { spawn } from 'node:child_process';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import readline from 'node:readline';

const str = { type: 'string' };
const params = {
  read_file: { path: str },
  write_file: { path: str, content: str },
  connect: { host: str, port: { type: 'number' } },
  resolve: { host: str },
  proxy_get: { url: str },
  spawn_orphan: { marker: str },
  env: { names: { type: 'array', items: str } },
};
const tools = Object.entries(params).map(([name, properties]) => ({ name, inputSchema: { type: 'object', properties } }));

const ok = (text) => ({ content: [{ type: 'text', text }] });
const fail = (text) => ({ content: [{ type: 'text', text }], isError: true });
const why = (e) => `${e.code ?? 'ERROR'}: ${e.message}`;

const run = {
  async read_file({ path }) {
    try {
      return ok(`read ${fs.readFileSync(path, 'utf8').length} bytes from ${path}`);
    } catch (e) {
      return fail(`read ${path} failed: ${why(e)}`);
    }
  },
  async write_file({ path, content = 'x' }) {
    try {
      fs.writeFileSync(path, content);
      return ok(`wrote ${path}`);
    } catch (e) {
      return fail(`write ${path} failed: ${why(e)}`);
    }
  },
  connect({ host, port }) {
    return new Promise((resolve) => {
      const s = net.connect({ host, port });
      s.setTimeout(5000, () => s.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      s.once('connect', () => (s.destroy(), resolve(ok(`connected to ${host}:${port}`))));
      s.once('error', (e) => resolve(fail(`connect ${host}:${port} failed: ${why(e)}`)));
    });
  },
  async resolve({ host }) {
    try {
      return ok(`${host} resolves to ${(await dns.lookup(host)).address}`);
    } catch (e) {
      return fail(`resolve ${host} failed: ${why(e)}`);
    }
  },
  proxy_get({ url }) {
    const proxy = process.env.HTTP_PROXY ?? process.env.http_proxy;
    if (!proxy) return fail(`GET ${url} failed: no HTTP_PROXY`);
    const target = new URL(url);
    const p = new URL(proxy);
    return new Promise((resolve) => {
      const req = http.request({ host: p.hostname, port: p.port, method: 'CONNECT', path: `${target.hostname}:${target.port || 80}` });
      req.once('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          return resolve(fail(`GET ${url} failed: proxy answered ${res.statusCode}`));
        }
        const get = http.request({ createConnection: () => socket, host: target.hostname, path: target.pathname }, (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve(ok(`GET ${url}: ${r.statusCode} ${body}`)));
        });
        get.once('error', (e) => resolve(fail(`GET ${url} failed: ${why(e)}`)));
        get.end();
      });
      req.once('error', (e) => resolve(fail(`GET ${url} failed: ${why(e)}`)));
      req.end();
    });
  },
  async spawn_orphan({ marker }) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker], { detached: true, stdio: 'ignore' });
    child.unref();
    return ok(`started ${marker} as pid ${child.pid}`);
  },
  async env({ names = [] }) {
    const seen = names.filter((n) => process.env[n] !== undefined);
    let parent = 'unreadable';
    try {
      parent = fs.readFileSync(`/proc/${process.ppid}/environ`, 'latin1').includes('SECRET') ? 'has SECRET' : 'readable';
    } catch (e) {
      parent = e.code;
    }
    const text = `visible: ${seen.join(',') || 'none'}; parent environ: ${parent}; HOME=${process.env.HOME}`;
    return seen.length > 0 ? fail(text) : ok(text);
  },
};

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') {
    return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } } });
  }
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools } });
  if (msg.method === 'tools/call') {
    const f = run[msg.params?.name];
    if (!f) return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'unknown tool' } });
    return send({ jsonrpc: '2.0', id: msg.id, result: await f(msg.params.arguments ?? {}) });
  }
  if (msg.method === 'ping') return send({ jsonrpc: '2.0', id: msg.id, result: {} });
  send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'method not found' } });
});
process.stdin.on('end', () => process.exit(0));
