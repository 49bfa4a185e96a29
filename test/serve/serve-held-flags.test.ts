// clauses: 2026-07-28
/**
 * `mcpwire serve --max-held <n> --held-ttl-ms <ms>`: the bounds of the calls the gateway holds
 * while a 2026-07-28 client answers an input_required round (src/serve/input-rounds.ts), set
 * from the command line of the built CLI over stdio. Behind it the scripted stdio mock with the
 * `ask` tool (mock-servers/serve/ask-many.mjs), recording what it receives.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cli, root } from '../support/tap-helpers.js';
import { meta, spawnLinePeer, type LinePeer, type Msg } from '../support/modern-wire.js';
import { jsonLines } from '../support/recorded-mock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-held-'));
let n = 0;
const ALL = { elicitation: {}, sampling: {}, roots: {} };
const COLOUR = { message: 'Your colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } };

function setup(): { config: string; record: string } {
  n++;
  const record = path.join(dir, `received-${n}.jsonl`);
  const config = path.join(dir, `config-${n}.json`);
  const env = { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['ask', 'echo'] }), MOCK_RECORD: record };
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { asker: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/serve/ask-many.mjs')], env } } } }));
  return { config, record };
}


const peers: LinePeer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close().catch(() => {});
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The gateway over stdio with `flags`, and the `tools/call` params of its `ask` tool. */
async function gateway(config: string, flags: string[]): Promise<{ gw: LinePeer; ask: (message: string, more?: Msg) => Msg }> {
  const gw = spawnLinePeer([cli, 'serve', '--config', config, ...flags], { env: { MCPWIRE_TRACE: '' } });
  peers.push(gw);
  const tools = (await gw.request('tools/list', { _meta: meta({}, ALL) })).result.tools as { name: string }[];
  const name = tools.find((t) => /^mcp_asker_ask_[0-9a-f]{8}$/.test(t.name))?.name;
  if (name === undefined) throw new Error(`no ask tool in ${JSON.stringify(tools.map((t) => t.name))}`);
  const ask = (message: string, more: Msg = {}): Msg => ({ name, arguments: { method: 'elicitation/create', params: { ...COLOUR, message } }, _meta: meta({}, ALL), ...more });
  return { gw, ask };
}

/** The CLI's exit code and stderr for `serve` with `flags` (nothing to serve: a usage error comes first). */
function refused(flags: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'serve', ...flags], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, MCPWIRE_TRACE: '' } });
  return { status: r.status, stderr: r.stderr };
}

describe('mcpwire serve: --max-held and --held-ttl-ms reach the gateway', { timeout: 90_000 }, () => {
  // cites basic.patterns.mrtr#15: mcpwire serve is the server here: it does not wait for a retry longer than --held-ttl-ms
  it('basic.patterns.mrtr#15: --held-ttl-ms 300: a client that never retries has its call cancelled downstream, and its state is refused afterwards', async () => {
    const { config, record } = setup();
    const { gw, ask } = await gateway(config, ['--held-ttl-ms', '300']);
    const first = (await gw.request('tools/call', ask('Held?'))).result;
    expect(first.resultType).toBe('input_required');
    const call0 = jsonLines(record).find((m) => m.method === 'tools/call');
    expect(call0).toBeDefined();
    // the default TTL is 5 minutes: within 10 s only the flag can have cancelled it
    await expect.poll(() => jsonLines(record).some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === call0?.id), { timeout: 10_000 }).toBe(true);
    const key = Object.keys(first.inputRequests)[0]!;
    const late = await gw.request('tools/call', ask('Held?', { inputResponses: { [key]: { action: 'accept', content: { colour: 'late' } } }, requestState: first.requestState }));
    expect(late.error?.code).toBe(-32602);
  });

  it('--max-held 1: while one call waits for its client, a second call has its input request refused and goes on without it', async () => {
    const { config } = setup();
    const { gw, ask } = await gateway(config, ['--max-held', '1']);
    const first = (await gw.request('tools/call', ask('First?'))).result;
    expect(first.resultType).toBe('input_required');
    const second = (await gw.request('tools/call', ask('Second?'))).result;
    expect(second.resultType).toBe('complete');
    expect(second.isError).toBe(true);
    expect(second.content[0].text).toMatch(/the gateway already holds 1 calls waiting for their client's input/);
    // the first call is still held and completes on its retry
    const key = Object.keys(first.inputRequests)[0]!;
    const done = (await gw.request('tools/call', ask('First?', { inputResponses: { [key]: { action: 'accept', content: { colour: 'teal' } } }, requestState: first.requestState }))).result;
    expect(done.resultType).toBe('complete');
    expect(JSON.parse(done.content[0].text)).toEqual({ action: 'accept', content: { colour: 'teal' } });
  });

  it('a value that is not a positive whole number is a usage error naming the flag', () => {
    for (const [flag, value] of [
      ['--max-held', '0'],
      ['--max-held', '1.5'],
      ['--max-held', 'many'],
      ['--held-ttl-ms', '-5'],
      ['--held-ttl-ms', '1e3'],
      ['--held-ttl-ms', '3000000000'],
    ] as const) {
      const r = refused([`${flag}=${value}`]);
      expect(r.status, `${flag} ${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${flag}: a whole number from 1 to`);
      expect(r.stderr).toContain(`(got "${value}")`);
    }
  });
});
