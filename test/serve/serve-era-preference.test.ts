/**
 * Which revision `mcpwire serve` speaks to a server that speaks both: the one its first client
 * speaks to the gateway, tried first (a 2025-11-25 client: `initialize`, so the server's
 * handshake-era features — subscriptions, logging, sampling and elicitation inside a call — are
 * the ones passed through; a 2026-07-28 client: the probe, modern first). Only a preference: a
 * modern-only server behind a gateway a handshake-era client started is still reached, as
 * modern. Behind the gateway: the official SDK v2 peer (mock-servers/interop/sdk-v2-server.mjs),
 * dual-era, or modern-only with `--legacy reject`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';
import { cli, root, stop } from '../support/tap-helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-era-pref-'));
const peers: ChildProcess[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});
afterAll(async () => {
  for (const p of peers.splice(0)) await stop(p);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The SDK v2 peer over HTTP; resolves with its URL (it prints LISTEN on stdout). */
function startPeer(legacy: 'stateless' | 'reject'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'mock-servers/interop/sdk-v2-server.mjs'), 'http', '--legacy', legacy], { stdio: ['ignore', 'pipe', 'inherit'] });
    peers.push(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /LISTEN (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`peer exited ${code}`)));
  });
}

/** A gateway over stdio in front of `url`, opened by a client speaking `protocolVersion`. */
async function gateway(url: string, protocolVersion: string): Promise<McpClient> {
  const config = path.join(dir, `config-${clients.length}-${Date.now()}.json`);
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { peer: { url } } } }));
  const c = await connect({ id: 'gateway', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', config], env: { MCPWIRE_TRACE: '' } }, { protocolVersion, timeoutMs: 30_000 });
  clients.push(c);
  return c;
}

/** The peer's row of mcpwire_status, once it is ready (the first opening of a modern-only server may be refused, then probed again). */
async function peerRow(c: McpClient): Promise<{ state: string; protocolVersion: string | null }> {
  for (let i = 0; ; i++) {
    const r = await c.callTool('mcpwire_status', {});
    const row = (r.structuredContent as { servers: { id: string; state: string; protocolVersion: string | null }[] }).servers.find((s) => s.id === 'peer')!;
    if (row.state === 'ready' || i >= 150) return row;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('serve: the first client\'s revision is tried first with each server', () => {
  it('a 2025-11-25 client: a dual-era server is spoken to with initialize (2025-11-25)', async () => {
    const c = await gateway(await startPeer('stateless'), '2025-11-25');
    expect(await peerRow(c)).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25' });
    expect((await c.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
  }, 60_000);

  it('a 2026-07-28 client: the same server is spoken to as modern (2026-07-28)', async () => {
    const c = await gateway(await startPeer('stateless'), '2026-07-28');
    expect(await peerRow(c)).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
  }, 60_000);

  it('a 2025-11-25 client in front of a modern-only server: still reached, as modern', async () => {
    const c = await gateway(await startPeer('reject'), '2025-11-25');
    expect(await peerRow(c)).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect((await c.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
  }, 60_000);
});
