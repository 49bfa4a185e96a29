/**
 * The trace writer's guarantees around its batch buffer: the lines of one file stay in the order
 * they were traced across the byte path, the string path, event lines and several tracers of the
 * file; and what was traced before `process.exit()` or an uncaught exception, in the same turn of
 * the event loop, is on disk, whole and in order (the `exit` hook of file-destination.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTracer } from '../../src/trace/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function records(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('trace: order of the lines of one file', () => {
  it('byte-path lines keep their place before event lines, string-path lines and the lines of another tracer of the file', async () => {
    const file = join(dir, 'order.jsonl');
    const a = await createTracer({ file, serverId: 'a', transport: 'stdio' });
    const b = await createTracer({ file, serverId: 'b', transport: 'stdio' });
    const m = (id: number | string) => ({ jsonrpc: '2.0', id, result: { n: id } });
    a.message('in', m(1), { kind: 'result', id: 1, text: JSON.stringify(m(1)) }); // byte path
    b.event({ type: 'diagnostic', code: 'X', message: 'after one' }); // event line
    a.message('in', m(2), { kind: 'result', id: 2, text: JSON.stringify(m(2)) }); // byte path
    b.message('in', m('s'), { kind: 'result', id: 's', text: JSON.stringify(m('s')) }); // a string id: string path
    a.message('in', m(3), { kind: 'result', id: 3, text: JSON.stringify(m(3)) }); // byte path
    await a.flush();
    b.message('in', m(4), { kind: 'result', id: 4, text: JSON.stringify(m(4)) });
    await a.close();
    await b.close();
    const order = records(file)
      .filter((r) => r.event !== 'trace-start' && r.event !== 'trace-end')
      .map((r) => `${r.server}:${r.id ?? r.message}`);
    expect(order).toEqual(['a:1', 'b:after one', 'a:2', 'b:s', 'a:3', 'b:4']);
  });

});

describe('trace: lines at exit', () => {
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
