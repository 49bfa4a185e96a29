// clauses: 2026-07-28
/**
 * `mcpwire serve` between a 2026-07-28 client and a 2026-07-28 server (the modern stdio mock,
 * mock-servers/modern): the client's own capabilities reach the server with each request, and
 * the server's multi round-trip input requests reach the client under the server's keys, its
 * answers going back under them unchanged. In front: raw JSON lines to the built CLI over stdio.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { cli } from '../support/tap-helpers.js';
import { meta, spawnLinePeer, type LinePeer } from '../support/modern-wire.js';
import { recordedMocks } from '../support/recorded-mock.js';

const { dir, mock } = recordedMocks('serve-modern-input-');
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const peers: LinePeer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close().catch(() => {});
});

/** The gateway (as-is names) in front of the modern mock, started by a tools/list declaring every input feature. */
async function gateway() {
  const m = mock({ id: 'modern' });
  const config = path.join(dir, `config-${peers.length}-${Date.now()}.json`);
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'as-is', servers: { modern: { ...m.config, protocol_version: '2026-07-28' } } } }));
  const p = spawnLinePeer([cli, 'serve', '--config', config], { env: { MCPWIRE_TRACE: '' } });
  peers.push(p);
  await p.request('tools/list', { _meta: meta({}, { elicitation: {}, sampling: {}, roots: {} }) });
  return { p, calls: () => m.received().filter((r) => r.method === 'tools/call') };
}

describe('serve: a 2026-07-28 client through the gateway to a 2026-07-28 server', { timeout: 60_000 }, () => {
  it("basic#44, client.elicitation#4: the client's own capabilities go down with its request and its retry (not the first client's)", async () => {
    const { p, calls } = await gateway();
    const mine = { elicitation: { form: {} } };
    const r = (await p.request('tools/call', { name: 'confirm', arguments: { message: 'Deploy?' }, _meta: meta({}, mine) })).result;
    expect(r.resultType).toBe('input_required');
    await p.request('tools/call', { name: 'confirm', arguments: { message: 'Deploy?' }, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: r.requestState, _meta: meta({}, mine) });
    const down = calls();
    expect(down.length).toBeGreaterThanOrEqual(2);
    for (const c of down) expect(c.params._meta[CAPS]).toEqual(mine);
  });

  it('basic.patterns.mrtr#16/#17: the server\'s inputRequests keys reach the client unchanged, and its inputResponses go back under them', async () => {
    const { p, calls } = await gateway();
    const caps = { elicitation: {} };
    const first = (await p.request('tools/call', { name: 'confirm', arguments: { message: 'Deploy?' }, _meta: meta({}, caps) })).result;
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['confirm']);
    expect(first.inputRequests.confirm.method).toBe('elicitation/create');
    const answer = { action: 'accept', content: { confirm: true } };
    const done = (await p.request('tools/call', { name: 'confirm', arguments: { message: 'Deploy?' }, inputResponses: { confirm: answer }, requestState: first.requestState, _meta: meta({}, caps) })).result;
    expect(done.resultType).toBe('complete');
    expect(done.isError).not.toBe(true);
    const retry = calls().find((c) => c.params.inputResponses !== undefined);
    expect(retry?.params.inputResponses).toEqual({ confirm: answer });
  });

  // cites basic#48: the server behind the gateway is bound; the gateway passes the client's own capabilities so it can keep it
  // cites basic#49: the server's -32021 reaches the client through the gateway as the server gave it
  it('basic#48/#49: a client that did not declare what the tool needs gets the server\'s -32021 with its requiredCapabilities', async () => {
    const { p } = await gateway();
    const res = await p.request('tools/call', { name: 'confirm', arguments: { message: 'Deploy?' }, _meta: meta({}, {}) });
    expect(res.error?.code).toBe(-32021);
    expect(res.error?.data?.requiredCapabilities).toEqual({ elicitation: {} });
  });
});
