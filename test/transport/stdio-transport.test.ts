/**
 * stdio transport over real child processes: spawn errors, env, stderr ring, crash handling,
 * the shutdown ladder (stdin close → SIGTERM → SIGKILL) and no process left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError, TransportError } from '../../src/errors.js';
import { Connection } from '../../src/protocol/connection.js';
import { childEnv } from '../../src/transport/env.js';
import { StdioTransport } from '../../src/transport/stdio.js';
import { alive } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';
import { until } from '../support/until.js';

const node = process.execPath;
const tmp = tempDirs('mcpwire-stdio-transport-');
const open: StdioTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

function transport(script: string, extra: Partial<ConstructorParameters<typeof StdioTransport>[0]> = {}) {
  const t = new StdioTransport({ command: node, args: ['-e', script], serverId: 'inline', ...extra });
  open.push(t);
  return t;
}

/** A tiny echo server: answers every request with {echo: params}. */
const ECHO = `
process.stdin.setEncoding('utf8'); let buf = '';
process.stdin.on('data', (d) => { buf += d; let i; while ((i = buf.indexOf('\\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1);
  const m = JSON.parse(line); if (m.id !== undefined && m.method) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echo: m.params ?? null, method: m.method } }) + '\\n'); } });
`;

describe('stdio transport (basic/transports stdio)', () => {
  it('names the server and the spawn phase when the command does not exist (ENOENT)', async () => {
    const t = new StdioTransport({ command: 'definitely-not-a-command-xyz', serverId: 'ghost' });
    const err = await t.start().catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.code).toBe('MCPWIRE_SPAWN_FAILED');
    expect(err.phase).toBe('spawn');
    expect(err.serverId).toBe('ghost');
    expect(err.message).toMatch(/command not found: "definitely-not-a-command-xyz"/);
  });

  it('reports a permission error (EACCES) for a non-executable file', async () => {
    const dir = tmp();
    const file = path.join(dir, 'server.sh');
    fs.writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const t = new StdioTransport({ command: file, serverId: 'noexec' });
    const err = await t.start().catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toMatch(/permission denied/);
  });

  it('exchanges messages with a real child and reports its pid', async () => {
    const t = transport(ECHO);
    const conn = new Connection(t, { serverId: 'inline' });
    await t.start();
    expect(t.pid).toBeTypeOf('number');
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => conn.request('m', { i })));
    expect(results.map((r: any) => r.echo.i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(conn.pendingCount).toBe(0);
  });

  it('passes a minimal safe environment plus explicit env, not the whole parent env', async () => {
    process.env.MCPWIRE_TEST_SECRET = 'parent-secret';
    try {
      const env = childEnv({ EXTRA: '1' });
      expect(env.EXTRA).toBe('1');
      expect(env.PATH).toBe(process.env.PATH);
      expect(env.MCPWIRE_TEST_SECRET).toBeUndefined();
      expect(childEnv({}, true).MCPWIRE_TEST_SECRET).toBe('parent-secret');
      const t = transport(`process.stdout.write(JSON.stringify({jsonrpc:'2.0',method:'env',params:{secret:process.env.MCPWIRE_TEST_SECRET??null,extra:process.env.EXTRA}})+'\\n')`, {
        env: { EXTRA: 'yes' },
      });
      const got = new Promise<any>((resolve) => (t.onmessage = resolve));
      await t.start();
      expect((await got).params).toEqual({ secret: null, extra: 'yes' });
    } finally {
      delete process.env.MCPWIRE_TEST_SECRET;
    }
  });

  it('keeps the last 64 KiB of stderr and never treats stderr as a protocol error (basic.transports#4)', async () => {
    const t = transport(`process.stderr.write('x'.repeat(100000) + 'END-OF-STDERR'); setInterval(() => {}, 1000)`, {
      shutdown: { stdinCloseWaitMs: 50, sigtermWaitMs: 1000 },
    });
    let diag = 0;
    t.ondiagnostic = () => diag++;
    await t.start();
    // the child writes its 100 kB at once; on a loaded machine that takes as long as it takes
    await until('the end of stderr', () => t.stderrTail.endsWith('END-OF-STDERR'));
    const tail = t.stderrTail;
    expect(tail.endsWith('END-OF-STDERR')).toBe(true);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(64 * 1024);
    expect(diag).toBe(0);
  });

  it('a crash rejects every pending request promptly with the exit code and stderr tail', async () => {
    const t = transport(`process.stdin.once('data', () => { process.stderr.write('fatal: out of cheese\\n'); process.exit(3); })`);
    const conn = new Connection(t, { serverId: 'crashy' });
    await t.start();
    const started = performance.now();
    const errs = await Promise.all([conn.request('a'), conn.request('b')].map((p) => p.catch((e) => e)));
    const elapsed = performance.now() - started;
    for (const e of errs) {
      expect(e).toBeInstanceOf(ConnectionClosedError);
      expect(e.exitCode).toBe(3);
      expect(e.stderrTail).toContain('fatal: out of cheese');
      expect(e.message).toContain('exited with code 3');
      expect(e.serverId).toBe('crashy');
    }
    // Generous: the process has to start reading, crash and be reaped on a loaded machine.
    expect(elapsed).toBeLessThan(15_000);
    expect(conn.pendingCount).toBe(0);
  });

  it("a server's CRLF stderr lines (Windows) read as lines in the stderr tail and the crash error", async () => {
    const t = transport(`process.stderr.write('Traceback:\\r\\n  File "server.py"\\r\\nValueError: boom\\r\\n'); process.exit(1)`);
    const closed = new Promise<Error | undefined>((resolve) => (t.onclose = resolve));
    await t.start();
    const err = await closed;
    expect(t.stderrTail).toBe('Traceback:\n  File "server.py"\nValueError: boom');
    expect(err?.message).toContain('stderr tail:\nTraceback:\n  File "server.py"\nValueError: boom');
  });

  it('basic.lifecycle#15: close ends stdin and a well-behaved server exits; no process remains', async () => {
    const t = transport(`process.stdin.resume(); process.stdin.on('end', () => process.exit(0))`);
    await t.start();
    const pid = t.pid!;
    let closedWith: Error | undefined | null = null;
    t.onclose = (e) => (closedWith = e);
    await t.close();
    expect(closedWith).toBeUndefined();
    expect(alive(pid)).toBe(false);
  });

  it('basic.lifecycle#15: escalates to SIGTERM, then SIGKILL, for a server that ignores both', async () => {
    const t = transport(`process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); process.stderr.write('ready'); setInterval(() => {}, 1000)`, {
      shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 100 },
    });
    const events: string[] = [];
    t.onevent = (e) => events.push(e.type === 'signal' ? `signal:${e.signal}` : e.type);
    await t.start();
    const pid = t.pid!;
    await until('the child to install its SIGTERM handler', () => t.stderrTail.includes('ready'));
    await t.close();
    expect(events).toContain('signal:SIGTERM');
    expect(events).toContain('signal:SIGKILL');
    expect(alive(pid)).toBe(false);
  });

  it('kills what a launcher started (process group): no orphaned grandchild', async () => {
    const dir = tmp();
    const pidFile = path.join(dir, 'grandchild.pid');
    const t = new StdioTransport({
      command: '/bin/sh',
      args: ['-c', `${node} -e "require('fs').writeFileSync('${pidFile}', String(process.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)" & wait`],
      shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 100 },
    });
    open.push(t);
    await t.start();
    // writeFileSync creates the file before it writes the pid: wait for the pid, not the file.
    const grandchild = await until('the grandchild to record its pid', () => {
      const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
      return pid > 0 && pid;
    });
    expect(alive(grandchild)).toBe(true);
    await t.close();
    for (let i = 0; i < 40 && alive(grandchild); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(grandchild)).toBe(false);
  });

  it('send after close rejects with ConnectionClosedError; close is idempotent', async () => {
    const t = transport(ECHO);
    await t.start();
    await Promise.all([t.close(), t.close()]);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('honours backpressure: a flood of large messages is delivered completely', async () => {
    const t = transport(ECHO);
    const conn = new Connection(t);
    await t.start();
    const big = 'z'.repeat(256 * 1024);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => conn.request('big', { i, big })));
    expect(results.every((r: any, i) => r.echo.i === i && r.echo.big.length === big.length)).toBe(true);
  });
});

