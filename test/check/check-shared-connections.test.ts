/**
 * The connections and processes a battery shares: each start of a stdio server costs the
 * target's whole start-up, so the battery starts as few as keep every check's proof. Counted
 * here by the fixture noting its pid at start: the clean fixture's battery (the waiting checks
 * left out, as in check-violations.test.ts) starts it 5 times — the shared session (on the era
 * probe's connection), the never-initialized connection (before-initialize, then the
 * unsupported-version initialize), elicitation's own connection (it declares elicitation), the
 * cancellation checks' own connection, and the raw stdio process. And sharing never carries one
 * check's finding into the next: a raw check sees only what the server wrote since it began, and
 * after a check that did not pass the next one starts the server again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckContext } from '../../src/check/core/context.js';
import { withRawStdio } from '../../src/check/basics/stdio-raw.js';
import { runChecks } from '../../src/check/run/runner.js';
import { pass, violated } from '../../src/check/core/types.js';

const fixture = fileURLToPath(new URL('../../mock-servers/check-fixtures/server.mjs', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-check-shared-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The check fixture with `bugs`, noting its pid in `pids` as it starts. */
function counted(pids: string, bugs = '') {
  const boot = `require('fs').appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n'); import(${JSON.stringify(pathToFileURL(fixture).href)})`;
  return { transport: 'stdio' as const, id: 'counted', command: process.execPath, args: ['-e', boot], env: { MCPWIRE_CHECK_BUGS: bugs } };
}
const started = (pids: string): number[] => (fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number) : []);
const SLOW = ['cancellation.honoured', 'progress', 'logging.level-filter'];
const isObj = (m: unknown): m is Record<string, unknown> => typeof m === 'object' && m !== null;

describe('check: server starts per battery', () => {
  it('the clean fixture: 5 starts, every check passing', { timeout: 120_000 }, async () => {
    const pids = path.join(dir, 'battery');
    const r = await runChecks(counted(pids), { timeoutMs: 15_000, skip: SLOW });
    expect(r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error')).toEqual([]);
    for (const id of ['lifecycle.version-unknown', 'lifecycle.version-latest', 'lifecycle.before-initialize', 'cancellation.unknown-ignored', 'cancellation.race', 'transport.utf8', 'jsonrpc.batch-refused', 'jsonrpc.parse-error', 'elicitation.requests']) {
      expect(r.results.find((x) => x.id === id)?.status, id).toBe('pass');
    }
    expect(started(pids)).toHaveLength(5);
  });

  it('a server serving a request before initialize: the unsupported-version initialize gets a connection of its own', { timeout: 60_000 }, async () => {
    const pids = path.join(dir, 'lenient');
    const r = await runChecks(counted(pids, 'accept-before-init'), { timeoutMs: 15_000, only: ['lifecycle.before-initialize', 'lifecycle.version-unknown'] });
    expect(r.results.map((x) => [x.id, x.status])).toEqual([
      ['lifecycle.before-initialize', 'warn'],
      ['lifecycle.version-unknown', 'pass'],
    ]);
    // the session (on the era probe's connection), before-initialize's, version-unknown's own
    expect(started(pids)).toHaveLength(3);
  });
});

describe('check: the raw stdio process the raw checks share', () => {
  it('a check sees only what came after it began; after a pass the next shares the process, after a violation it starts its own', { timeout: 60_000 }, async () => {
    const pids = path.join(dir, 'raw');
    const ctx = new CheckContext(counted(pids), { timeoutMs: 15_000 });
    try {
      // the fixture refuses a batch with an error of id null, as it answers a line that is not JSON
      const first = await withRawStdio(ctx, async (s) => {
        s.write(JSON.stringify([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }]));
        const refusal = await s.waitFor((m) => isObj(m) && m.id === null, 15_000);
        expect(refusal).toMatchObject({ error: { code: -32600 } });
        return pass();
      });
      expect(first.status).toBe('pass');
      const second = await withRawStdio(ctx, async (s) => {
        s.write(JSON.stringify({ jsonrpc: '2.0', id: 'p2', method: 'ping' }));
        await s.waitFor((m) => isObj(m) && m.id === 'p2', 15_000);
        // the first check's refusal is not this check's to judge
        expect(s.messages().filter((m) => isObj(m) && m.id === null)).toEqual([]);
        expect(s.messages().map((m) => (m as { id?: unknown }).id)).toEqual(['p2']);
        return violated('planted: this check found the server misbehaving');
      });
      expect(second.status).toBe('violated');
      expect(started(pids)).toHaveLength(1);
      const third = await withRawStdio(ctx, async (s) => {
        s.write(JSON.stringify({ jsonrpc: '2.0', id: 'p3', method: 'ping' }));
        return (await s.waitFor((m) => isObj(m) && m.id === 'p3', 15_000)) !== undefined ? pass() : violated('no answer');
      });
      expect(third.status).toBe('pass');
      expect(started(pids)).toHaveLength(2);
    } finally {
      await ctx.closeAll();
    }
  });
});
