/**
 * The connections and processes a battery shares: each start of a stdio server costs the
 * target's whole start-up, so the battery starts as few as keep every check's proof. Counted
 * here by the fixture noting its pid at start: the clean fixture's battery (the waiting checks
 * left out, as in check-violations.test.ts) starts it 4 times — the shared session (on the era
 * probe's connection), the never-initialized connection (before-initialize, then the
 * unsupported-version initialize, answered with the version the session got, then handed on to
 * the cancellation checks as their own connection), elicitation's own connection (it declares
 * elicitation) and the raw stdio process. And sharing never carries one check's finding into the
 * next: a raw check sees only what the server wrote since it began, and after a check that did
 * not pass the next one starts the server again.
 *
 * The 2026-07-28 battery over stdio: the era is stateless, so its checks share one process (the
 * era probe's connection) — the clean modern mock's battery starts it 3 times: the shared
 * connection, `modern.initialize-refused`'s own (a handshake-era initialize is the first request
 * a process sees) and `modern.subscriptions-listen`'s own (a request left open, then
 * cancelled). After a check that failed, or a request on it that went unanswered, the next
 * check starts the server afresh.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, it } from 'vitest';
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
const modernMock = fileURLToPath(new URL('../../mock-servers/check-modern/stdio-server.mjs', import.meta.url));
/** The correct 2026-07-28 mock with `bug` planted (MODERN_BUG), noting its pid in `pids` as it starts. */
function countedModern(pids: string, bug = '') {
  const boot = `require('fs').appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n'); import(${JSON.stringify(pathToFileURL(modernMock).href)})`;
  return { transport: 'stdio' as const, id: 'counted-modern', command: process.execPath, args: ['-e', boot], env: { MODERN_BUG: bug } };
}
const started = (pids: string): number[] => (fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number) : []);
const SLOW = ['cancellation.honoured', 'progress', 'logging.level-filter'];
const isObj = (m: unknown): m is Record<string, unknown> => typeof m === 'object' && m !== null;

