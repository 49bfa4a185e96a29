/**
 * Message lines held back until the current turn of the event loop is over (src/trace/message-line.ts):
 * in a sequential client a response comes in and the next request goes out in the same turn, and
 * no trace line is built between them. What that must not change: the lines, their order with
 * event lines and other tracers of the file, and that what was traced before `process.exit()` or
 * a crash is on disk.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Connection } from '../src/protocol/connection.js';
import { createTracer } from '../src/trace/index.js';
import type { JSONRPCMessage } from '../src/jsonrpc/types.js';
import type { SendOptions, Transport } from '../src/transport/types.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-held-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function records(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Texts Buffer's UTF-8 encoder was given (the byte path encodes a line's msg with it). */
function encodedTexts(): string[] {
  const texts: string[] = [];
  const proto = Buffer.prototype as unknown as { utf8Write(s: string, o: number, l: number): number };
  const original = proto.utf8Write;
  vi.spyOn(proto, 'utf8Write').mockImplementation(function (this: Buffer, s: string, o: number, l: number) {
    if (s.startsWith('{"jsonrpc"')) texts.push(s);
    return original.call(this, s, o, l);
  });
  return texts;
}

describe('trace: message lines written once the turn is over', () => {
  it('no line is built between a response read and the next request written; all are written after it, in order', async () => {
    const file = join(dir, 'turn.jsonl');
    const tracer = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    const sent: string[] = [];
    const encodedAtSend: number[] = [];
    const transport: Transport = {
      kind: 'memory',
      start: async () => {},
      close: async () => {},
      send: (message: JSONRPCMessage, options?: SendOptions) => {
        sent.push(options?.serialized ?? JSON.stringify(message));
        encodedAtSend.push(encoded.length);
        return Promise.resolve();
      },
    };
    const conn = new Connection(transport, { observer: tracer });
    const encoded = encodedTexts();
    const first = conn.request('tools/call', { name: 'echo', arguments: { text: 'one' } });
    const response = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"one"}]}}';
    // the response comes in and the caller sends the next request in the same turn
    const second = first.then(() => conn.request('tools/call', { name: 'echo', arguments: { text: 'two' } }));
    transport.onmessage?.(JSON.parse(response) as JSONRPCMessage, undefined, response);
    await first;
    await Promise.resolve();
    expect(sent).toHaveLength(2);
    expect(encodedAtSend).toEqual([0, 0]);
    expect(encoded).toEqual([]);
    await nextTurn();
    expect(encoded).toEqual([sent[0], response, sent[1]]);
    transport.onmessage?.({ jsonrpc: '2.0', id: 2, result: { content: [] } }, undefined, '{"jsonrpc":"2.0","id":2,"result":{"content":[]}}');
    await second;
    await conn.close();
    await tracer.close();
    const lines = records(file).filter((r) => r.dir !== undefined);
    expect(lines.map((r) => `${r.dir} ${r.kind} ${r.id}`)).toEqual(['out request 1', 'in result 1', 'out request 2', 'in result 2']);
    expect(lines[1]).toMatchObject({ method: 'tools/call', msg: JSON.parse(response) });
    expect(typeof lines[1].latency_ms).toBe('number');
  });

  it('held lines keep their place before event lines, string-path lines and the lines of another tracer of the file', async () => {
    const file = join(dir, 'order.jsonl');
    const a = await createTracer({ file, serverId: 'a', transport: 'stdio' });
    const b = await createTracer({ file, serverId: 'b', transport: 'stdio' });
    const m = (id: number | string) => ({ jsonrpc: '2.0', id, result: { n: id } });
    a.message('in', m(1), { kind: 'result', id: 1, text: JSON.stringify(m(1)) }); // held
    b.event({ type: 'diagnostic', code: 'X', message: 'after one' }); // written at once
    a.message('in', m(2), { kind: 'result', id: 2, text: JSON.stringify(m(2)) }); // held
    b.message('in', m('s'), { kind: 'result', id: 's', text: JSON.stringify(m('s')) }); // a string id: written at once
    a.message('in', m(3), { kind: 'result', id: 3, text: JSON.stringify(m(3)) }); // held
    await a.flush();
    b.message('in', m(4), { kind: 'result', id: 4, text: JSON.stringify(m(4)) });
    await a.close();
    await b.close();
    const order = records(file)
      .filter((r) => r.event !== 'trace-start' && r.event !== 'trace-end')
      .map((r) => `${r.server}:${r.id ?? r.message}`);
    expect(order).toEqual(['a:1', 'b:after one', 'a:2', 'b:s', 'a:3', 'b:4']);
  });

  it('a turn holds a bounded number of lines: the rest are written at once', async () => {
    const file = join(dir, 'bound.jsonl');
    const tracer = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    const encoded = encodedTexts();
    for (let i = 1; i <= 600; i++) {
      const m = { jsonrpc: '2.0', id: i, result: { i } };
      tracer.message('in', m, { kind: 'result', id: i, text: JSON.stringify(m) });
    }
    expect(encoded.length).toBeGreaterThanOrEqual(512);
    expect(encoded.length).toBeLessThan(600);
    await tracer.close();
    expect(records(file).filter((r) => r.kind === 'result').map((r) => r.id)).toEqual(Array.from({ length: 600 }, (_, k) => k + 1));
  });
});

describe('trace: held lines at exit', () => {
  const built = resolve('dist/trace/tracer.js');
  const script = (file: string, end: string) => `
    const { createTracer } = await import(${JSON.stringify(built)});
    const t = await createTracer({ file: ${JSON.stringify(file)}, serverId: 'srv', transport: 'stdio' });
    for (let i = 1; i <= 3; i++) {
      const m = { jsonrpc: '2.0', id: i, result: { i } };
      t.message('in', m, { kind: 'result', id: i, text: JSON.stringify(m), latencyMs: i });
    }
    ${end}
  `;

  it.each([
    ['process.exit() in the same turn', 'process.exit(0);', 0],
    ['an uncaught exception in the same turn', "throw new Error('boom');", 1],
  ])('what was traced before %s is on disk, whole and in order', (_what, end, code) => {
    expect(existsSync(built), 'run `npm run build` first').toBe(true);
    const file = join(dir, `exit-${code}.jsonl`);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(file, end)], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(code);
    const lines = records(file);
    expect(lines[0]).toMatchObject({ event: 'trace-start' });
    expect(lines.slice(1).map((l) => [l.id, l.latency_ms, (l.msg as { result: { i: number } }).result.i])).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, 3],
    ]);
  });
});
