/**
 * The listen manager (src/mcp/subscriptions.ts) with a fake request function and fake timers:
 * what it opts into, re-listening when that changes, correlation by subscription id, the
 * acknowledged filter, re-listening after an end or a break with backoff, and stopping.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcError } from '../../src/errors.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { Connection } from '../../src/protocol/connection.js';
import type { SendOptions, Transport } from '../../src/transport/types.js';
import { backoffDelay, ListenManager, SUBSCRIPTION_ID_META, type ListenFilter, type ListenRequestOptions } from '../../src/mcp/subscriptions.js';

interface Sent {
  id: number;
  filter: ListenFilter;
  options: ListenRequestOptions;
  end(): void;
  fail(err: Error): void;
  cancelled: boolean;
}

function harness(o: { usable?: () => boolean } = {}) {
  const users = new EventEmitter();
  const sent: Sent[] = [];
  const diagnostics: { code: string; message: string }[] = [];
  let nextId = 0;
  const manager = new ListenManager({
    serverId: 'fake',
    request: (method, params, options) => {
      expect(method).toBe('subscriptions/listen');
      const id = ++nextId;
      options.onRequestId(id);
      return new Promise((resolve, reject) => {
        const s: Sent = {
          id,
          filter: params.notifications as ListenFilter,
          options,
          end: () => resolve({ resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META]: id } }),
          fail: reject,
          cancelled: false,
        };
        options.signal.addEventListener('abort', () => {
          s.cancelled = true;
          reject(options.signal.reason);
        });
        sent.push(s);
      });
    },
    listenerCount: (event) => users.listenerCount(event),
    usable: o.usable ?? (() => true),
    diagnostic: (code, message) => diagnostics.push({ code, message }),
    backoff: { initialDelayMs: 1000, maxDelayMs: 8000, factor: 2, jitter: 0 },
  });
  // the client's wiring: a listener added or removed is a possible change of the filter
  users.on('newListener', () => manager.update());
  users.on('removeListener', () => manager.update());
  const ack = (s: Sent, notifications: ListenFilter = s.filter): void =>
    manager.onAcknowledged({ _meta: { [SUBSCRIPTION_ID_META]: s.id }, notifications });
  const open = (): Sent[] => sent.filter((s) => !s.cancelled);
  return { users, sent, diagnostics, manager, ack, open };
}

const tick = (): Promise<void> => new Promise((r) => queueMicrotask(r));
const noop = (): void => {};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('listen manager: what it listens to', () => {
  it('opens no subscription while nobody listens, one with exactly the events listened to once someone does', async () => {
    const h = harness();
    h.manager.start();
    await tick();
    expect(h.sent).toHaveLength(0);
    h.users.on('toolsListChanged', noop);
    h.users.on('log', noop); // request-scoped: not a subscription
    await tick();
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0].filter).toEqual({ toolsListChanged: true });
    expect(h.sent[0].options.longLived).toBe(true);
    expect(h.sent[0].options.timeoutMs).toBe(Infinity);
  });

  it('several listeners added in one tick make one listen', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    h.users.on('promptsListChanged', noop);
    h.users.on('resourcesListChanged', noop);
    await tick();
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0].filter).toEqual({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
  });

  it('a changed filter listens again; the old subscription is cancelled only once the new one is acknowledged', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    h.ack(h.sent[0]);
    h.users.on('promptsListChanged', noop);
    await tick();
    expect(h.sent).toHaveLength(2);
    expect(h.sent[1].filter).toEqual({ toolsListChanged: true, promptsListChanged: true });
    expect(h.sent[0].cancelled).toBe(false); // no gap: a change in between still arrives
    expect(h.manager.accept('toolsListChanged', { _meta: { [SUBSCRIPTION_ID_META]: 1 } })).toBe(true);
    h.ack(h.sent[1]);
    expect(h.sent[0].cancelled).toBe(true);
    expect(h.manager.accept('toolsListChanged', { _meta: { [SUBSCRIPTION_ID_META]: 1 } })).toBe(false);
  });

  it('the same filter again opens nothing; the last listener removed cancels the subscription', async () => {
    const h = harness();
    h.manager.start();
    const l = (): void => {};
    h.users.on('toolsListChanged', l);
    await tick();
    h.ack(h.sent[0]);
    h.users.on('toolsListChanged', noop); // a second listener of the same event
    await tick();
    expect(h.sent).toHaveLength(1);
    h.users.off('toolsListChanged', l);
    h.users.off('toolsListChanged', noop);
    await tick();
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0].cancelled).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.sent).toHaveLength(1); // cancelled by us: not listened again
  });

  it('subscribeResource resolves once acknowledged with the URI; unsubscribe listens again without it', async () => {
    const h = harness();
    h.manager.start();
    let done = false;
    const sub = h.manager.subscribeResource('file:///a').then(() => void (done = true));
    await tick();
    expect(h.sent[0].filter).toEqual({ resourceSubscriptions: ['file:///a'] });
    expect(done).toBe(false);
    h.ack(h.sent[0]);
    await sub;
    expect(h.manager.acknowledged).toEqual({ resourceSubscriptions: ['file:///a'] });
    void h.manager.subscribeResource('file:///b');
    await tick();
    expect(h.sent[1].filter).toEqual({ resourceSubscriptions: ['file:///a', 'file:///b'] });
    h.ack(h.sent[1]);
    await h.manager.unsubscribeResource('file:///a');
    await tick();
    expect(h.sent[2].filter).toEqual({ resourceSubscriptions: ['file:///b'] });
  });
});

describe('listen manager: subscribeResource settles', () => {
  it('a second subscribeResource of a URI already acknowledged resolves at once, without listening again', async () => {
    const h = harness();
    h.manager.start();
    const first = h.manager.subscribeResource('file:///a');
    await tick();
    h.ack(h.sent[0]);
    await first;
    await h.manager.subscribeResource('file:///a');
    await tick();
    expect(h.sent).toHaveLength(1);
  });

  it('unsubscribing before the acknowledgement rejects the pending subscribeResource', async () => {
    const h = harness();
    h.manager.start();
    const pending = h.manager.subscribeResource('file:///a');
    await tick();
    await h.manager.unsubscribeResource('file:///a');
    await expect(pending).rejects.toMatchObject({ code: 'MCPWIRE_STATE' });
    await tick();
    expect(h.sent[0].cancelled).toBe(true);
  });
});

describe('listen manager: correlation and acknowledgement', () => {
  it('basic.patterns.subscriptions#4: only notifications naming a subscription of ours are accepted', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    const ours = { _meta: { [SUBSCRIPTION_ID_META]: h.sent[0].id } };
    expect(h.manager.accept('toolsListChanged', ours)).toBe(false); // not acknowledged yet
    h.ack(h.sent[0]);
    expect(h.manager.accept('toolsListChanged', ours)).toBe(true);
    expect(h.manager.accept('resourceUpdated', { uri: 'x', ...ours })).toBe(true);
    expect(h.manager.accept('toolsListChanged', { _meta: { [SUBSCRIPTION_ID_META]: 99 } })).toBe(false);
    expect(h.manager.accept('toolsListChanged', { _meta: { [SUBSCRIPTION_ID_META]: String(h.sent[0].id) } })).toBe(false);
    expect(h.manager.accept('toolsListChanged', {})).toBe(false);
    expect(h.manager.accept('toolsListChanged', undefined)).toBe(false);
    // request-scoped notifications carry no subscription id and are not the manager's to judge
    expect(h.manager.accept('progress', { progressToken: 1, progress: 1 })).toBe(true);
    expect(h.manager.accept('log', { level: 'info', data: 'x' })).toBe(true);
  });

  it('basic.patterns.subscriptions#3: what the acknowledgement leaves out is reported, a refused resource rejects its subscribeResource, the rest stays', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    h.users.on('promptsListChanged', noop);
    const refused = h.manager.subscribeResource('file:///secret');
    await tick();
    h.ack(h.sent[0], { toolsListChanged: true });
    await expect(refused).rejects.toMatchObject({ code: 'MCPWIRE_CAPABILITY' });
    expect(h.diagnostics).toEqual([{ code: 'MCPWIRE_LISTEN_PARTIAL', message: expect.stringMatching(/promptsListChanged.*file:\/\/\/secret/) }]);
    expect(h.manager.resourceSubscriptions).toEqual([]);
    expect(h.sent[0].cancelled).toBe(false);
    expect(h.manager.accept('toolsListChanged', { _meta: { [SUBSCRIPTION_ID_META]: h.sent[0].id } })).toBe(true);
  });
});

describe('listen manager: ends, breaks and stop', () => {
  it('a subscription the server ends gracefully is opened again after the backoff', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    h.ack(h.sent[0]);
    h.sent[0].end();
    await vi.advanceTimersByTimeAsync(999);
    expect(h.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.sent).toHaveLength(2);
    expect(h.sent[1].filter).toEqual({ toolsListChanged: true });
    expect(h.diagnostics[0]).toMatchObject({ code: 'MCPWIRE_LISTEN_ENDED' });
  });

  /** The wait before each re-listen, in steps of 100 ms, as the server ends each listen `end` ways. */
  async function delaysOf(h: ReturnType<typeof harness>, n: number, end: (s: Sent) => void): Promise<number[]> {
    const delays: number[] = [];
    for (let i = 0; i < n; i++) {
      const before = h.sent.length;
      end(h.sent[before - 1]);
      let waited = 0;
      while (h.sent.length === before && waited < 60_000) {
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
      }
      delays.push(waited);
    }
    return delays;
  }

  it('a broken listen backs off exponentially up to the bound; a subscription that stayed open stableMs resets the backoff', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('resourcesListChanged', noop);
    await tick();
    expect(await delaysOf(h, 5, (s) => s.fail(new Error('stream broken')))).toEqual([1000, 2000, 4000, 8000, 8000]);
    h.ack(h.sent[h.sent.length - 1]);
    await vi.advanceTimersByTimeAsync(5000); // the default stableMs is 10 s: not yet
    expect(await delaysOf(h, 1, (s) => s.fail(new Error('stream broken')))).toEqual([8000]);
    h.ack(h.sent[h.sent.length - 1]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await delaysOf(h, 1, (s) => s.fail(new Error('stream broken')))).toEqual([1000]);
  });

  it('a server that acknowledges each listen and ends it at once is asked again with a growing delay, not every 0.5 s forever', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    const ackAndEnd = (s: Sent): void => {
      h.ack(s);
      s.end();
    };
    expect(await delaysOf(h, 6, ackAndEnd)).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(h.diagnostics.filter((d) => d.code === 'MCPWIRE_LISTEN_ENDED')).toHaveLength(6);
  });

  it('a subscription that delivered a notification before it ended resets the backoff', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    expect(await delaysOf(h, 3, (s) => s.fail(new Error('stream broken')))).toEqual([1000, 2000, 4000]);
    const s = h.sent[h.sent.length - 1];
    h.ack(s);
    expect(h.manager.accept('toolsListChanged', { _meta: { [SUBSCRIPTION_ID_META]: s.id } })).toBe(true);
    expect(await delaysOf(h, 1, (x) => x.end())).toEqual([1000]);
  });

  it('a subscribeResource whose listen fails rejects with that failure', async () => {
    const h = harness();
    h.manager.start();
    const sub = h.manager.subscribeResource('file:///a');
    await tick();
    h.sent[0].fail(new Error('HTTP 500'));
    await expect(sub).rejects.toThrow('HTTP 500');
    expect(h.manager.resourceSubscriptions).toEqual([]);
  });

  it('a server without subscriptions/listen (-32601) is not asked again', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    h.sent[0].fail(new JsonRpcError(-32601, 'Method not found'));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.sent).toHaveLength(1);
    expect(h.diagnostics).toEqual([{ code: 'MCPWIRE_LISTEN_UNSUPPORTED', message: expect.any(String) }]);
  });

  it('stop() cancels the open subscription and the pending re-listen; nothing is opened after', async () => {
    const h = harness();
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    h.ack(h.sent[0]);
    h.users.on('promptsListChanged', noop);
    await tick();
    const pending = h.manager.subscribeResource('file:///a');
    await tick();
    h.manager.stop();
    expect(h.open()).toHaveLength(0);
    await expect(pending).rejects.toMatchObject({ code: 'MCPWIRE_STATE' });
    h.users.on('resourcesListChanged', noop);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.open()).toHaveLength(0);

    const g = harness();
    g.manager.start();
    g.users.on('toolsListChanged', noop);
    await tick();
    g.sent[0].fail(new Error('broken'));
    await tick();
    g.manager.stop(); // during the backoff wait
    await vi.advanceTimersByTimeAsync(120_000);
    expect(g.sent).toHaveLength(1);
  });

  it('nothing is opened while the client cannot send; listening starts when update() finds it can', async () => {
    let ready = false;
    const h = harness({ usable: () => ready });
    h.manager.start();
    h.users.on('toolsListChanged', noop);
    await tick();
    expect(h.sent).toHaveLength(0);
    ready = true;
    h.manager.update();
    await tick();
    expect(h.sent).toHaveLength(1);
  });

  it('the backoff has the host reconnect shape: min(max, initial·factor^n), jittered within ±jitter', () => {
    expect(backoffDelay(0, { initialDelayMs: 100, jitter: 0 })).toBe(100);
    expect(backoffDelay(3, { initialDelayMs: 100, jitter: 0 })).toBe(800);
    expect(backoffDelay(30, { initialDelayMs: 100, maxDelayMs: 5000, jitter: 0 })).toBe(5000);
    expect(backoffDelay(0, { initialDelayMs: 1000, jitter: 0.2 }, () => 0)).toBe(800);
    expect(backoffDelay(0, { initialDelayMs: 1000, jitter: 0.2 }, () => 1)).toBe(1200);
  });
});

