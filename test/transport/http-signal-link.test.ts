/**
 * Each POST's abort signal links the transport's lifetime and the request's own signal. On Node
 * 20, `AbortSignal.any([lifetime, request])` keeps every signal it makes registered on the
 * long-lived lifetime signal until the transport closes: a leak over a long session, found by the
 * soak (heap +~6 MB per 100k HTTP calls). A listener per exchange on the lifetime's signal, added
 * and removed, kept later exchanges reachable from a promoted one until a full collection
 * (src/transport/lifetime.ts). `linkSignals` puts nothing on the lifetime's signal: the exchange
 * is in the lifetime's table until it ends.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';
import { boundSignals, Lifetime, linkSignals } from '../../src/transport/lifetime.js';
// @ts-expect-error a plain .mjs mock without types
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { afterEachCleanups } from '../support/cleanups.js';

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
    const life = (c as unknown as { transport: { link: { lifetime: Lifetime } } }).transport.link.lifetime;
    const lifetime = life.signal;
    await c.listTools();
    const before = retained(lifetime);
    for (let i = 0; i < 200; i++) await c.listTools({ signal: new AbortController().signal });
    // each exchange under way is linked, not listening: seen as each one links
    let mostLinked = 0;
    let mostListening = 0;
    const link = life.link.bind(life);
    life.link = (onAbort) => {
      const n = link(onAbort);
      mostLinked = Math.max(mostLinked, life.linkCount);
      mostListening = Math.max(mostListening, getEventListeners(lifetime, 'abort').length);
      return n;
    };
    await Promise.all(Array.from({ length: 50 }, () => c.listTools({ signal: new AbortController().signal })));
    expect(mostLinked).toBeGreaterThan(1);
    expect(mostListening).toBeLessThanOrEqual(before + 2);
    expect(retained(lifetime)).toBeLessThanOrEqual(before + 2);
    expect(life.linkCount).toBe(0);
  });

  it('linkSignals: either side aborts the link with its reason; dispose unlinks both', () => {
    const a = new Lifetime();
    const b = new AbortController();
    const l = linkSignals(a, b.signal);
    expect(a.linkCount).toBe(1);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    b.abort(new Error('caller gave up'));
    expect(l.signal.aborted).toBe(true);
    expect((l.signal.reason as Error).message).toBe('caller gave up');
    l.dispose();
    expect(a.linkCount).toBe(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    const c = new Lifetime();
    const l2 = linkSignals(c, new AbortController().signal);
    const l3 = boundSignals(c, undefined, 60_000);
    c.abort(new Error('closing'));
    expect((l2.signal.reason as Error).message).toBe('closing');
    expect(l3.signal.aborted).toBe(true);
    expect(l3.timedOut).toBe(false);
    expect(c.linkCount).toBe(0);
    l3.dispose();
    expect(linkSignals(c, undefined).signal).toBe(c.signal);
  });
});
