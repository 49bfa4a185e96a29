/**
 * One trace ties both legs of a call through `mcpwire serve --trace`: the client→gateway request
 * (server id `upstream`) and the gateway→server request, whose `_meta["mcpwire.dev/upstream"]`
 * names the upstream request's id (and, over HTTP, its session tag, as the upstream lines carry
 * it). `mcpwire trace show` prints both in one timeline. The caller's own `_meta` (a W3C
 * `traceparent`) goes down with the call. No configured secret or bearer token is in the trace.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { readTrace } from '../../src/trace/index.js';
import type { TraceMessageRecord } from '../../src/trace/index.js';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';

const SECRET = 'sk_live_traceLegSecret_4Hq8w2';
const TOKEN = 'gateway-bearer-token-Zt61pQ';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-trace-'));
const config = path.join(dir, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { API_KEY: SECRET } } } } }),
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';

async function messages(file: string): Promise<TraceMessageRecord[]> {
  return (await readTrace(file)).records.filter((r): r is TraceMessageRecord => 'dir' in r);
}

/** The upstream tools/call request and the downstream one that served it. */
async function bothLegs(file: string): Promise<{ up: TraceMessageRecord; down: TraceMessageRecord }> {
  const records = await messages(file);
  const up = records.find((r) => r.server === 'upstream' && r.dir === 'in' && r.method === 'tools/call');
  expect(up).toBeDefined();
  const down = records.find((r) => r.server === 'alpha' && r.dir === 'out' && r.method === 'tools/call');
  expect(down).toBeDefined();
  const meta = (down!.msg as { params: { _meta: Record<string, unknown> } }).params._meta;
  expect((meta['mcpwire.dev/upstream'] as { request: unknown }).request).toBe(up!.id);
  expect(meta.traceparent).toBe(TRACEPARENT);
  return { up: up!, down: down! };
}

describe('mcpwire serve --trace: one trace, both legs tied', { timeout: 60_000 }, () => {
  it('over stdio: the downstream tools/call names the upstream request it serves; trace show prints both', async () => {
    const file = path.join(dir, 'stdio.jsonl');
    const c = await connect(
      { id: 'gw', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', config, '--trace', file], env: { MCPWIRE_TRACE: '' } },
      { protocolVersion: '2025-11-25', timeoutMs: 30_000 },
    );
    const echo = (await c.listTools()).find((t) => t.name.startsWith('mcp_alpha_echo'))!.name;
    const r = await c.callTool(echo, { text: 'traced' }, { _meta: { traceparent: TRACEPARENT } });
    expect(JSON.stringify(r.content)).toContain('traced');
    await c.close();
    await bothLegs(file);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    const shown = execFileSync(process.execPath, [cli, 'trace', 'show', file, '--no-color'], { encoding: 'utf8' });
    expect(shown).toMatch(/upstream[^\n]*tools\/call/);
    expect(shown).toMatch(/alpha[^\n]*tools\/call/);
  });

  it('over Streamable HTTP: the correlation carries the session tag of the upstream lines; the bearer token is not in the trace', async () => {
    const file = path.join(dir, 'http.jsonl');
    const g = await startUntil([cli, 'serve', '--http', '--config', config, '--trace', file, '--token-env', 'GW_TOKEN'], /LISTEN (\S+)/, { MCPWIRE_TRACE: '', GW_TOKEN: TOKEN });
    try {
      const c = await connect({ id: 'gw', transport: 'http', url: g.match[1]!, headers: { Authorization: `Bearer ${TOKEN}` } }, { protocolVersion: '2025-11-25', timeoutMs: 30_000 });
      const echo = (await c.listTools()).find((t) => t.name.startsWith('mcp_alpha_echo'))!.name;
      await c.callTool(echo, { text: 'traced' }, { _meta: { traceparent: TRACEPARENT } });
      await c.close();
    } finally {
      await stop(g.child);
    }
    const { up, down } = await bothLegs(file);
    expect(up.session).toMatch(/^sha256:[0-9a-f]{8}$/);
    const meta = (down.msg as { params: { _meta: Record<string, { session?: string }> } }).params._meta;
    expect(meta['mcpwire.dev/upstream']!.session).toBe(up.session);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(TOKEN);
  });

  it('--names prefixed: the upstream leg holds the name the client called, the downstream leg the server\'s own', async () => {
    const named = path.join(dir, 'prefixed.json');
    fs.writeFileSync(named, fs.readFileSync(config, 'utf8').replace('"serve_names":"host"', '"serve_names":"prefixed"'));
    const file = path.join(dir, 'prefixed.jsonl');
    const c = await connect(
      { id: 'gw', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', named, '--trace', file], env: { MCPWIRE_TRACE: '' } },
      { protocolVersion: '2025-11-25', timeoutMs: 30_000 },
    );
    await c.callTool('alpha__echo', { text: 'named' }, { _meta: { traceparent: TRACEPARENT } });
    await c.close();
    const { up, down } = await bothLegs(file);
    expect((up.msg as { params: { name: string } }).params.name).toBe('alpha__echo');
    expect((down.msg as { params: { name: string } }).params.name).toBe('echo');
  });
});

