/**
 * Real servers sandboxed with bubblewrap, with only what they need: server-filesystem (its
 * directory writable, nothing else), server-memory (the directory of its memory file),
 * server-everything (nothing but the defaults). And the sandboxed process tree is reaped as an
 * unsandboxed one is: a server that crashes, one that hangs and ignores SIGTERM — with whatever
 * they started. The gateway (`serve`) starts a sandboxed server the same way.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp } from '../../src/serve-api.js';
import { connect, type McpClient } from '../../src/index.js';
import { StdioTransport } from '../../src/transport/stdio.js';
import { findBwrap } from '../../src/transport/spawn/sandbox-launch.js';
import { tempDirs } from '../support/temp-dirs.js';
import { until } from '../support/until.js';
import { withMarker } from '../support/proc-marker.js';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
const noBwrap = process.platform !== 'linux' || findBwrap() === undefined;
const tmp = tempDirs('mcpwire-sbx-real-');
const text = (r: { content?: unknown[] }) => (r.content ?? []).map((c) => (c as { text?: string }).text ?? '').join('\n');

describe.skipIf(noBwrap)('real servers sandboxed (bubblewrap; skipped only where bwrap is absent)', () => {
  const clients: McpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it('server-filesystem: its directory readable and writable, a directory beside it not there', async () => {
    const base = tmp();
    const dir = path.join(base, 'granted');
    const beside = path.join(base, 'beside');
    fs.mkdirSync(dir);
    fs.mkdirSync(beside);
    fs.writeFileSync(path.join(beside, 'secret.txt'), 'not for the server');
    // Both directories are on its command line; only one is granted: the other is not there inside.
    const ok = await connect(
      { transport: 'stdio', id: 'fs', command: process.execPath, args: [bin('@modelcontextprotocol/server-filesystem'), dir, beside], sandbox: { filesystem: { write: [dir] } } },
      { timeoutMs: 30_000 },
    );
    clients.push(ok);
    const denied = await ok.callTool('read_text_file', { path: path.join(beside, 'secret.txt') }, {});
    expect(denied.isError).toBe(true);
    expect(text(denied)).not.toContain('not for the server');
    expect((await ok.callTool('write_file', { path: path.join(dir, 'a.txt'), content: 'sandboxed' }, {})).isError).toBeFalsy();
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('sandboxed');
    expect(text(await ok.callTool('list_directory', { path: dir }, {}))).toContain('a.txt');
  }, 60_000);

  it('server-memory: its memory file (in a granted directory) is written on the host', async () => {
    const dir = tmp();
    const file = path.join(dir, 'memory.jsonl');
    const c = await connect(
      { transport: 'stdio', id: 'mem', command: process.execPath, args: [bin('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: file }, sandbox: { filesystem: { write: [dir] } } },
      { timeoutMs: 30_000 },
    );
    clients.push(c);
    const r = await c.callTool('create_entities', { entities: [{ name: 'sandbox', entityType: 'test', observations: ['runs in bwrap'] }] }, {});
    expect(r.isError).toBeFalsy();
    expect(fs.readFileSync(file, 'utf8')).toContain('runs in bwrap');
    expect(text(await c.callTool('read_graph', {}, {}))).toContain('sandbox');
  }, 60_000);

  it('server-everything: works on the defaults (no grant at all)', async () => {
    const c = await connect({ transport: 'stdio', id: 'every', command: process.execPath, args: [bin('@modelcontextprotocol/server-everything')], sandbox: {} }, { timeoutMs: 30_000 });
    clients.push(c);
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(text(await c.callTool('echo', { message: 'in the sandbox' }, {}))).toContain('in the sandbox');
  }, 60_000);
});

describe.skipIf(noBwrap)('a sandboxed server is reaped with its whole tree (bubblewrap)', () => {
  const script = (marker: string, tail: string) =>
    `const { spawn } = require('node:child_process');
     spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '${marker}-child'], { stdio: 'ignore' });
     spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '${marker}-escaped'], { stdio: 'ignore', detached: true }).unref();
     ${tail}`;

  it('a server that crashes: its children, even one in its own session, are gone', async () => {
    const marker = `mcpwire-reap-crash-${process.pid}`;
    const t = new StdioTransport({ command: process.execPath, args: ['-e', script(marker, `process.stdin.once('data', () => process.exit(3)); process.stdin.resume();`)], sandbox: {} });
    const closed = new Promise<Error | undefined>((resolve) => (t.onclose = resolve));
    await t.start();
    await until('its children to run', () => withMarker(`${marker}-child`).length > 0 && withMarker(`${marker}-escaped`).length > 0);
    await t.send({ jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(String(await closed)).toContain('exited with code 3');
    await until('every process of the tree to be gone', () => withMarker(marker).length === 0);
  }, 30_000);

  it('a server that hangs and ignores SIGTERM: the close ladder ends its sandbox and nothing of the tree remains', async () => {
    const marker = `mcpwire-reap-hang-${process.pid}`;
    const t = new StdioTransport({
      command: process.execPath,
      args: ['-e', script(marker, `process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);`)],
      sandbox: {},
      shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 200 },
    });
    const events: string[] = [];
    t.onevent = (e) => {
      if (e.type === 'signal') events.push(String(e.signal));
    };
    await t.start();
    await until('its children to run', () => withMarker(`${marker}-child`).length > 0 && withMarker(`${marker}-escaped`).length > 0);
    await t.close();
    // SIGTERM reaches the server and bwrap (one process group); bwrap does not outlive it, and the
    // sandbox's PID namespace ends with bwrap: SIGKILL is seldom needed, and never leaves anything.
    expect(events[0]).toBe('SIGTERM');
    await until('every process of the tree to be gone', () => withMarker(marker).length === 0);
  }, 30_000);
});

describe.skipIf(noBwrap)('the gateway (serve) starts a sandboxed server sandboxed (bubblewrap)', () => {
  it('a tool of a sandboxed server, called through the gateway: the OS refusal and the sandbox note reach its client', async () => {
    const dir = tmp();
    const key = path.join(dir, 'id_rsa');
    fs.writeFileSync(key, 'planted');
    const configFile = path.join(dir, 'config.json');
    const hostile = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..', 'mock-servers', 'hostile-server.mjs');
    fs.writeFileSync(configFile, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { jail: { command: process.execPath, args: [hostile], sandbox: true } } } }));
    const gw = await serveHttp(await loadConfig({ globalPath: configFile }), { log: () => {}, host: { permission: 'allow' } });
    const client = new Client({ name: 'sandbox-check', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
      const { tools } = await client.listTools();
      const read = tools.find((t) => t.name.startsWith('mcp_jail_read_file'))!;
      const r = await client.callTool({ name: read.name, arguments: { path: key } });
      expect(r.isError).toBe(true);
      expect(text(r as { content?: unknown[] })).toContain('ENOENT');
      expect(text(r as { content?: unknown[] })).toContain('server "jail" runs sandboxed');
    } finally {
      await client.close();
      await gw.close();
    }
  }, 60_000);
});