describe('the long-lived option on the request path', () => {
  function recording(wantsRequestSignal: boolean): { transport: Transport; seen: { method?: string; options?: SendOptions }[] } {
    const seen: { method?: string; options?: SendOptions }[] = [];
    const transport: Transport = {
      kind: 'fake',
      wantsRequestSignal,
      start: async () => {},
      send: async (m: JSONRPCMessage, options?: SendOptions) => void seen.push({ method: (m as { method?: string }).method, options }),
      close: async () => {},
    };
    return { transport, seen };
  }

  for (const wantsRequestSignal of [false, true]) {
    it(`a listen request reaches the transport with SendOptions.longLived, other requests without (wantsRequestSignal: ${wantsRequestSignal})`, async () => {
      const { transport, seen } = recording(wantsRequestSignal);
      const connection = new Connection(transport, { serverId: 'fake' });
      connection.request('subscriptions/listen', { notifications: { toolsListChanged: true } }, { longLived: true, timeoutMs: Infinity }).catch(() => {});
      connection.request('tools/list', {}).catch(() => {});
      await tick();
      expect(seen.map((s) => [s.method, s.options?.longLived])).toEqual([
        ['subscriptions/listen', true],
        ['tools/list', undefined],
      ]);
      await connection.close();
    });
  }
});
