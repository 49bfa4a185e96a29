/**
 * `mcpwire replay` of 2026-07-28 recordings (the built CLI, real processes and sockets on
 * 127.0.0.1): a session recorded through `mcpwire tap` with the modern stdio mock — the
 * `server/discover` probe, listings, a call with Mcp-Param headers, an input_required round and
 * its retry (new id, inputResponses, requestState) — replayed to a live client gives the same
 * results, over stdio and HTTP, strict and loose, whatever the recorded JSON-RPC ids. A recording
 * made by a host that never sent `server/discover` still opens the modern era (a DiscoverResult
 * built from the recording); a handshake-era recording answers the probe as a handshake server
 * does (not a mismatch). A retry carrying a requestState the recording never gave gets no
 * recorded answer.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type ClientOptions, type McpClient, type ServerConfig, type TraceRecord } from '../../src/index.js';
import { parseTrace } from '../../src/trace-api.js';
import { buildScript, NOT_RECORDED, ReplaySession } from '../../src/tap/index.js';
import { waitFor } from '../support/raw-http.js';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';

const MODERN_STDIO = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const LEGACY_STDIO = path.join(root, 'mock-servers', 'stdio-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-replay-modern-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>;
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const options: ClientOptions = { timeoutMs: 15_000, onElicitation: async () => ({ action: 'accept', content: { ok: true } }) };
const recording = path.join(dir, 'modern.jsonl');

/** What a session sees: the server's name, the era, the tool names and three calls' results. */
async function session(config: ServerConfig, opts: ClientOptions = options): Promise<unknown[]> {
  const c: McpClient = await connect(config, opts);
  try {
    const tools = (await c.listTools()).map((t) => t.name);
    const route = text(await c.callTool('route', { query: 'q', region: 'Zürich', dryRun: false }));
    const confirm = text(await c.callTool('confirm', { message: 'Deploy?' }));
    const echo = text(await c.callTool('echo', { text: 'hi' }));
    return [c.era, c.serverInfo?.name, tools, route, confirm, echo];
  } finally {
    await c.close();
  }
}

async function tapped(file: string, server: string, opts: ClientOptions = options): Promise<unknown[]> {
  const live = await session({ transport: 'stdio', id: 'm', command: process.execPath, args: [cli, 'tap', '--trace', file, '--name', 'm', '--', process.execPath, server] }, opts);
  await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"trace-end"'), 'the tap to finish its trace');
  return live;
}

const replayStdio = (file: string, mode: string): ServerConfig => ({ transport: 'stdio', id: 'r', command: process.execPath, args: [cli, 'replay', file, '--match', mode] });

