/**
 * A bounded trace file (`maxFileBytes`, what the daemon sets for its per-server traces): past the
 * bound the file moves to `<file>.1`, replacing the older generation, and the trace goes on in a
 * new file; every line is whole in one of the two, in order; a bad bound is refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTracer } from '../../src/trace/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-rotate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true); // no line cut at the end of a generation
  return text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

const result = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(100) }] } });

describe('trace: a bounded file', () => {
  it('moves to <file>.1 past maxFileBytes and goes on in a new file, each line whole, in order', async () => {
    const file = join(dir, 'bounded.jsonl');
    writeFileSync(file, '{"v":1,"old":0}\n'.repeat(20)); // 320 bytes of an earlier run
    const t = await createTracer({ file, serverId: 's', transport: 'stdio', maxFileBytes: 3000 });
    for (let id = 1; id <= 12; id++) {
      t.message('in', result(id), { kind: 'result', id, text: JSON.stringify(result(id)) });
      await t.flush(); // one batch each: a rotation may come after any of them
    }
    await t.close();
    const older = lines(`${file}.1`);
    const current = lines(file);
    expect(older.length).toBeGreaterThan(0);
    expect(statSync(`${file}.1`).size).toBeGreaterThan(3000);
    expect(statSync(file).size).toBeLessThanOrEqual(3000 + 400);
    // the earlier run's lines, then the trace, split between the two files in order
    const all = [...older, ...current];
    expect(all.slice(0, 20).every((r) => r.old === 0)).toBe(true);
    expect(all.filter((r) => r.id !== undefined).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(all.at(-1)?.event).toBe('trace-end');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps one older generation: a second rotation replaces <file>.1', async () => {
    const file = join(dir, 'twice.jsonl');
    const t = await createTracer({ file, serverId: 's', transport: 'stdio', maxFileBytes: 600 });
    for (let id = 1; id <= 20; id++) {
      t.message('in', result(id), { kind: 'result', id, text: JSON.stringify(result(id)) });
      await t.flush();
    }
    await t.close();
    const ids = [...lines(`${file}.1`), ...lines(file)].filter((r) => r.id !== undefined).map((r) => r.id as number);
    expect(ids.length).toBeLessThan(20); // the oldest lines are gone with the replaced generation
    expect(ids.at(-1)).toBe(20);
    expect(ids).toEqual(ids.slice().sort((a, b) => a - b));
    expect(statSync(file).size + statSync(`${file}.1`).size).toBeLessThanOrEqual(2 * (600 + 400));
  });

  it('tracers sharing a file: the smallest bound asked for applies', async () => {
    const file = join(dir, 'shared.jsonl');
    const a = await createTracer({ file, serverId: 'a', transport: 'stdio' });
    const b = await createTracer({ file, serverId: 'b', transport: 'stdio', maxFileBytes: 800 });
    for (let id = 1; id <= 8; id++) {
      (id % 2 === 0 ? a : b).message('in', result(id), { kind: 'result', id, text: JSON.stringify(result(id)) });
      await a.flush();
    }
    await a.close();
    await b.close();
    expect(existsSync(`${file}.1`)).toBe(true);
    const ids = [...lines(`${file}.1`), ...lines(file)].filter((r) => r.id !== undefined).map((r) => `${r.server}:${r.id}`);
    expect(ids.slice(-2)).toEqual(['b:7', 'a:8']);
  });

  it('without a bound the file only grows', async () => {
    const file = join(dir, 'unbounded.jsonl');
    const t = await createTracer({ file, serverId: 's', transport: 'stdio' });
    for (let id = 1; id <= 12; id++) {
      t.message('in', result(id), { kind: 'result', id, text: JSON.stringify(result(id)) });
      await t.flush();
    }
    await t.close();
    expect(existsSync(`${file}.1`)).toBe(false);
    expect(lines(file).filter((r) => r.id !== undefined)).toHaveLength(12);
  });

  it('refuses a bound that is not a positive whole number of bytes', async () => {
    for (const maxFileBytes of [0, -1, 1.5, Number.NaN]) {
      await expect(createTracer({ file: join(dir, 'bad.jsonl'), serverId: 's', transport: 'stdio', maxFileBytes })).rejects.toMatchObject({ code: 'MCPWIRE_TRACE_OPEN' });
    }
  });
});
