/**
 * Interop with `@modelcontextprotocol/server-everything` over HTTP on 127.0.0.1: its
 * `streamableHttp` mode (Streamable HTTP, sessions) and its `sse` mode (the 2024-11-05 HTTP+SSE
 * transport, reached through the automatic legacy fallback), plus the CLI against it.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../src/index.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli/main.js');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts server-everything in `mode` and resolves with its port once it listens. */
async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, mode], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/listening on port|running on port/i.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${out}`)));
  });
  return port;
}

describe('interop: server-everything over HTTP', () => {
  it('basic.transports (Streamable HTTP): initialize with a session, list tools, call echo, progress, close with DELETE', async () => {
    const port = await startEverything('streamableHttp');
    const client = await connect({ transport: 'http', id: 'everything-http', url: `http://127.0.0.1:${port}/mcp` }, { timeoutMs: 20_000 });
    try {
      expect(client.transportKind).toBe('streamable-http');
      expect(client.sessionId).toBeTruthy();
      expect(client.protocolVersion).toBe('2025-11-25');
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      expect((await client.callTool('echo', { message: 'over http' })).content[0]).toEqual({ type: 'text', text: 'Echo: over http' });
      const seen: number[] = [];
      await client.callTool('trigger-long-running-operation', { duration: 1, steps: 2 }, { onProgress: (p) => seen.push(p.progress) });
      expect(seen).toEqual([1, 2]);
      expect((await client.listResources()).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect(client.pendingCount).toBe(0);
  });

  it('basic.transports backwards compatibility: the sse mode is reached through the legacy HTTP+SSE fallback', async () => {
    const port = await startEverything('sse');
    const client = await connect({ transport: 'http', id: 'everything-sse', url: `http://127.0.0.1:${port}/sse` }, { timeoutMs: 20_000 });
    try {
      expect(client.transportKind).toBe('legacy-sse');
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      expect((await client.callTool('echo', { message: 'legacy' })).content[0]).toEqual({ type: 'text', text: 'Echo: legacy' });
    } finally {
      await client.close();
    }
  });

  it('CLI: mcpwire --url http://127.0.0.1:PORT/mcp tools --json lists its tools', async () => {
    const port = await startEverything('streamableHttp');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, '--url', `http://127.0.0.1:${port}/mcp`, 'tools', '--json'], { timeout: 30_000 });
    const tools = JSON.parse(stdout) as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('echo');
  });
});
