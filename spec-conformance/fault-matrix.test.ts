/**
 * The fault matrix, stdio rows (the table is in README.md "Fault matrix").
 * Each row runs a host with a faulty server (test/fixtures/faults/fault-stdio-server.mjs in one
 * FAULT_MODE) beside a healthy one, provokes the fault through the host, checks the row's own
 * outcome, then `FaultBench.finish()` checks what every row shares: the healthy server still
 * answers, nothing pending, no process left, no unhandled rejection, no secret in any output.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FaultBench, faultStdio, isAlive, until } from '../test/fixtures/faults/bench.js';

let bench: FaultBench | undefined;
afterEach(async () => {
  const b = bench;
  bench = undefined;
  await b?.finish();
});

const text = FaultBench.text;

describe('fault matrix: stdio', { timeout: 60_000 }, () => {
  it('fault: crash mid-call → the call fails naming the server, the request phase and the exit code; the server goes to error', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'crash'));
    const [pid] = bench.pids('faulty');
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request/);
    expect(text(r)).toMatch(/exited with code 3/);
    await until(() => bench!.status('faulty').state === 'error', 'faulty in state error');
    expect(bench.status('faulty').lastError).toMatch(/server "faulty"/);
    expect(isAlive(pid)).toBe(false);
    await bench.expectHealthy();
  });

  it('fault: exit before initialize → state error naming the server and the initialize phase; the healthy server is ready', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'exit-early'));
    const s = bench.status('faulty');
    expect(s.state).toBe('error');
    expect(s.lastError).toMatch(/server "faulty" during (initialize|connect)/);
    expect(s.lastError).toMatch(/exited with code 1/);
    await bench.expectHealthy();
  });

  it('fault: hang (no response, no exit) → the call times out naming the server and the request; close still ends the process', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'hang', {}, { requestTimeoutMs: 1500 }));
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request/);
    expect(text(r)).toMatch(/timed out after 1500 ms.*MCPWIRE_TIMEOUT/s);
    expect(bench.status('faulty').state).toBe('ready');
    await bench.expectHealthy();
  });

  it('fault: hang in initialize (no response, no exit) → state error naming the server and initialize after its timeout; the process is ended', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'hang-init', {}, { requestTimeoutMs: 1500 }));
    const s = bench.status('faulty');
    expect(s.state).toBe('error');
    expect(s.lastError).toMatch(/server "faulty" during initialize.*timed out after 1500 ms/s);
    const [pid] = bench.pids('faulty');
    await until(() => !isAlive(pid), 'the hanging server to be ended after the failed connect');
    await bench.expectHealthy();
  });

  it('fault: one byte at a time → every message is read whole, the call answers', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'one-byte'));
    expect(bench.status('faulty').state).toBe('ready');
    const r = await bench.call('faulty', 'work');
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    const e = await bench.call('faulty', 'echo', { text: 'byte by byte' });
    expect(text(e)).toBe('byte by byte');
  });

  it('fault: garbage and partial lines → reported as diagnostics naming the server, skipped; the answer split across writes is read', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'garbage'));
    const r = await bench.call('faulty', 'work');
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    const diags = bench.diagnostics.filter((d) => d.serverId === 'faulty');
    expect(diags.length).toBeGreaterThanOrEqual(2);
    const e = await bench.call('faulty', 'echo', { text: 'after the garbage' });
    expect(text(e)).toBe('after the garbage');
  });

  it('fault: a response line cut short (unreadable, id known) → that call fails at once naming the server, not by timeout', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'truncated', {}, { requestTimeoutMs: 60_000 }));
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request.*MCPWIRE_RESPONSE_UNREADABLE/s);
    expect(text(r)).not.toMatch(/timed out/);
    const e = await bench.call('faulty', 'echo', { text: 'next' });
    expect(text(e)).toBe('next');
  });

  it('fault: a 50 MiB line (a notification, then the answer) → skipped without buffering it, the call fails at once naming the server; the connection carries on', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'huge-line', {}, { requestTimeoutMs: 60_000 }));
    const rss = process.memoryUsage().rss;
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request.*MCPWIRE_RESPONSE_UNREADABLE/s);
    expect(text(r)).not.toMatch(/timed out/);
    // Bounded by the 16 MiB line limit, not the 100 MiB the server wrote (generous: GC is lazy).
    expect(process.memoryUsage().rss - rss).toBeLessThan(80 * 1024 * 1024);
    const e = await bench.call('faulty', 'echo', { text: 'after the huge lines' });
    expect(text(e)).toBe('after the huge lines');
  });

  it('fault: duplicate response → the call settles once with the first answer; the second is a diagnostic', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'duplicate'));
    const r = await bench.call('faulty', 'work');
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    await until(() => bench!.diagnostics.some((d) => d.serverId === 'faulty' && d.code === 'MCPWIRE_UNKNOWN_RESPONSE'), 'a diagnostic for the duplicate');
    const e = await bench.call('faulty', 'echo', { text: 'still fine' });
    expect(text(e)).toBe('still fine');
  });

  it('fault: response with a wrong id → never taken for another request; the call times out naming the server and the request', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'wrong-id', {}, { requestTimeoutMs: 1500 }));
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request.*timed out after 1500 ms/s);
    expect(bench.diagnostics.some((d) => d.serverId === 'faulty' && d.code === 'MCPWIRE_UNKNOWN_RESPONSE')).toBe(true);
    const e = await bench.call('faulty', 'echo', { text: 'ok' });
    expect(text(e)).toBe('ok');
  });

  it('fault: response with both result and error → the call fails (neither is trusted), naming the server; the secret the error quotes is redacted', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'result-and-error', {}, { requestTimeoutMs: 60_000 }));
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty"/);
    expect(text(r)).not.toMatch(/timed out/);
    expect(text(r)).toMatch(/is invalid: a response must not have both "result" and "error".*MCPWIRE_INVALID_RESPONSE/s);
    const e = await bench.call('faulty', 'echo', { text: 'ok' });
    expect(text(e)).toBe('ok');
  });

  it('fault: id "1" answering request 1 → not the same id (JSON-RPC: a string id and a number id differ); the call times out naming the server', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'string-id', {}, { requestTimeoutMs: 1500 }));
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during request.*timed out after 1500 ms/s);
    const e = await bench.call('faulty', 'echo', { text: 'ok' });
    expect(text(e)).toBe('ok');
  });

  it('fault: 100k notifications flood → all read, the answer after them arrives, the healthy server answers meanwhile', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'flood'));
    let logs = 0;
    bench.clients.find((c) => c.serverId === 'faulty')!.on('log', () => logs++);
    const call = bench.call('faulty', 'work');
    await bench.expectHealthy();
    const r = await call;
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'worked' }] });
    expect(logs).toBe(100_000);
  });

  it('fault: a server that ignores cancellation → the aborted call settles at once naming the server; its late answer is dropped', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'ignore-cancel', { FAULT_DELAY_MS: '400' }));
    const ac = new AbortController();
    const call = bench.call('faulty', 'work', {}, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const r = await call;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty".*MCPWIRE_ABORTED/s);
    // The late answer arrives and is dropped; the connection carries on.
    await new Promise((res) => setTimeout(res, 600));
    const e = await bench.call('faulty', 'echo', { text: 'ok' });
    expect(text(e)).toBe('ok');
    expect(bench.status('faulty').state).toBe('ready');
  });

  it('fault: a server that closes its stdin → the next call fails naming the server (no EPIPE escapes); the process is still ended at close', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'close-stdin', {}, { requestTimeoutMs: 5000 }));
    await new Promise((res) => setTimeout(res, 100));
    const r = await bench.call('faulty', 'work');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty" during (request|transport)/);
    expect(text(r)).toMatch(/closed its stdin \(EPIPE\)/);
    expect(text(r)).not.toMatch(/timed out/);
    await until(() => bench!.status('faulty').state === 'error', 'faulty in state error');
    expect(bench.status('faulty').lastError).toMatch(/server "faulty"/);
    await bench.expectHealthy();
  });

  it('fault: a child that ignores SIGTERM (and stdin EOF), busy in a call → host.close() escalates to SIGKILL; the call settles naming the server', async () => {
    bench = await FaultBench.start(faultStdio('faulty', 'ignore-sigterm'));
    const [pid] = bench.pids('faulty');
    const call = bench.call('faulty', 'work');
    await bench.closeHost();
    const r = await call;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "faulty"/);
    expect(isAlive(pid)).toBe(false);
  });
});
