/**
 * Host-wide call settings against real stdio mock server processes: every result's
 * `durationMs`, the host-wide `max_parallel` (host option, or `mcp.max_parallel` of the config
 * file) counted where the calls leave the host, and the retry policy's knobs (`retry_on`,
 * `multiplier`, the host's default policy).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect as connectClient } from '../../src/mcp/client.js';
import { createHost, loadConfig, type ConnectFn, type HostCallResult, type McpHost } from '../../src/host/index.js';
import { validateServerEntry } from '../../src/host/config/schema.js';
import { mayRetry, retryDelay } from '../../src/host/retry.js';
import { MOCK, mockServer, startHost, toolName } from '../support/host-calls.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpwire-host-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

/** The engine's connect, counting the tools/call requests in flight across every server. */
function counting(): { connect: ConnectFn; max: () => number; inFlight: () => number } {
  let inFlight = 0;
  let max = 0;
  const connect: ConnectFn = async (config, options) => {
    const client = await connectClient(config, options);
    const call = client.callTool.bind(client);
    client.callTool = async (...args: Parameters<typeof call>) => {
      max = Math.max(max, ++inFlight);
      try {
        return await call(...args);
      } finally {
        inFlight--;
      }
    };
    return client;
  };
  return { connect, max: () => max, inFlight: () => inFlight };
}

const SLOW = { tools: ['slow', 'echo'] };

describe('durationMs', () => {
  it('every result carries its duration: a 300 ms call at least 300 ms, refusals and host tools too', async () => {
    host = await startHost([mockServer('d', SLOW)]);
    const slow = await host.callTool(toolName('d', 'slow'), { ms: 300 });
    expect(slow.outcome).toBe('ok');
    expect(slow.durationMs).toBeGreaterThanOrEqual(300);
    const unknown = await host.callTool('nope', {});
    expect(unknown.outcome).toBe('unknown_tool');
    expect(unknown.durationMs).toEqual(expect.any(Number));
    expect(unknown.durationMs).toBeGreaterThanOrEqual(0);
    const read = await host.callTool('mcp_result_read', { resultId: 'none' });
    expect(read.durationMs).toEqual(expect.any(Number));
  });
});

describe('host-wide max_parallel', { timeout: 30_000 }, () => {
  const call = (h: McpHost, id: string): Promise<HostCallResult> => h.callTool(toolName(id, 'slow'), { ms: 250 });

  it('maxParallel 2 over two servers: six calls never have more than two in flight across them', async () => {
    const c = counting();
    host = await startHost([mockServer('a', SLOW), mockServer('b', SLOW)], { connect: c.connect, maxParallel: 2 });
    const results = await Promise.all(['a', 'a', 'a', 'b', 'b', 'b'].map((id) => call(host!, id)));
    expect(results.map((r) => r.outcome)).toEqual(Array(6).fill('ok'));
    expect(c.max()).toBe(2);
  });

  it('control: without it the same six calls overlap beyond two', async () => {
    const c = counting();
    host = await startHost([mockServer('a', SLOW), mockServer('b', SLOW)], { connect: c.connect });
    await Promise.all(['a', 'a', 'a', 'b', 'b', 'b'].map((id) => call(host!, id)));
    expect(c.max()).toBeGreaterThan(2);
  });

  it('mcp.max_parallel of the config file limits the host that createHost builds from it', async () => {
    const file = path.join(dir, 'host-wide.json');
    const entry = (scenario: object) => ({ transport: 'stdio', command: process.execPath, args: [MOCK], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } });
    writeFileSync(file, JSON.stringify({ version: 1, mcp: { max_parallel: 1, servers: { a: entry(SLOW), b: entry(SLOW) } } }));
    const config = await loadConfig({ globalPath: file, projectPath: path.join(dir, 'none.json'), trustStorePath: path.join(dir, 'trust.json') });
    expect(config.diagnostics).toEqual([]);
    expect(config.host).toEqual({ maxParallel: 1 });
    const c = counting();
    host = createHost(config, { connect: c.connect, permission: 'allow' });
    await host.start();
    await Promise.all(['a', 'b', 'a', 'b'].map((id) => call(host!, id)));
    expect(c.max()).toBe(1);
  });

  it('a call waiting for a host-wide place past its timeout ends as a queue timeout, nothing sent', async () => {
    const c = counting();
    host = await startHost([mockServer('a', SLOW), mockServer('b', SLOW)], { connect: c.connect, maxParallel: 1 });
    const long = host.callTool(toolName('a', 'slow'), { ms: 1500 });
    while (c.inFlight() === 0) await new Promise((r) => setTimeout(r, 10));
    const queued = await host.callTool(toolName('b', 'echo'), { text: 'x' }, { timeoutMs: 200 });
    expect(queued).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_QUEUE_TIMEOUT', attempts: 0, server: 'b' });
    expect((await long).outcome).toBe('ok');
  });
});