/** Settles `p` or reports 'pending' after `ms` (generous: the machine is shared). */
function settledWithin<T>(p: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false; error: any } | 'pending'> {
  return Promise.race([
    p.then(
      (value) => ({ ok: true as const, value }),
      (error) => ({ ok: false as const, error }),
    ),
    new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms)),
  ]);
}

describe('start()/close() race (basic.lifecycle#15)', () => {
  it('close() during start + spawn failure: start() rejects with the spawn error, close() resolves, no spurious error', async () => {
    const t = new StdioTransport({ command: 'definitely-not-a-command-xyz', serverId: 'ghost' });
    const closes: Array<Error | undefined> = [];
    t.onclose = (e) => closes.push(e);
    const started = t.start();
    const closed = t.close();
    const s = await settledWithin(started, 10_000);
    const c = await settledWithin(closed, 10_000);
    expect(s).not.toBe('pending');
    expect(c).toEqual({ ok: true, value: undefined });
    const err = (s as { ok: false; error: any }).error;
    expect(s).toMatchObject({ ok: false });
    expect(err).toBeInstanceOf(TransportError);
    expect(err.code).toBe('MCPWIRE_SPAWN_FAILED');
    expect(err.message).toMatch(/command not found/);
    expect(closes).toEqual([undefined]);
  });

  it('close() during start + spawn success: start() rejects "closed during start", close() resolves, no "exited with code 0" error, child reaped', async () => {
    const t = new StdioTransport({ command: node, args: ['-e', ECHO], serverId: 'quick' });
    const closes: Array<Error | undefined> = [];
    t.onclose = (e) => closes.push(e);
    const started = t.start();
    const pid = t.pid!;
    expect(pid).toBeTypeOf('number');
    const closed = t.close(); // before the 'spawn' event (it comes on a later tick)
    const s = await settledWithin(started, 15_000);
    const c = await settledWithin(closed, 15_000);
    expect(c).toEqual({ ok: true, value: undefined });
    expect(s).toMatchObject({ ok: false });
    const err = (s as { ok: false; error: any }).error;
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(err.message).toMatch(/closed during start/);
    expect(closes).toEqual([undefined]);
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('close() during start of a server that ignores stdin EOF and SIGTERM still ends (ladder) and start() settles', async () => {
    const t = new StdioTransport({
      command: node,
      args: ['-e', `process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000)`],
      shutdown: { stdinCloseWaitMs: 100, sigtermWaitMs: 100 },
    });
    const closes: Array<Error | undefined> = [];
    t.onclose = (e) => closes.push(e);
    const started = t.start();
    const pid = t.pid!;
    const closed = t.close();
    expect(await settledWithin(started, 15_000)).toMatchObject({ ok: false });
    expect(await settledWithin(closed, 15_000)).toEqual({ ok: true, value: undefined });
    expect(closes).toEqual([undefined]);
    expect(alive(pid)).toBe(false);
  });
});
