/**
 * Message lines are held and encoded together (src/trace/held-lines.ts): the clock is read when
 * the message passes, the bytes written later. A trace must not change for it: the same session,
 * with the same clock readings, gives the same file, byte for byte, as lines written one by one
 * from the message (the string path), whatever falls between them — events, string-path lines,
 * another tracer of the file, flushes, seconds, batches.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { MessageInfo } from '../../src/protocol/observer.js';
import { createTracer, type Tracer } from '../../src/trace/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-held-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

type Step = (t: Tracer, withText: boolean) => void | Promise<void>;

/**
 * One sequential call: the request out, its result in (the bench's exchange), both at `at` (the
 * string path reads `performance.now()`, mocked to it, where the held path takes `at`).
 */
function call(id: number, at: number, text: string): Step {
  return (t, withText) => {
    const req = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } };
    const res = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } };
    const out: MessageInfo = { kind: 'request', method: 'tools/call', id, at };
    const back: MessageInfo = { kind: 'result', id, requestMethod: 'tools/call', latencyMs: (id % 997) / 7, at };
    t.message('out', req, withText ? { ...out, text: JSON.stringify(req) } : out);
    t.message('in', res, withText ? { ...back, text: JSON.stringify(res) } : back);
  };
}

describe('trace: held lines', () => {
  it('give the bytes of lines written one by one, across seconds, batches, events, string-path lines, flushes and a second tracer of the file', async () => {
    // 23:59:59.200 on the last day of a year: 3 ms a call crosses seconds, a day and a year
    const base = Date.UTC(2025, 11, 31, 23, 59, 59, 200);
    const at0 = 50_000;
    const steps: { wall: number; at: number; step: Step }[] = [];
    let clock = 0;
    const add = (step: Step, ms = 3) => {
      steps.push({ wall: base + clock, at: at0 + clock, step });
      clock += ms;
    };
    for (let i = 1; i <= 1500; i++) {
      // texts of every size: a few lines hold the held text's bound, most the line count's
      const text = i % 97 === 0 ? `é ${'x'.repeat(9000)}` : i % 13 === 0 ? `"quoted" ${'y'.repeat(700)} 🎉` : `hello ${i}`;
      add(call(i, at0 + clock, text));
      if (i % 41 === 0) add((t) => t.event({ type: 'lifecycle', from: 'ready', to: 'ready' }), 0);
      if (i % 59 === 0) add((t) => t.message('in', { jsonrpc: '2.0', id: `s${i}`, result: {} }, { kind: 'result', id: `s${i}` }), 0);
      if (i % 250 === 0) add((t) => t.flush(), 0);
    }
    const run = async (file: string, withText: boolean) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(base);
      const now = vi.spyOn(performance, 'now').mockReturnValue(at0);
      const t = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
      // a second tracer of the same file, whose lines fall between the held ones
      const other = await createTracer({ file, serverId: 'other', transport: 'stdio' });
      let n = 0;
      for (const { wall, at, step } of steps) {
        vi.setSystemTime(wall);
        now.mockReturnValue(at);
        await step(t, withText);
        if (++n % 37 === 0) call(100_000 + n, at, 'from the other tracer')(other, withText);
      }
      await other.close();
      await t.close();
      vi.useRealTimers();
      vi.restoreAllMocks();
    };
    const held = join(dir, 'held.jsonl');
    const oneByOne = join(dir, 'one-by-one.jsonl');
    await run(held, true);
    await run(oneByOne, false);
    const a = readFileSync(held);
    const b = readFileSync(oneByOne);
    const lines = a.toString('utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(3000);
    // the day and the year change within the run
    expect(lines.some((l) => l.includes('"ts":"2026-01-01T00:00:0'))).toBe(true);
    expect(a.equals(b)).toBe(true);
  });

  it('are on disk after flush() and in order before an event line', async () => {
    const file = join(dir, 'flush.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    call(1, performance.now(), 'one')(t, true);
    await t.flush();
    const first = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first.map((r) => r.kind ?? r.event)).toEqual(['trace-start', 'request', 'result']);
    call(2, performance.now(), 'two')(t, true);
    t.event({ type: 'lifecycle', from: 'ready', to: 'closing' });
    await t.close();
    const all = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(all.map((r) => r.kind ?? r.event)).toEqual(['trace-start', 'request', 'result', 'request', 'result', 'lifecycle', 'trace-end']);
  });
});
