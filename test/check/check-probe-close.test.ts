/**
 * The probes a check opens are closed after it without the next check waiting for their close
 * ladder (a stdio server that stays up after its stdin closes takes the ladder's 1.5 s to get its
 * SIGTERM): the closes go on in the background, and closing the run waits for every one of them,
 * so no server outlives the run — neither a probe's nor a raw stdio check's own spawn.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckContext } from '../../src/check/core/context.js';
import { withRawStdio } from '../../src/check/basics/stdio-raw.js';
import { pass } from '../../src/check/core/types.js';

const mock = fileURLToPath(new URL('../../mock-servers/stdio-server.mjs', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-check-close-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The scripted mock, staying up after its stdin closes (only SIGTERM ends it), noting its pid in `pids`. */
function stubborn(pids: string) {
  const boot = `require('fs').appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n'); import(${JSON.stringify(pathToFileURL(mock).href)})`;
  return { transport: 'stdio' as const, id: 'stubborn', command: process.execPath, args: ['-e', boot], env: { MOCK_SCENARIO_JSON: JSON.stringify({ ignoreStdinClose: true }) } };
}
const started = (pids: string): number[] => fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);

describe('check: closing the probes of a check', () => {
  it('releaseProbesLater() returns with the servers still up; closeAll() waits until each is gone', { timeout: 60_000 }, async () => {
    const pids = path.join(dir, 'probes');
    const ctx = new CheckContext(stubborn(pids), { timeoutMs: 15_000 });
    for (const p of [await ctx.open(), await ctx.open()]) expect((await p.initialize()).kind).toBe('result');
    expect(started(pids)).toHaveLength(2);
    ctx.releaseProbesLater();
    expect(started(pids).filter(alive)).toHaveLength(2); // same tick: the ladder has only begun
    await ctx.closeAll();
    expect(started(pids).filter(alive)).toEqual([]);
  });

  it('a raw stdio check returns before its server is gone; closeAll() waits for that server too', { timeout: 60_000 }, async () => {
    const pids = path.join(dir, 'raw');
    const ctx = new CheckContext(stubborn(pids), { timeoutMs: 15_000 });
    const v = await withRawStdio(ctx, async () => pass('initialized'));
    expect(v.status).toBe('pass');
    expect(started(pids)).toHaveLength(1);
    await ctx.closeAll();
    expect(started(pids).filter(alive)).toEqual([]);
  });
});
