/**
 * A server stopped on purpose (`host.stopServer`) ends the calls waiting to retry on it at once:
 * nothing will reconnect a stopped server, so waiting for it until the call's total deadline
 * (10 × its timeout by default) would only hold the caller.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHost } from '../../src/host/index.js';
import { mockServer, startHost, toolName } from '../support/host-calls.js';

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('retries and stopped servers', () => {
  it('an idempotent call in flight when its server is stopped ends without waiting out its deadline (outcome unavailable or transport)', async () => {
    const scenario = { tools: [{ name: 'look', builtin: 'slow', annotations: { readOnlyHint: true } }] };
    host = await startHost([mockServer('s', scenario, { trustAnnotations: true, retry: { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 50, retryNonIdempotent: false }, requestTimeoutMs: 20_000 })]);
    const started = Date.now();
    const call = host.callTool(toolName('s', 'look'), { ms: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    await host.stopServer('s');
    const r = await call;
    // Without the fix the retry waits for a reconnect that never comes: 10 × 20 s.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(['unavailable', 'transport']).toContain(r.outcome);
    expect(r.isError).toBe(true);
    expect(host.serverStatus('s')?.state).toBe('stopped');
  });
});
