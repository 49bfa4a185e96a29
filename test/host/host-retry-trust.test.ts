/**
 * Tool annotations are the server's claims (server.tools#6): the host's retry relies on a
 * tool's `idempotentHint`/`readOnlyHint` only for a server the user marked `trust_annotations`
 * (src/host/retry.ts); otherwise only the server's explicit `retry_non_idempotent` makes a failed
 * call repeat. Against real stdio mock server processes (mock-servers/stdio-server.mjs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { validateServerEntry } from '../../src/host/config/schema.js';
import type { McpHost, PermissionRequest } from '../../src/host/index.js';
import { mayRetry } from '../../src/host/retry.js';
import { mockServer, startHost, toolName } from '../support/host-calls.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpwire-retry-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

const RETRY = { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 200, retryNonIdempotent: false };
// crashOnce: the first call ever takes the server down mid-call; it lists `idempotentHint: true`
const SCENARIO = { tools: ['crashOnce'] };

describe('tool annotations from untrusted servers (server.tools#6)', () => {
  it('server.tools#6: an untrusted server\'s idempotentHint tool is not retried after its crash; a server marked trust_annotations is', async () => {
    host = await startHost(
      [mockServer('untrusted', SCENARIO, { retry: RETRY }), mockServer('trusted', SCENARIO, { retry: RETRY, trustAnnotations: true })],
      { backoff: { initialDelayMs: 100, maxRetries: 5 } },
    );
    const listed = host.tools().find((t) => t.name === toolName('untrusted', 'crashOnce'));
    expect(listed?.annotations?.idempotentHint).toBe(true); // the claim is there, and shown
    const untrusted = await host.callTool(toolName('untrusted', 'crashOnce'), { marker: path.join(dir, 'u'), ms: 50, id: 1 });
    expect(untrusted).toMatchObject({ outcome: 'transport', attempts: 1, retryable: false });
    const trusted = await host.callTool(toolName('trusted', 'crashOnce'), { marker: path.join(dir, 't'), ms: 50, id: 2 });
    expect(trusted).toMatchObject({ outcome: 'ok', attempts: 2 });
  });

  it('server.tools#6: the server\'s explicit retry_non_idempotent still retries an untrusted server\'s call', async () => {
    host = await startHost([mockServer('explicit', SCENARIO, { retry: { ...RETRY, retryNonIdempotent: true } })], { backoff: { initialDelayMs: 100, maxRetries: 5 } });
    const r = await host.callTool(toolName('explicit', 'crashOnce'), { marker: path.join(dir, 'e'), ms: 50, id: 3 });
    expect(r).toMatchObject({ outcome: 'ok', attempts: 2 });
  });

  it('server.tools#6: the permission hook is told whether the annotations it sees are trusted', async () => {
    const asked: PermissionRequest[] = [];
    const permission = (req: PermissionRequest): 'allow' => (asked.push(req), 'allow');
    host = await startHost([mockServer('u', { tools: ['echo', 'crashOnce'] }), mockServer('t', { tools: ['echo', 'crashOnce'] }, { trustAnnotations: true })], { permission });
    await host.callTool(toolName('u', 'echo'), { text: 'a' });
    await host.callTool(toolName('t', 'echo'), { text: 'b' });
    expect(asked.map((r) => [r.server, r.annotationsTrusted])).toEqual([
      ['u', false],
      ['t', true],
    ]);
  });

  it('server.tools#6: mayRetry ignores the hints unless told the server is trusted', () => {
    expect(mayRetry('transport', { idempotentHint: true }, { retryNonIdempotent: false })).toBe(false);
    expect(mayRetry('timeout', { readOnlyHint: true }, { retryNonIdempotent: false }, {}, false)).toBe(false);
    expect(mayRetry('timeout', { readOnlyHint: true }, { retryNonIdempotent: false }, {}, true)).toBe(true);
    expect(mayRetry('timeout', {}, { retryNonIdempotent: true })).toBe(true);
  });

  it('server.tools#6: trust_annotations is a per-server boolean, off by default', () => {
    const on = validateServerEntry({ transport: 'stdio', command: 'x', trust_annotations: true });
    expect(on.ok && on.entry.config.trustAnnotations).toBe(true);
    const off = validateServerEntry({ transport: 'stdio', command: 'x' });
    expect(off.ok && off.entry.config.trustAnnotations).toBeUndefined();
    const bad = validateServerEntry({ transport: 'stdio', command: 'x', trust_annotations: 'yes' });
    expect(bad.ok ? [] : bad.issues.map((i) => i.field)).toEqual(['trust_annotations']);
  });
});
