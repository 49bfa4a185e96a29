// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The host's retry and a 2026-07-28 server's tool annotations (src/host/retry.ts): a timed-out
 * call of a tool claiming `idempotentHint` is repeated only when the user marked the server
 * `trust_annotations`. Against the scripted modern stdio mock (mock-servers/modern/stdio-server.mjs)
 * in real child processes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHost, ResolvedServer } from '../../src/host/index.js';
import { mockServer, startHost, toolName } from '../support/host-calls.js';
import { MODERN_SERVER as MODERN } from '../support/recorded-mock.js';

const SCENARIO = { extends: 'default', tools: [{ name: 'lookup', builtin: 'slow', annotations: { idempotentHint: true } }] };
const RETRY = { maxRetries: 1, baseDelayMs: 20, maxDelayMs: 50, retryNonIdempotent: false };

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

/** A host server entry running the modern mock. */
function modernServer(id: string, trustAnnotations: boolean): ResolvedServer {
  const s = mockServer(id, SCENARIO, { retry: RETRY, ...(trustAnnotations ? { trustAnnotations } : {}) });
  return { ...s, config: { ...s.config, args: [MODERN] } };
}

describe('tool annotations of a 2026-07-28 server', () => {
  it('server.tools#11: an untrusted server\'s idempotentHint is not trusted (a timed-out call is sent once); a trusted server\'s is (sent twice)', async () => {
    host = await startHost([modernServer('plain', false), modernServer('marked', true)]);
    expect(host.client('plain')?.era).toBe('modern');
    const plain = await host.callTool(toolName('plain', 'lookup'), { ms: 5000 }, { timeoutMs: 250 });
    expect(plain).toMatchObject({ outcome: 'timeout', attempts: 1, retryable: false });
    const marked = await host.callTool(toolName('marked', 'lookup'), { ms: 5000 }, { timeoutMs: 250 });
    expect(marked).toMatchObject({ outcome: 'timeout', attempts: 2, retryable: true });
  });
});
