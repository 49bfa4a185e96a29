// clauses: 2026-07-28
/**
 * A 2026-07-28 `tools/call` relayed by `mcpwire serve` over stdio (the built CLI), spoken to line
 * by line, with the recorded handshake-era mock behind it: what the relay passes down and up
 * per call. Progress and log messages travel only for a request that asked for them (a
 * `progressToken`, a log level in its `_meta`), so a call that asked for neither goes down with
 * no progress token; the caller's cancel and the call's timeout still reach the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli-process.js';
import { jsonLines, LEGACY_SERVER } from '../support/recorded-mock.js';
import { LEVEL, meta, spawnLinePeer, type LinePeer } from '../support/modern-wire.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-serve-relay-')();
let seq = 0;
const peers: LinePeer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close().catch(() => {});
});

/** A gateway over stdio in front of the recorded mock; `record` is the file of what the mock received. */
function gateway(server: Record<string, unknown> = {}): { peer: LinePeer; record: string } {
  const record = path.join(dir, `rec-${++seq}.jsonl`);
  const config = path.join(dir, `config-${seq}.json`);
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [LEGACY_SERVER], env: { MOCK_RECORD: record }, ...server } } } }));
  const peer = spawnLinePeer([cli, 'serve', '--config', config], { env: { MCPWIRE_TRACE: '' } });
  peers.push(peer);
  return { peer, record };
}

const downCalls = (record: string, tool: string) => jsonLines(record).filter((m) => m.method === 'tools/call' && m.params?.name === tool);

async function toolName(peer: LinePeer, prefix: string): Promise<string> {
  const r = await peer.request('tools/list', { _meta: meta() });
  return (r.result.tools as { name: string }[]).map((t) => t.name).find((n) => n.startsWith(prefix))!;
}

describe('a 2026-07-28 tools/call relayed over stdio', { timeout: 60_000 }, () => {
  // cites basic.patterns.progress#5: mcpwire serve is the server upstream; its progress goes up only under a token its caller gave
  it('basic.patterns.progress#5: a call that asked for neither progress nor log messages goes down with no progress token; one with a token gets its progress under that token', async () => {
    const { peer, record } = gateway();
    const echo = await toolName(peer, 'mcp_alpha_echo');
    const progress = await toolName(peer, 'mcp_alpha_progress');

    const plain = await peer.request('tools/call', { name: echo, arguments: { text: 'hi' }, _meta: meta() });
    expect(plain.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    const [down] = downCalls(record, 'echo');
    expect(down.params._meta?.progressToken).toBeUndefined();

    const asked = await peer.request('tools/call', { name: progress, arguments: { steps: 3, intervalMs: 5 }, _meta: meta({ progressToken: 'up-1' }) }, 'p1');
    expect(asked.result.isError).not.toBe(true);
    expect(downCalls(record, 'progress')[0].params._meta?.progressToken).toBeDefined();
    const ups = peer.messages.filter((m) => m.method === 'notifications/progress');
    expect(ups.map((n) => n.params.progress)).toEqual([1, 2, 3]);
    for (const n of ups) expect(n.params.progressToken).toBe('up-1');
  });

  it("server.utilities.logging: a call's log messages come up when its request named a level at or below theirs, and not otherwise", async () => {
    const { peer } = gateway();
    const log = await toolName(peer, 'mcp_alpha_log');
    await peer.request('tools/call', { name: log, arguments: { level: 'warning', data: 'quiet one' }, _meta: meta() });
    await peer.request('tools/call', { name: log, arguments: { level: 'warning', data: 'loud one' }, _meta: meta({ [LEVEL]: 'info' }) });
    await peer.request('tools/call', { name: log, arguments: { level: 'info', data: 'below' }, _meta: meta({ [LEVEL]: 'error' }) });
    await toolName(peer, 'mcp_alpha_log'); // (one more exchange: nothing still on its way)
    const logs = peer.messages.filter((m) => m.method === 'notifications/message');
    expect(logs.map((m) => m.params.data)).toEqual(['loud one']);
    expect(logs[0].params).toMatchObject({ level: 'warning', logger: 'alpha' });
  });

  it("basic.patterns.cancellation#5: the caller's notifications/cancelled cancels the call downstream, and no answer comes", async () => {
    const { peer, record } = gateway();
    const slow = await toolName(peer, 'mcp_alpha_slow');
    peer.send({ jsonrpc: '2.0', id: 'c-slow', method: 'tools/call', params: { name: slow, arguments: { ms: 20_000 }, _meta: meta() } });
    await expect.poll(() => downCalls(record, 'slow').length, { timeout: 15_000 }).toBe(1);
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c-slow', reason: 'user stopped it' } });
    await expect.poll(() => jsonLines(record).find((m) => m.method === 'notifications/cancelled')?.params, { timeout: 15_000 }).toMatchObject({ requestId: downCalls(record, 'slow')[0].id });
    await toolName(peer, 'mcp_alpha_slow');
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.messages.find((m) => m.id === 'c-slow')).toBeUndefined();
  });

  it("basic.patterns.cancellation#6/#7: a call past its server's request_timeout_ms is cancelled downstream and answered as a timeout", async () => {
    const { peer, record } = gateway({ request_timeout_ms: 3000 });
    const slow = await toolName(peer, 'mcp_alpha_slow');
    const r = await peer.request('tools/call', { name: slow, arguments: { ms: 20_000 }, _meta: meta() });
    expect(r.error).toBeUndefined();
    expect(r.result.isError).toBe(true);
    expect(r.result.content[0].text).toMatch(/timed out/);
    await expect.poll(() => jsonLines(record).find((m) => m.method === 'notifications/cancelled')?.params?.requestId, { timeout: 15_000 }).toBe(downCalls(record, 'slow')[0].id);
  });
});
