/**
 * basic.utilities.cancellation#1: only requests previously issued may be cancelled. Over
 * Streamable HTTP with an auth provider whose `headers()` is asynchronous, a call aborted right
 * after it was made — before its POST went out — reached no server, so no
 * `notifications/cancelled` may name its id. "Went out" is written to a socket, not handed to
 * undici: undici queues a POST while it opens a connection for it, and one aborted there was
 * never issued. A real loopback HTTP server (the scripted mock) records every message it received.
 */
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { connect, type McpClient } from '../../src/index.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Msg = { id?: unknown; method?: string; params?: Record<string, any> };

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
  cleanup = [];
});

describe('no notifications/cancelled for a request the server never received (async auth headers)', { timeout: 30_000 }, () => {
  const cases = [
    { when: 'at once', delayMs: 20 },
    { when: 'after a microtask', delayMs: 20 },
    { when: 'while the headers are awaited', delayMs: 20 },
    { when: 'after a 1 ms timer', delayMs: 0 },
    { when: 'after a 1 ms timer', delayMs: 1 },
  ] as const;
  it.each(cases)('basic.utilities.cancellation#1: five calls aborted $when (headers after $delayMs ms) leave no cancellation for an id the server never got', async ({ when, delayMs }) => {
    const mock = await startHttpMock({ mode: 'json' });
    cleanup.push(() => mock.close());
    let headerCalls = 0;
    const headers = async () => {
      headerCalls++;
      if (delayMs > 0) await pause(delayMs);
      return { authorization: 'Bearer t0k3n-async-abcdef' };
    };
    const client: McpClient = await connect({ transport: 'http', id: 'async-auth', url: mock.url }, { authProvider: { headers } });
    cleanup.push(() => client.close());
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      const ac = new AbortController();
      calls.push(client.callTool('slow', { ms: 5000 }, { signal: ac.signal }).catch((e: unknown) => e));
      if (when === 'at once') ac.abort();
      else if (when === 'after a microtask') queueMicrotask(() => ac.abort());
      else if (when === 'while the headers are awaited') setTimeout(() => ac.abort(), 5);
      else setTimeout(() => ac.abort(), 1);
    }
    for (const r of await Promise.all(calls)) expect(r).toBeInstanceOf(Error);
    // One more call that goes through: every POST before it has reached the server by then.
    expect(await client.callTool('echo', { text: 'after' })).toMatchObject({ content: [{ type: 'text' }] });
    await pause(100);
    const received = mock.record.messages as Msg[];
    const got = new Set(received.filter((m) => m.method === 'tools/call').map((m) => m.id));
    const cancelled = received.filter((m) => m.method === 'notifications/cancelled');
    expect(cancelled.filter((m) => !got.has(m.params?.requestId))).toEqual([]);
    // What reached the server and was given up is cancelled (the rule's other half).
    const slow = received.filter((m) => m.method === 'tools/call' && m.params?.name === 'slow').map((m) => m.id);
    expect(cancelled.map((m) => m.params?.requestId).sort()).toEqual(slow.sort());
    expect(headerCalls).toBeGreaterThan(0);
  });
});