describe('retry policy knobs', { timeout: 30_000 }, () => {
  const SCENARIO = {
    tools: [
      { name: 'broken', error: { code: -32603, message: 'boom' }, annotations: { readOnlyHint: true } },
      { name: 'lookup', builtin: 'slow', annotations: { readOnlyHint: true } },
    ],
  };
  const BASE = { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 100, retryNonIdempotent: false };

  it('retry_on names what retries: a JSON-RPC error by outcome or by its code; the default leaves it alone', async () => {
    host = await startHost([
      mockServer('byOutcome', SCENARIO, { trustAnnotations: true, retry: { ...BASE, retryOn: ['rpc_error'] } }),
      mockServer('byCode', SCENARIO, { trustAnnotations: true, retry: { ...BASE, retryOn: [-32603] } }),
      mockServer('other', SCENARIO, { trustAnnotations: true, retry: { ...BASE, retryOn: [-32000] } }),
      mockServer('plain', SCENARIO, { trustAnnotations: true, retry: BASE }),
    ]);
    expect(await host.callTool(toolName('byOutcome', 'broken'), {})).toMatchObject({ outcome: 'rpc_error', attempts: 3, retryable: true });
    expect(await host.callTool(toolName('byCode', 'broken'), {})).toMatchObject({ outcome: 'rpc_error', attempts: 3, retryable: true });
    expect(await host.callTool(toolName('other', 'broken'), {})).toMatchObject({ outcome: 'rpc_error', attempts: 1, retryable: false });
    expect(await host.callTool(toolName('plain', 'broken'), {})).toMatchObject({ outcome: 'rpc_error', attempts: 1, retryable: false });
  });

  it('retry_on without timeout: a timeout of an idempotent call is not retried (by default it is)', async () => {
    host = await startHost([mockServer('t', SCENARIO, { trustAnnotations: true, retry: { ...BASE, maxRetries: 1, retryOn: ['transport'] } }), mockServer('d', SCENARIO, { trustAnnotations: true, retry: { ...BASE, maxRetries: 1 } })]);
    expect(await host.callTool(toolName('t', 'lookup'), { ms: 2000 }, { timeoutMs: 200 })).toMatchObject({ outcome: 'timeout', attempts: 1, retryable: false });
    expect(await host.callTool(toolName('d', 'lookup'), { ms: 2000 }, { timeoutMs: 200 })).toMatchObject({ outcome: 'timeout', attempts: 2, retryable: true });
  });

  it("the host's retry option is the policy of servers whose config has none", async () => {
    host = await startHost([mockServer('h', SCENARIO, { trustAnnotations: true }), mockServer('own', SCENARIO, { trustAnnotations: true, retry: BASE })], { retry: { maxRetries: 1, baseDelayMs: 10, retryOn: ['rpc_error'] } });
    expect(await host.callTool(toolName('h', 'broken'), {})).toMatchObject({ attempts: 2 });
    expect(await host.callTool(toolName('own', 'broken'), {})).toMatchObject({ attempts: 1 });
  });

  it('aborting the call while it waits to retry ends the wait at once: outcome cancelled, one attempt', async () => {
    let ac: AbortController | undefined;
    const connect: ConnectFn = async (config, options) => {
      const client = await connectClient(config, options);
      const call = client.callTool.bind(client);
      // the first attempt has failed: the call now waits the (one minute) retry delay
      client.callTool = (...args: Parameters<typeof call>) => call(...args).finally(() => setTimeout(() => ac?.abort(new Error('user pressed stop')), 50));
      return client;
    };
    host = await startHost([mockServer('w', SCENARIO, { trustAnnotations: true, retry: { ...BASE, maxRetries: 1, baseDelayMs: 60_000, maxDelayMs: 60_000 } })], { connect });
    ac = new AbortController();
    const r = await host.callTool(toolName('w', 'lookup'), { ms: 5000 }, { timeoutMs: 200, maxTotalTimeoutMs: 300_000, signal: ac.signal });
    expect(r).toMatchObject({ outcome: 'cancelled', code: 'MCPWIRE_ABORTED', attempts: 1 });
    expect(String((r.content[0] as { text: string }).text)).toMatch(/aborted while waiting to retry: user pressed stop/);
    expect(r.durationMs).toBeLessThan(30_000);
  });

  it('multiplier grows the delay (default 2), capped by max_delay_ms; what no retry can change is never retried', () => {
    const p = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3].map((n) => retryDelay(n, { ...p, multiplier: 3 }, () => 0.5))).toEqual([100, 300, 900, 1000]);
    expect([0, 1, 2, 3].map((n) => retryDelay(n, p, () => 0.5))).toEqual([100, 200, 400, 800]);
    for (const o of ['ok', 'cancelled', 'denied', 'invalid_arguments', 'unknown_tool'] as const) {
      expect(mayRetry(o, { readOnlyHint: true }, { retryNonIdempotent: true, retryOn: [o] })).toBe(false);
    }
    expect(mayRetry('transport', { readOnlyHint: true }, { retryNonIdempotent: false, retryOn: ['MCPWIRE_CONNECTION_CLOSED'] }, { code: 'MCPWIRE_CONNECTION_CLOSED' }, true)).toBe(true);
    expect(mayRetry('transport', { readOnlyHint: true }, { retryNonIdempotent: false, retryOn: ['MCPWIRE_CONNECTION_CLOSED'] }, { code: 'MCPWIRE_TRANSPORT' }, true)).toBe(false);
  });

  it('config: multiplier and retry_on are read with today\'s defaults; a retry_on item that is no outcome or code names the field', () => {
    const plain = validateServerEntry({ transport: 'stdio', command: 'x', retry: { max_retries: 1 } });
    expect(plain.ok && plain.entry.config.retry).toEqual({ maxRetries: 1, baseDelayMs: 200, maxDelayMs: 5000, multiplier: 2, retryOn: ['transport', 'timeout', 'unavailable'], retryNonIdempotent: false });
    const knobs = validateServerEntry({ transport: 'stdio', command: 'x', retry: { multiplier: 1.5, retry_on: ['timeout', 'MCPWIRE_CONNECTION_CLOSED', -32603] } });
    expect(knobs.ok && knobs.entry.config.retry).toMatchObject({ multiplier: 1.5, retryOn: ['timeout', 'MCPWIRE_CONNECTION_CLOSED', -32603] });
    const bad = validateServerEntry({ transport: 'stdio', command: 'x', retry: { multiplier: 0.5, retry_on: ['ok', 'soon'] } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues.map((i) => i.field).sort()).toEqual(['retry.multiplier', 'retry.retry_on.0', 'retry.retry_on.1']);
  });
});
