/**
 * The wall-clock text of trace lines (`ts`, src/trace/clock.ts): a sequential client crosses a
 * millisecond every line or two, so within a second only the millisecond digits are rewritten;
 * the whole text (toISOString) once a second. The lines must read exactly what toISOString writes,
 * across milliseconds, seconds, minutes and days, on the byte path and the string path.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createTracer } from '../../src/trace/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function records(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('trace clock: the ts of every line', () => {
  it('each line reads the wall clock to the millisecond, across seconds, minutes and days; toISOString runs about once a second', async () => {
    const file = join(dir, 'ts.jsonl');
    const tracer = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    // 23:59:58.990 on the last day of a year: steps of 7 ms cross seconds, a minute, a day, a year
    const base = Date.UTC(2025, 11, 31, 23, 59, 58, 990);
    const steps = 400;
    const expected: string[] = [];
    for (let i = 0; i < steps; i++) expected.push(new Date(base + i * 7).toISOString());
    vi.useFakeTimers({ toFake: ['Date'] });
    const iso = vi.spyOn(Date.prototype, 'toISOString');
    const at0 = performance.now() + 10_000;
    for (let i = 0; i < steps; i++) {
      vi.setSystemTime(base + i * 7);
      const m = { jsonrpc: '2.0', id: i, result: { i } };
      // the byte path (a numeric id, the text) and the string path (a string id) in turn
      if (i % 2 === 0) tracer.message('in', m, { kind: 'result', id: i, text: JSON.stringify(m), at: at0 + i * 7 });
      else tracer.message('in', { ...m, id: `s${i}` }, { kind: 'result', id: `s${i}`, at: at0 + i * 7 });
    }
    const isoCalls = iso.mock.calls.length;
    vi.useRealTimers();
    await tracer.close();
    const lines = records(file).filter((r) => r.kind === 'result');
    expect(lines).toHaveLength(steps);
    expect(lines.map((r) => r.ts)).toEqual(expected);
    // 400 × 7 ms = 2.8 s: a handful of seconds, not one call per millisecond
    expect(isoCalls).toBeLessThanOrEqual(6);
  });
});
