/**
 * `mcpwire trace diff` across protocol eras (the built CLI): one server (the 2026-07-28 mock in
 * dual mode, same tools in both eras) recorded through `mcpwire tap` by a client pinned to
 * 2025-11-25 (`initialize`) and by one pinned to 2026-07-28 (`server/discover`) is the same by
 * meaning — exit 0, the era of each shown. Another server version and capability are named (the
 * server's name/version were not compared before). A request answered after an input_required
 * round equals the same request answered at once.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { parseTrace } from '../../src/trace-api.js';
import { diffTraces } from '../../src/tap/index.js';
import { waitFor } from '../support/raw-http.js';
import { cli, root } from '../support/tap-helpers.js';

const MODERN_STDIO = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-diff-modern-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const greet = { name: 'greet', description: 'Greets', inputSchema: { type: 'object', properties: { who: { type: 'string' } } }, result: { content: [{ type: 'text', text: 'hello' }] } };
const info = { name: 'same', version: '2.0.0' };
const scenario = { mode: 'dual', serverInfo: info, tools: [greet], legacy: { serverInfo: info, tools: [greet] } };

async function record(file: string, protocolVersion: string): Promise<string | undefined> {
  const c = await connect(
    { transport: 'stdio', id: 'd', command: process.execPath, args: [cli, 'tap', '--trace', file, '--name', 'dual', '--', process.execPath, MODERN_STDIO], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } },
    { timeoutMs: 15_000, protocolVersion },
  );
  try {
    expect((await c.listTools()).map((t) => t.name)).toEqual(['greet']);
    await c.callTool('greet', { who: 'x' });
    return c.era;
  } finally {
    await c.close();
    await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"trace-end"'), 'the tap to finish its trace');
  }
}

function diff(a: string, b: string, json = false): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [cli, 'trace', 'diff', a, b, ...(json ? ['--json'] : [])], { cwd: root, encoding: 'utf8' });
  return { code: r.status, out: r.stdout };
}

const handshake = path.join(dir, 'handshake.jsonl');
const modern = path.join(dir, 'modern.jsonl');
beforeAll(async () => {
  expect(await record(handshake, '2025-11-25')).toBe('handshake');
  expect(await record(modern, '2026-07-28')).toBe('modern');
}, 60_000);

describe('trace diff across eras', () => {
  it('the same server in both eras: no difference by meaning (exit 0), the era of each shown', () => {
    const text = diff(handshake, modern);
    expect(text.out).toContain('era: handshake 2025-11-25 → modern 2026-07-28 (compared by meaning)');
    expect(text.out).toContain('no protocol-level difference');
    expect(text.code).toBe(0);
    const json = JSON.parse(diff(handshake, modern, true).out);
    expect(json).toMatchObject({ same: true, era: { a: 'handshake 2025-11-25', b: 'modern 2026-07-28' }, serverInfo: [], serverCapabilities: [] });
    expect(json.protocolVersion).toBeUndefined();
  });

  it('another server version and a capability the DiscoverResult adds are named (exit 1)', () => {
    const other = path.join(dir, 'other.jsonl');
    const lines = fs.readFileSync(modern, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const r of lines) {
      if (r.method === 'server/discover' && r.kind === 'result') r.msg.result.capabilities.prompts = {};
    }
    fs.writeFileSync(other, lines.map((r) => JSON.stringify(r).replaceAll('"version":"2.0.0"', '"version":"2.1.0"')).join('\n') + '\n');
    const text = diff(handshake, other);
    expect(text.code).toBe(1);
    expect(text.out).toContain('server info:\n  ~ version: "2.0.0" → "2.1.0"');
    expect(text.out).toContain('server capabilities:\n  + prompts {}');
    // Within one era too.
    expect(diff(modern, other).out).toContain('~ version: "2.0.0" → "2.1.0"');
  });

  it('a request answered after an input_required round equals the same request answered at once', () => {
    const records = parseTrace(fs.readFileSync('test/fixtures/modern-mrtr.jsonl', 'utf8')).records as Array<Record<string, any>>;
    const asked = records.filter((r) => r.method === 'tools/call' && r.dir === 'out' && r.msg.params.name === 'confirm');
    expect(asked).toHaveLength(2);
    const [first, retry] = asked;
    // The same session, the server answering the first attempt with the final result.
    const direct = records
      .filter((r) => !(r.dir === 'in' && r.id === first.id) && r !== retry)
      .map((r) => (r.dir === 'in' && r.id === retry.id ? { ...r, id: first.id, msg: { ...r.msg, id: first.id } } : r));
    const d = diffTraces(records as never, direct as never);
    expect(d.firstDivergence).toBeUndefined();
    expect(d.same).toBe(true);
    // A different final answer still shows.
    const changed = direct.map((r) => (r.dir === 'in' && r.id === first.id ? { ...r, msg: { ...r.msg, result: { ...r.msg.result, content: [{ type: 'text', text: 'decline' }] } } } : r));
    expect(diffTraces(records as never, changed as never).firstDivergence).toMatchObject({ what: 'response', method: 'tools/call', path: '/result/content/0/text' });
  });
});
