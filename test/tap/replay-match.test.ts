/**
 * Which recorded request a replay answers with: in the default (loose) match, never one about
 * another tool, prompt or resource than the live request's, however alike the rest; a miss is
 * a JSON-RPC error that names the closest recorded request.
 */
import { describe, expect, it } from 'vitest';
import { buildScript, NOT_RECORDED, ReplaySession } from '../../src/tap/index.js';
import type { TraceRecord } from '../../src/index.js';

const base = { v: 1, ts: '2025-11-25T10:00:00.000Z', server: 's', transport: 'stdio' };
let t = 0;
const rec = (dir: 'in' | 'out', kind: string, msg: Record<string, unknown>): TraceRecord =>
  ({ ...base, t: ++t, dir, kind, method: msg.method as string | undefined, id: msg.id as number | undefined, bytes: 1, msg }) as TraceRecord;
const exchange = (id: number, method: string, params: unknown, result: unknown) => [
  rec('out', 'request', { jsonrpc: '2.0', id, method, params }),
  rec('in', 'result', { jsonrpc: '2.0', id, result }),
];

const records: TraceRecord[] = [
  ...exchange(1, 'tools/call', { name: 'echo', arguments: { message: 'hi' } }, { content: [{ type: 'text', text: 'Echo: hi' }] }),
  ...exchange(2, 'resources/read', { uri: 'test://static/resource/1' }, { contents: [{ uri: 'test://static/resource/1', text: 'one' }] }),
  ...exchange(3, 'prompts/get', { name: 'simple_prompt' }, { messages: [] }),
];

function session() {
  const sent: any[] = [];
  const s = new ReplaySession(buildScript(records), 'loose', (m) => sent.push(m));
  const ask = async (id: number, method: string, params: unknown) => {
    await s.receive({ jsonrpc: '2.0', id, method, params });
    return sent.find((m) => m.id === id);
  };
  return { s, ask };
}

describe('replay matching (loose, the default)', () => {
  it('a tools/call of another tool gets an error naming the closest recorded request, not the recorded tool’s answer', async () => {
    const { s, ask } = session();
    const a = await ask(7, 'tools/call', { name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(a.result).toBeUndefined();
    expect(a.error.code).toBe(NOT_RECORDED);
    expect(a.error.message).toMatch(/no tools\/call "get-sum" in the recording; closest recorded: #1 tools\/call "echo"/);
    expect(s.summary().mismatches.map((m) => m.method)).toEqual(['tools/call']);
  });

  it('resources/read matches on the URI and prompts/get on the name', async () => {
    const { ask } = session();
    const r = await ask(8, 'resources/read', { uri: 'test://static/resource/2' });
    expect(r.error.code).toBe(NOT_RECORDED);
    expect(r.error.message).toMatch(/closest recorded: #2 resources\/read "test:\/\/static\/resource\/1"/);
    const p = await ask(9, 'prompts/get', { name: 'complex_prompt', arguments: { temperature: '1' } });
    expect(p.error.code).toBe(NOT_RECORDED);
    expect(p.error.message).toMatch(/closest recorded: #3 prompts\/get "simple_prompt"/);
  });

  it('the same tool with other arguments still gets that tool’s recorded answer, with the live id', async () => {
    const { ask } = session();
    const a = await ask(10, 'tools/call', { name: 'echo', arguments: { message: 'something else' } });
    expect(a).toEqual({ jsonrpc: '2.0', id: 10, result: { content: [{ type: 'text', text: 'Echo: hi' }] } });
    const r = await ask(11, 'resources/read', { uri: 'test://static/resource/1' });
    expect(r.result.contents[0].text).toBe('one');
  });

  it('strict: a miss names the request the recording holds next', async () => {
    const sent: any[] = [];
    const s = new ReplaySession(buildScript(records), 'strict', (m) => sent.push(m));
    await s.receive({ jsonrpc: '2.0', id: 1, method: 'prompts/list' });
    expect(sent[0].error.message).toMatch(/request #1 of the recording is tools\/call "echo", not prompts\/list/);
  });
});