// Every test counts the starts of its own servers (its own pids file, its own CheckContext or
// runChecks): they run at once, each battery's waits on its servers overlapping the others'.
describe.concurrent('check: server starts per battery', () => {
  it('the clean fixture: 4 starts, every check passing', { timeout: 120_000 }, async ({ expect }) => {
    const pids = path.join(dir, 'battery');
    const r = await runChecks(counted(pids), { timeoutMs: 15_000, skip: SLOW });
    expect(r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error')).toEqual([]);
    for (const id of ['lifecycle.version-unknown', 'lifecycle.version-latest', 'lifecycle.before-initialize', 'cancellation.unknown-ignored', 'cancellation.race', 'transport.utf8', 'jsonrpc.batch-refused', 'jsonrpc.parse-error', 'elicitation.requests']) {
      expect(r.results.find((x) => x.id === id)?.status, id).toBe('pass');
    }
    expect(started(pids)).toHaveLength(4);
  });

  it('a server serving a request before initialize: the unsupported-version initialize gets a connection of its own', { timeout: 60_000 }, async ({ expect }) => {
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

describe.concurrent('check: the unsupported-version initialize\'s connection, handed on to the cancellation checks', () => {
  const only = ['lifecycle.version-unknown', 'cancellation.unknown-ignored', 'cancellation.race'];

  it('after version-unknown passed, the cancellation checks go on on its connection; after it failed they start their own', { timeout: 60_000 }, async ({ expect }) => {
    const clean = path.join(dir, 'handed-on');
    const good = await runChecks(counted(clean), { timeoutMs: 15_000, only });
    expect(good.results.map((x) => [x.id, x.status])).toEqual(only.map((id) => [id, 'pass']));
    // the session (on the era probe's connection) and version-unknown's, which the cancellation checks share
    expect(started(clean)).toHaveLength(2);
    const echoing = path.join(dir, 'not-handed-on');
    const bad = await runChecks(counted(echoing, 'version-echo-unknown'), { timeoutMs: 15_000, only });
    expect(bad.results.map((x) => [x.id, x.status])).toEqual([['lifecycle.version-unknown', 'fail'], ['cancellation.unknown-ignored', 'pass'], ['cancellation.race', 'pass']]);
    // version-unknown's connection (echoed 1999-01-01: not the session's version, and a violation) is not handed on
    expect(started(echoing)).toHaveLength(3);
  });

  it('a refused unsupported version: its connection is handed on; a server that takes one initialize per connection gets the cancellation checks a fresh one', { timeout: 60_000 }, async ({ expect }) => {
    // Refuses an unsupported version with an error, and any second initialize on one connection.
    const server = path.join(dir, 'init-once.mjs');
    fs.writeFileSync(server, `
      import readline from 'node:readline';
      import fs from 'node:fs';
      fs.appendFileSync(process.env.PIDS, process.pid + '\\n');
      let inits = 0;
      const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
      readline.createInterface({ input: process.stdin }).on('line', (line) => {
        const m = JSON.parse(line);
        if (m.id === undefined || m.method === undefined) return;
        if (m.method === 'initialize') {
          inits += 1;
          if (m.params.protocolVersion !== '2025-11-25') send({ id: m.id, error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2025-11-25'] } } });
          else if (inits > 1 && process.env.ONCE === '1') send({ id: m.id, error: { code: -32600, message: 'already initializing on this connection' } });
          else send({ id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'init-once', version: '1.0.0' } } });
        } else if (m.method === 'ping') send({ id: m.id, result: {} });
        else send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
      });`);
    const target = (pids: string, once: boolean) => ({ transport: 'stdio' as const, id: 'init-once', command: process.execPath, args: [server], env: { PIDS: pids, ONCE: once ? '1' : '0' } });
    const expected = [['lifecycle.version-unknown', 'pass'], ['cancellation.unknown-ignored', 'pass'], ['cancellation.race', 'pass']];
    const lenient = path.join(dir, 'refused-handed-on');
    const a = await runChecks(target(lenient, false), { timeoutMs: 15_000, only });
    expect(a.results.map((x) => [x.id, x.status])).toEqual(expected);
    // the session and version-unknown's (refused, so never initialized: the cancellation checks initialize it)
    expect(started(lenient)).toHaveLength(2);
    const once = path.join(dir, 'refused-init-once');
    const b = await runChecks(target(once, true), { timeoutMs: 15_000, only });
    expect(b.results.map((x) => [x.id, x.status])).toEqual(expected);
    // its second initialize refused there, the cancellation checks start the server as they did before
    expect(started(once)).toHaveLength(3);
  });
});

describe.concurrent('check: the raw stdio process the raw checks share', () => {
  it('a check sees only what came after it began; after a pass the next shares the process, after a violation it starts its own', { timeout: 60_000 }, async ({ expect }) => {
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

describe.concurrent('check: the 2026-07-28 battery shares one stdio process', () => {
  it('the clean modern mock: 3 starts for the whole battery, every check passing', { timeout: 120_000 }, async ({ expect }) => {
    const pids = path.join(dir, 'modern');
    const r = await runChecks(countedModern(pids), { timeoutMs: 15_000, allowCalls: true });
    expect(r.era).toBe('modern');
    expect(r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error')).toEqual([]);
    const ran = r.results.filter((x) => x.status === 'pass').map((x) => x.id);
    for (const id of ['modern.discover', 'modern.initialize-refused', 'modern.subscriptions-listen', 'modern.capabilities-per-request', 'modern.request-state-integrity', 'modern.input-responses-validated', 'modern.schema']) expect(ran, id).toContain(id);
    // the shared connection (the era probe's), initialize-refused's own, subscriptions-listen's own
    expect(started(pids)).toHaveLength(3);
  });

  it('after a check that failed the next check starts the server afresh; after a pass it shares the process', { timeout: 60_000 }, async ({ expect }) => {
    const only = ['modern.meta-required', 'modern.capabilities-declared', 'modern.resource-not-found'];
    const clean = path.join(dir, 'modern-clean');
    const good = await runChecks(countedModern(clean), { timeoutMs: 15_000, only });
    expect(good.results.map((x) => [x.id, x.status])).toEqual(only.map((id) => [id, 'pass']));
    expect(started(clean)).toHaveLength(1);
    const lenient = path.join(dir, 'modern-lenient');
    const bad = await runChecks(countedModern(lenient, 'meta-lenient'), { timeoutMs: 15_000, only });
    expect(bad.results.map((x) => [x.id, x.status])).toEqual([['modern.meta-required', 'fail'], ['modern.capabilities-declared', 'pass'], ['modern.resource-not-found', 'pass']]);
    // meta-required's process (the era probe's) is not handed on; the next two share a new one
    expect(started(lenient)).toHaveLength(2);
  });

  it('a request left unanswered on the shared process, or a check that did not pass, ends its sharing; an own wire is a process of its own', { timeout: 60_000 }, async ({ expect }) => {
    const pids = path.join(dir, 'modern-unsure');
    const ctx = new CheckContext(countedModern(pids), { timeoutMs: 15_000 });
    ctx.era = 'modern';
    ctx.version = '2026-07-28';
    const discover = async (): Promise<string> => (await ctx.wire().send('server/discover')).outcome.kind;
    try {
      expect(await discover()).toBe('result');
      ctx.checkEnded(true);
      expect(await discover()).toBe('result');
      expect(started(pids)).toHaveLength(1);
      // a subscription is never answered, only acknowledged: a request that timed out
      const listen = await ctx.wire().send('subscriptions/listen', { notifications: { toolsListChanged: true } }, { timeoutMs: 300 });
      expect(listen.outcome.kind).toBe('timeout');
      ctx.checkEnded(true);
      expect(await discover()).toBe('result');
      expect(started(pids)).toHaveLength(2);
      ctx.checkEnded(false);
      expect(await discover()).toBe('result');
      expect(started(pids)).toHaveLength(3);
      ctx.checkEnded(true);
      expect((await ctx.wire({ own: true }).send('server/discover')).outcome.kind).toBe('result');
      expect(await discover()).toBe('result');
      expect(started(pids)).toHaveLength(4);
    } finally {
      await ctx.closeAll();
    }
  });
});
