/**
 * Each POST's abort signal links the transport's lifetime and the request's own signal. On Node
 * 20, `AbortSignal.any([lifetime, request])` keeps every signal it makes registered on the
 * long-lived lifetime signal until the transport closes: a leak over a long session, found by the
 * soak (heap +~6 MB per 100k HTTP calls). `linkSignals` links with two listeners and unlinks them
 * when the exchange ends.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../src/index.js';
import { linkSignals } from '../src/transport/http-common.js';
// @ts-expect-error a plain .mjs mock without types
import { startHttpMock } from '../mock-servers/http-server.mjs';
import { afterEachCleanups } from './support/cleanups.js';

const cleanups = afterEachCleanups();

/** What a signal holds on to: its listeners and (Node's AbortSignal.any) its dependent signals. */
function retained(signal: AbortSignal): number {
  let n = 0;
  for (const sym of Object.getOwnPropertySymbols(signal)) {
    const v = (signal as unknown as Record<symbol, unknown>)[sym];
    const size = (v as { size?: unknown } | null)?.size;
    if (typeof size === 'number') n += size; // Node keeps AbortSignal.any dependants in a SafeSet (not instanceof Set)
  }
  return n + getEventListeners(signal, 'abort').length;
}

describe('abort signals of HTTP requests', () => {
  it('200 calls with their own signals leave nothing registered on the transport’s lifetime signal', async () => {
    const m = (await startHttpMock({ mode: 'sse' })) as { url: string; close(): Promise<void> };
    cleanups.push(() => m.close());
    const c: McpClient = await connect({ transport: 'http', url: m.url, id: 'mock' });
    cleanups.push(() => c.close());
    const lifetime = (c as unknown as { transport: { link: { lifetime: AbortController } } }).transport.link.lifetime.signal;
    await c.listTools();
    const before = retained(lifetime);
    for (let i = 0; i < 200; i++) await c.listTools({ signal: new AbortController().signal });
    await Promise.all(Array.from({ length: 50 }, () => c.listTools({ signal: new AbortController().signal })));
    expect(retained(lifetime)).toBeLessThanOrEqual(before + 2);
  });

  it('linkSignals: either side aborts the link with its reason; dispose unlinks both', () => {
    const a = new AbortController();
    const b = new AbortController();
    const l = linkSignals(a.signal, b.signal);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    b.abort(new Error('caller gave up'));
    expect(l.signal.aborted).toBe(true);
    expect((l.signal.reason as Error).message).toBe('caller gave up');
    l.dispose();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    const c = new AbortController();
    const l2 = linkSignals(c.signal, new AbortController().signal);
    c.abort(new Error('closing'));
    expect((l2.signal.reason as Error).message).toBe('closing');
    expect(linkSignals(c.signal, undefined).signal).toBe(c.signal);
  });
});
