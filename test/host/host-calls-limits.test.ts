/**
 * Retries and limits of host tool calls: the per-server
 * max_parallel queue counted on the server side, the queue wait counted against the call's
 * timeout and abortable, retries of idempotent calls after a crash (waiting for the reconnect),
 * never retrying non-idempotent calls (unless configured) nor tool errors, arguments checked
 * against inputSchema before sending. Real stdio mock server processes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { validateServerEntry } from '../../src/host/config/schema.js';
import { CallQueue } from '../../src/host/call-queue.js';
import { mayRetry, retryDelay } from '../../src/host/retry.js';
import { mockServer, ownHost, textOf, toolName } from '../support/host-calls.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpwire-host-calls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The tests mostly wait (on slow tools, crashes, reconnects and timeouts of their own mock
// server processes), each on a host of its own (ownHost) and its own files in `dir`: they run at once.
const RETRY = { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 200, retryNonIdempotent: false };

describe.concurrent('max_parallel', () => {
  it('30 calls to a server with maxParallel 4 never have more than 4 in flight, counted by the server', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('q', { tools: ['concurrent', 'inflight'] }, { maxParallel: 4 })]);
    const results = await Promise.all(Array.from({ length: 30 }, () => host.callTool(toolName('q', 'concurrent'), { ms: 60 })));
    expect(results.every((r) => r.outcome === 'ok')).toBe(true);
    const seen = JSON.parse(textOf(await host.callTool(toolName('q', 'inflight'), {}))) as { maxInFlight: number; calls: number; inFlight: number };
    expect(seen.calls).toBe(30);
    expect(seen.maxInFlight).toBeLessThanOrEqual(4);
    expect(seen.maxInFlight).toBe(4); // the limit was reached, so the bound above is a real one
  });

  it('without max_parallel the same 30 calls do overlap beyond 4 (the server-side count can tell)', async (ctx) => {
    const { expect } = ctx;
    const host = await ownHost(ctx, [mockServer('u', { tools: ['concurrent', 'inflight'] })]);
    await Promise.all(Array.from({ length: 30 }, () => host.callTool(toolName('u', 'concurrent'), { ms: 300 })));
    const seen = JSON.parse(textOf(await host.callTool(toolName('u', 'inflight'), {}))) as { maxInFlight: number };
    expect(seen.maxInFlight).toBeGreaterThan(4);
  });

  it('the queue wait counts against the call timeout (outcome timeout, code MCPWIRE_QUEUE_TIMEOUT, never sent) and a queued call is abortable', async (ctx) => {
    const { expect } = ctx;
    const record = path.join(dir, 'queue-record.jsonl');
    const host = await ownHost(ctx, [mockServer('one', { tools: ['slow', 'echo'] }, { maxParallel: 1 }, { MOCK_RECORD: record })]);
    const busy = host.callTool(toolName('one', 'slow'), { ms: 1500 });
    const late = await host.callTool(toolName('one', 'echo'), { text: 'queued' }, { timeoutMs: 300 });
    expect(late).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_QUEUE_TIMEOUT', isError: true, attempts: 0 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop')), 100);
    const aborted = await host.callTool(toolName('one', 'echo'), { text: 'aborted' }, { signal: ac.signal, timeoutMs: 10_000 });
    expect(aborted).toMatchObject({ outcome: 'cancelled', code: 'MCPWIRE_ABORTED', attempts: 0 });
    expect((await busy).outcome).toBe('ok');
    const after = await host.callTool(toolName('one', 'echo'), { text: 'after' });
    expect(textOf(after)).toBe('after');
    const calls = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { method?: string; params?: { arguments?: { text?: string } } })
      .filter((m) => m.method === 'tools/call').map((m) => m.params?.arguments?.text ?? 'slow');
    expect(calls).toEqual(['slow', 'after']); // the timed-out and the aborted call never reached the server
  });

  it('CallQueue: FIFO, release frees a place once, the limit is read on every acquire', async ({ expect }) => {
    let limit = 1;
    const q = new CallQueue(() => limit, 's');
    const r1 = await q.acquire(1000);
    const order: number[] = [];
    const p2 = q.acquire(1000).then((r) => (order.push(2), r));
    const p3 = q.acquire(1000).then((r) => (order.push(3), r));
    expect(q.queued).toBe(2);
    r1();
    r1(); // a second release is a no-op
    const r2 = await p2;
    expect(q.inFlight).toBe(1);
    limit = 2;
    const p4 = q.acquire(1000).then((r) => (order.push(4), r)); // its acquire applies the raised limit: p3 goes first (FIFO)…
    const r3 = await p3;
    expect(q.inFlight).toBe(2);
    expect(q.queued).toBe(1); // …and p4 waits for a place
    r2();
    const r4 = await p4;
    r3();
    r4();
    expect(order).toEqual([2, 3, 4]);
    expect(q.inFlight).toBe(0);
  });
});

describe.concurrent('retries', () => {
  it('a crashing server\'s in-flight idempotent calls are retried after the reconnect and succeed', async (ctx) => {
    const { expect } = ctx;
    const marker = path.join(dir, 'crash-once-1');
    const host = await ownHost(ctx, [mockServer('c', { tools: ['crashOnce', 'echo'] }, { trustAnnotations: true, retry: RETRY })], { backoff: { initialDelayMs: 100, maxRetries: 5 } });
    const name = toolName('c', 'crashOnce');
    const results = await Promise.all([1, 2, 3].map((id) => host.callTool(name, { marker, ms: 300, id })));
    const crashedPid = readFileSync(marker, 'utf8');
    for (const [i, r] of results.entries()) {
      expect(r).toMatchObject({ outcome: 'ok', isError: false, attempts: 2, retryable: false });
      expect(textOf(r)).toMatch(new RegExp(`^ok ${i + 1} from pid \\d+$`));
      expect(textOf(r)).not.toContain(`pid ${crashedPid}`);
    }
    expect(host.serverStatus('c')!.state).toBe('ready');
  });

  it('a new idempotent call made while its server is reconnecting waits for it (within the deadline) and succeeds', async (ctx) => {
    const { expect } = ctx;
    const scenario = { tools: [{ name: 'look', builtin: 'echo', annotations: { readOnlyHint: true } }, 'crash'] };
    const host = await ownHost(ctx, [mockServer('w', scenario, { trustAnnotations: true, retry: RETRY })], { backoff: { initialDelayMs: 300, maxRetries: 5 } });
    const look = toolName('w', 'look');
    expect((await host.callTool(look, { text: 'before' })).outcome).toBe('ok');
    expect((await host.callTool(toolName('w', 'crash'), {})).outcome).toBe('transport');
    expect(host.serverStatus('w')!.state).not.toBe('ready');
    const r = await host.callTool(look, { text: 'during the outage' });
    expect(r).toMatchObject({ outcome: 'ok', attempts: 1 });
    expect(textOf(r)).toBe('during the outage');
  });

  it('waiting for the reconnect ends at the call deadline, at once when the server gave up, and when the signal aborts', async (ctx) => {
    const { expect } = ctx;
    const scenario = { tools: [{ name: 'look', builtin: 'echo', annotations: { readOnlyHint: true } }, 'crash'] };
    const host = await ownHost(ctx, [
      mockServer('slow', scenario, { trustAnnotations: true, retry: { ...RETRY, maxRetries: 5 }, maxTotalTimeoutMs: 1200 }),
      mockServer('stop', scenario, { trustAnnotations: true, retry: { ...RETRY, maxRetries: 5 } }),
    ], { backoff: { initialDelayMs: 20_000, maxRetries: 1 } });
    await Promise.all(['slow', 'stop'].map((id) => host.callTool(toolName(id, 'crash'), {})));
    let t0 = Date.now();
    const late = await host.callTool(toolName('slow', 'look'), { text: 'x' });
    expect(late).toMatchObject({ outcome: 'unavailable', retryable: true, attempts: 0 });
    expect(Date.now() - t0).toBeLessThan(15_000); // the 1.2 s deadline, not the 20 s reconnect
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('user stop')), 200);
    const stopped = await host.callTool(toolName('stop', 'look'), { text: 'x' }, { signal: ac.signal });
    expect(stopped).toMatchObject({ outcome: 'cancelled', code: 'MCPWIRE_ABORTED', attempts: 0 });
    await host.close();
    const gaveUp = await ownHost(ctx, [mockServer('gave', scenario, { trustAnnotations: true, retry: { ...RETRY, maxRetries: 5 } })], { backoff: { maxRetries: 0 } });
    await gaveUp.callTool(toolName('gave', 'crash'), {});
    t0 = Date.now();
    const gone = await gaveUp.callTool(toolName('gave', 'look'), { text: 'x' }, { maxTotalTimeoutMs: 60_000 });
    expect(gone).toMatchObject({ outcome: 'unavailable', attempts: 0 });
    expect(Date.now() - t0).toBeLessThan(30_000); // no reconnect is coming: not the 60 s deadline
  });

  it('a non-idempotent call is not retried (outcome transport, retryable false); with retry_non_idempotent it is', async (ctx) => {
    const { expect } = ctx;
    const scenario = { tools: [{ name: 'mutate', builtin: 'crashOnce', annotations: { destructiveHint: true } }] };
    const host = await ownHost(ctx, [
      mockServer('n', scenario, { trustAnnotations: true, retry: RETRY }),
      mockServer('y', scenario, { trustAnnotations: true, retry: { ...RETRY, retryNonIdempotent: true } }),
    ], { backoff: { initialDelayMs: 100, maxRetries: 5 } });
    const no = await host.callTool(toolName('n', 'mutate'), { marker: path.join(dir, 'crash-once-n'), ms: 50 });
    expect(no).toMatchObject({ outcome: 'transport', code: 'MCPWIRE_CONNECTION_CLOSED', retryable: false, attempts: 1, isError: true });
    const yes = await host.callTool(toolName('y', 'mutate'), { marker: path.join(dir, 'crash-once-y'), ms: 50 });
    expect(yes).toMatchObject({ outcome: 'ok', attempts: 2 });
  });

  it('a tool error (isError) and a JSON-RPC error are never retried, even for an idempotent tool', async (ctx) => {
    const { expect } = ctx;
    const scenario = {
      tools: [
        { name: 'failing', builtin: 'fail', annotations: { idempotentHint: true } },
        { name: 'broken', error: { code: -32603, message: 'boom' }, annotations: { readOnlyHint: true } },
      ],
    };
    const record = path.join(dir, 'no-retry-record.jsonl');
    const host = await ownHost(ctx, [mockServer('t', scenario, { trustAnnotations: true, retry: { ...RETRY, retryNonIdempotent: true } }, { MOCK_RECORD: record })]);
    expect(await host.callTool(toolName('t', 'failing'), {})).toMatchObject({ outcome: 'tool_error', code: 'TOOL_ERROR', attempts: 1, retryable: false });
    expect(await host.callTool(toolName('t', 'broken'), {})).toMatchObject({ outcome: 'rpc_error', attempts: 1, retryable: false, rpcError: { code: -32603, message: 'boom' } });
    const sent = readFileSync(record, 'utf8').trim().split('\n').filter((l) => l.includes('"tools/call"'));
    expect(sent).toHaveLength(2);
  });

  it('a timeout of an idempotent call is retried (each attempt with its own timeout)', async (ctx) => {
    const { expect } = ctx;
    const scenario = { tools: [{ name: 'lookup', builtin: 'slow', annotations: { readOnlyHint: true } }] };
    const host = await ownHost(ctx, [mockServer('s', scenario, { trustAnnotations: true, retry: { ...RETRY, maxRetries: 1 } })]);
    const r = await host.callTool(toolName('s', 'lookup'), { ms: 2000 }, { timeoutMs: 200 });
    expect(r).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_TIMEOUT', attempts: 2, retryable: true });
  });

  it('retry delays: exponential from baseDelayMs, capped at maxDelayMs, ±20 % jitter from the injected random', ({ expect }) => {
    const p = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelay(n, p, () => 0.5))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(retryDelay(0, p, () => 0)).toBe(80);
    expect(retryDelay(0, p, () => 1)).toBe(120);
    expect(mayRetry('transport', { idempotentHint: true }, { retryNonIdempotent: false }, {}, true)).toBe(true);
    expect(mayRetry('timeout', { readOnlyHint: true }, { retryNonIdempotent: false }, {}, true)).toBe(true);
    expect(mayRetry('timeout', {}, { retryNonIdempotent: false })).toBe(false);
    expect(mayRetry('timeout', undefined, { retryNonIdempotent: true })).toBe(true);
    for (const o of ['tool_error', 'rpc_error', 'denied', 'cancelled', 'invalid_arguments'] as const) expect(mayRetry(o, { idempotentHint: true }, { retryNonIdempotent: true })).toBe(false);
  });
});

describe.concurrent('arguments checked against inputSchema', () => {
  it('refuses locally with the schema error naming the field; nothing is sent; validate_input: false sends it', async (ctx) => {
    const { expect } = ctx;
    const record = path.join(dir, 'validate-record.jsonl');
    const host = await ownHost(ctx, [
      mockServer('v', { tools: ['add'] }, {}, { MOCK_RECORD: record }),
      mockServer('off', { tools: ['add'] }, { validateInput: false }),
    ]);
    const bad = await host.callTool(toolName('v', 'add'), { a: 1, b: 'two' });
    expect(bad).toMatchObject({ outcome: 'invalid_arguments', code: 'MCPWIRE_INVALID_ARGUMENTS', attempts: 0, isError: true });
    expect(textOf(bad)).toMatch(/invalid arguments for MCP tool v\/add \(not sent\): \/b: must be number/);
    const missing = await host.callTool(toolName('v', 'add'), { a: 1 });
    expect(textOf(missing)).toMatch(/required property 'b'/);
    expect(readFileSync(record, 'utf8')).not.toContain('"tools/call"');
    const sent = await host.callTool(toolName('off', 'add'), { a: 1, b: 'two' });
    expect(sent).toMatchObject({ outcome: 'tool_error', attempts: 1 }); // the server's own check
    expect((await host.callTool(toolName('v', 'add'), { a: 1, b: 2 })).outcome).toBe('ok');
  });
});

describe.concurrent('config', () => {
  it('max_parallel, retry, reset_timeout_on_progress, max_total_timeout_ms, validate_input are read and normalized; bad values name the field', ({ expect }) => {
    const ok = validateServerEntry({
      transport: 'stdio',
      command: 'x',
      max_parallel: 4,
      retry: { max_retries: 3, base_delay_ms: 100 },
      reset_timeout_on_progress: true,
      max_total_timeout_ms: 60000,
      validate_input: false,
    });
    expect(ok.ok && ok.entry.config).toMatchObject({
      maxParallel: 4,
      retry: { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 5000, retryNonIdempotent: false },
      resetTimeoutOnProgress: true,
      maxTotalTimeoutMs: 60000,
      validateInput: false,
    });
    const bad = validateServerEntry({ transport: 'stdio', command: 'x', max_parallel: 0, retry: { max_retries: -1 } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues.map((i) => i.field).sort()).toEqual(['max_parallel', 'retry.max_retries']);
  });
});