/** A copy of the recording rewritten record by record (null drops one). */
function rewrite(name: string, fn: (r: Rec) => Rec | null): string {
  const out = path.join(dir, name);
  const recs = fs.readFileSync(recording, 'utf8').split('\n').filter(Boolean).map((l) => fn(JSON.parse(l) as Rec)).filter((r) => r !== null);
  fs.writeFileSync(out, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return out;
}

let live: unknown[];
beforeAll(async () => {
  live = await tapped(recording, MODERN_STDIO);
}, 60_000);

describe('replay of a 2026-07-28 recording', () => {
  it('the recording holds the probe, the era, and the input_required round with its retry', () => {
    expect(live[0]).toBe('modern');
    expect(live[4]).toBe('accept: {"ok":true} after 1 round(s)');
    const records = parseTrace(fs.readFileSync(recording, 'utf8')).records as Rec[];
    expect(records.find((r) => r.event === 'era')).toMatchObject({ era: 'modern', version: '2026-07-28' });
    const calls = records.filter((r) => r.dir === 'out' && r.method === 'tools/call' && r.msg.params.name === 'confirm');
    expect(calls).toHaveLength(2);
    expect(calls[1].msg.params.requestState).toEqual(expect.any(String));
    expect(calls[1].id).not.toBe(calls[0].id);
  });

  it('stdio, strict and loose: a live client gets the same results, even with the recorded ids renumbered', async () => {
    const renumbered = rewrite('renumbered.jsonl', (r) => (r.msg?.id === undefined ? r : { ...r, id: `x${r.id}`, msg: { ...r.msg, id: `x${r.msg.id}` } }));
    for (const [file, mode] of [[recording, 'strict'], [renumbered, 'strict'], [recording, 'loose']]) {
      expect(await session(replayStdio(file!, mode!)), `${file} ${mode}`).toEqual(live);
    }
  }, 60_000);

  it('HTTP (replay --listen): a live client gets the same results; nothing is unrecorded in strict mode', async () => {
    const replay = await startUntil([cli, 'replay', recording, '--listen', '127.0.0.1:0', '--match', 'strict'], /at (http:\/\/\S+)/);
    try {
      expect(await session({ transport: 'http', id: 'r', url: replay.match[1] })).toEqual(live);
    } finally {
      await stop(replay.child);
    }
    await waitFor(() => /request\(s\) answered/.test(replay.stderr()), 'the summary');
    expect(replay.stderr()).toMatch(/answered from the recording, 0 not recorded \(strict match\), 0 recorded request\(s\) not played/);
  }, 60_000);

  it('a recording without server/discover (a host that never sent one) still opens the modern era, with the recorded server name and the same results', async () => {
    const ids = new Set<unknown>();
    const noDiscover = rewrite('no-discover.jsonl', (r) => {
      if (r.method === 'server/discover' && r.dir === 'out') ids.add(r.id);
      return r.method === 'server/discover' || (r.dir === 'in' && ids.has(r.id) && r.kind !== 'notification') ? null : r;
    });
    expect(fs.readFileSync(noDiscover, 'utf8')).not.toContain('server/discover');
    expect(await session(replayStdio(noDiscover, 'strict'))).toEqual(live);
  }, 60_000);

  it('a handshake-era recording answers the era probe as a handshake server does: the probing client falls back, strict replay exits 0', async () => {
    const legacy = path.join(dir, 'legacy.jsonl');
    // Recorded by a client pinned to 2025-11-25 (no probe); replayed to one that probes.
    const config: ServerConfig = { transport: 'stdio', id: 'l', command: process.execPath, args: [cli, 'tap', '--trace', legacy, '--name', 'l', '--', process.execPath, LEGACY_STDIO] };
    const c = await connect(config, { timeoutMs: 15_000, protocolVersion: '2025-11-25' });
    const before = (await c.listTools()).map((t) => t.name);
    await c.close();
    await waitFor(() => fs.existsSync(legacy) && fs.readFileSync(legacy, 'utf8').includes('"trace-end"'), 'the tap to finish its trace');
    expect(fs.readFileSync(legacy, 'utf8')).not.toContain('server/discover');
    const probing = await connect({ transport: 'stdio', id: 'r', command: process.execPath, args: [cli, 'replay', legacy, '--match', 'strict'] }, { timeoutMs: 15_000 });
    try {
      expect(probing.era).toBe('handshake');
      expect((await probing.listTools()).map((t) => t.name)).toEqual(before);
    } finally {
      await probing.close();
    }
    const r = spawnSync(process.execPath, [cli, 'replay', legacy, '--match', 'strict'], {
      input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } })}\n`,
      encoding: 'utf8',
    });
    expect(JSON.parse(r.stdout)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    expect(r.stderr).toMatch(/0 not recorded/);
    expect(r.status).toBe(0);
  }, 60_000);

  it('a retry is matched by its requestState (equal or not, never parsed): a state the recording never gave gets no recorded answer', async () => {
    const records = parseTrace(fs.readFileSync(recording, 'utf8')).records as TraceRecord[];
    const script = buildScript(records);
    const retry = script.exchanges.find((e) => (e.params as Rec).requestState !== undefined)!;
    const params = retry.params as Rec;
    const sent: Rec[] = [];
    const s = new ReplaySession(script, 'loose', (m) => sent.push(m as Rec));
    await s.receive({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { ...params, requestState: `${params.requestState}x` } });
    expect(sent.pop()).toMatchObject({ id: 'a', error: { code: NOT_RECORDED } });
    await s.receive({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { ...params, _meta: {} } });
    expect(sent.pop()).toEqual({ ...retry.response, id: 'b' });
  });
});
