/**
 * The gateway's Streamable HTTP session (src/serve/http-session.ts) as a transport, with
 * stand-in responses: which stream each message goes on. A progress notification follows the
 * request whose progressToken it names while that request is unanswered, and only then; what
 * the gateway sends on its own goes on the GET stream, else on the newest POST stream still
 * connected. Then the bounds: streams kept resumable past 64 requests, history in bytes (per
 * session and shared by all sessions), nothing kept for a response the client got live, and a
 * cancelled request's stream ended.
 */
import type http from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { HistoryBudget } from '../../src/serve/http-history.js';
import { HttpSessionTransport } from '../../src/serve/http-session.js';

/** A response that records what was written to it; `lose()` drops its connection (a network failure). */
function response() {
  const out = { text: '', ended: false };
  const closers: (() => void)[] = [];
  const res = {
    writableEnded: false,
    writeHead() {
      return res;
    },
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
    end() {
      out.ended = true;
      res.writableEnded = true;
      return res;
    },
    on(event: string, fn: () => void) {
      if (event === 'close') closers.push(fn);
      return res;
    },
  };
  return {
    res: res as unknown as http.ServerResponse,
    out,
    messages: () => out.text.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>),
    /** The id of the stream's priming event (what a client resumes from when it got nothing else). */
    primed: () => /^id: (\S+)\n/.exec(out.text)![1]!,
    lose: () => {
      res.writableEnded = true;
      for (const fn of closers) fn();
    },
  };
}

const call = (id: number, progressToken?: string | number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {}, ...(progressToken !== undefined ? { _meta: { progressToken } } : {}) } });
const progress = (progressToken: string | number, n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: n } }) as unknown as JSONRPCMessage;
const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [] } }) as unknown as JSONRPCMessage;

describe('HttpSessionTransport: which stream a message goes on', () => {
  it("a progress notification goes on the stream of the request that named its token, until that request's response", async () => {
    const t = new HttpSessionTransport('s1');
    const a = response();
    const b = response();
    const get = response();
    t.acceptPost([call(1, 'tok-a')], a.res, {});
    t.acceptPost([call(2, 7)], b.res, {});
    expect(t.acceptGet(get.res, {}, undefined)).toBe(true);
    await t.send(progress('tok-a', 1));
    await t.send(progress(7, 1));
    expect(a.messages().map((m) => (m.params as { progressToken: unknown }).progressToken)).toEqual(['tok-a']);
    expect(b.messages().map((m) => (m.params as { progressToken: unknown }).progressToken)).toEqual([7]);
    await t.send(answer(1));
    expect(a.out.ended).toBe(true);
    // answered: a late progress naming its token is no longer that stream's, it goes on the GET stream
    await t.send(progress('tok-a', 2));
    expect(a.messages()).toHaveLength(2);
    expect(get.messages().map((m) => m.method)).toEqual(['notifications/progress']);
    // the token used again by a new request is the new request's
    const c = response();
    t.acceptPost([call(3, 'tok-a')], c.res, {});
    await t.send(progress('tok-a', 1));
    expect(c.messages()).toHaveLength(1);
    expect(get.messages()).toHaveLength(1);
  });

  it("a response to one of two requests naming the same token leaves the token to the other's stream", async () => {
    const t = new HttpSessionTransport('s2');
    const a = response();
    const b = response();
    const get = response();
    t.acceptPost([call(1, 'same')], a.res, {});
    t.acceptPost([call(2, 'same')], b.res, {});
    t.acceptGet(get.res, {}, undefined);
    await t.send(answer(1));
    await t.send(progress('same', 1));
    expect(b.messages().map((m) => m.method)).toEqual(['notifications/progress']);
    expect(get.messages()).toEqual([]);
  });

  it('without a GET stream, what the gateway sends on its own goes on the newest POST stream still connected', async () => {
    const t = new HttpSessionTransport('s3');
    const a = response();
    const b = response();
    t.acceptPost([call(1)], a.res, {});
    t.acceptPost([call(2)], b.res, {});
    const listChanged = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as unknown as JSONRPCMessage;
    await t.send(listChanged);
    expect(b.messages().map((m) => m.method)).toEqual(['notifications/tools/list_changed']);
    await t.send(answer(2));
    await t.send(listChanged);
    expect(a.messages().map((m) => m.method)).toEqual(['notifications/tools/list_changed']);
  });
});

const bigProgress = (progressToken: string | number, n: number, size: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: n, message: 'x'.repeat(size) } }) as unknown as JSONRPCMessage;

describe('HttpSessionTransport: bounded streams and history', () => {
  it('regression: past 64 requests a new stream stays resumable: a client that lost it gets its response by GET with Last-Event-ID', async () => {
    const t = new HttpSessionTransport('many');
    // 65 requests answered while their client listened: none of them needs keeping
    for (let id = 1; id <= 65; id++) {
      const r = response();
      t.acceptPost([call(id)], r.res, {});
      await t.send(answer(id));
      expect(r.messages()).toEqual([expect.objectContaining({ id })]);
    }
    const lost = response();
    t.acceptPost([call(66)], lost.res, {});
    const from = lost.primed();
    lost.lose();
    await t.send(answer(66));
    const again = response();
    expect(t.acceptGet(again.res, {}, from)).toBe(true);
    expect(again.messages()).toEqual([expect.objectContaining({ id: 66 })]);
    expect(again.out.ended).toBe(true);
  });

  it('regression: with more than 64 requests unanswered, the newest stay resumable; the oldest, let go, still get their response live and are ended by close()', async () => {
    const t = new HttpSessionTransport('crowd');
    const posts = Array.from({ length: 70 }, (_, i) => {
      const r = response();
      t.acceptPost([call(i + 1)], r.res, {});
      return r;
    });
    expect(t.resumableStreams).toBe(64);
    expect(t.connectedStreams()).toBe(70);
    // the newest: lost, answered, resumed
    const from = posts[69]!.primed();
    posts[69]!.lose();
    await t.send(answer(70));
    const again = response();
    expect(t.acceptGet(again.res, {}, from)).toBe(true);
    expect(again.messages()).toEqual([expect.objectContaining({ id: 70 })]);
    // the oldest (let go from the resumable ones) still gets its response on its live connection
    await t.send(answer(1));
    expect(posts[0]!.messages()).toEqual([expect.objectContaining({ id: 1 })]);
    expect(posts[0]!.out.ended).toBe(true);
    // an open stream let go is still open: the idle sweep counts it, close() ends it
    expect(t.connectedStreams()).toBe(68);
    await t.close();
    expect(posts.slice(0, 69).every((p) => p.out.ended)).toBe(true);
    expect(t.connectedStreams()).toBe(0);
  });

  it('a stream answered on a live connection stays resumable a short while only (a client that vanished just then resumes at once), then keeps nothing', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const t = new HttpSessionTransport('live');
      const a = response();
      t.acceptPost([call(1, 'p')], a.res, {});
      await t.send(bigProgress('p', 1, 10_000));
      await t.send(answer(1));
      expect(a.out.ended).toBe(true);
      // written, but the client had gone: it resumes from the priming event and gets the rest
      const again = response();
      expect(t.acceptGet(again.res, {}, a.primed())).toBe(true);
      expect(again.messages().map((m) => m.id ?? m.method)).toEqual(['notifications/progress', 1]);
      // one more, not resumed: kept for the grace period, then let go (by the next request, or the idle sweep)
      const b = response();
      t.acceptPost([call(2, 'q')], b.res, {});
      await t.send(bigProgress('q', 1, 10_000));
      await t.send(answer(2));
      expect(t.heldBytes).toBeGreaterThan(10_000);
      vi.advanceTimersByTime(30_000);
      t.expireDelivered();
      expect(t.heldBytes).toBe(0);
      expect(t.resumableStreams).toBe(0);
      expect(t.acceptGet(response().res, {}, b.primed())).toBe(false);
      // and at most 16 such streams at once, whatever the time
      for (let id = 10; id < 40; id++) {
        t.acceptPost([call(id)], response().res, {});
        await t.send(answer(id));
      }
      expect(t.resumableStreams).toBe(16);
    } finally {
      vi.useRealTimers();
    }
  });

  it('history is bounded in bytes per session: the oldest events go, and a resumption from before them is refused rather than served with a gap', async () => {
    const t = new HttpSessionTransport('bytes', { historyBytes: 50_000 });
    const a = response();
    t.acceptPost([call(1, 'p')], a.res, {});
    const from = a.primed();
    a.lose();
    for (let n = 1; n <= 20; n++) await t.send(bigProgress('p', n, 10_000));
    expect(t.heldBytes).toBeLessThanOrEqual(50_000);
    await t.send(answer(1));
    expect(t.acceptGet(response().res, {}, from)).toBe(false);
    // from an event still held, the rest comes, response included
    const again = response();
    expect(t.acceptGet(again.res, {}, from.replace(/-0$/, '-18'))).toBe(true);
    expect(again.messages().map((m) => m.id ?? (m.params as { progress: number }).progress)).toEqual([19, 20, 1]);
  });

  it("history is bounded in bytes for every session together: a session over the shared budget gives up its own oldest first", async () => {
    const budget = new HistoryBudget(60_000);
    const sessions = [new HttpSessionTransport('one', { budget }), new HttpSessionTransport('two', { budget })];
    for (const [i, t] of sessions.entries()) {
      const r = response();
      t.acceptPost([call(1, 'p')], r.res, {});
      r.lose();
      for (let n = 1; n <= (i === 0 ? 4 : 10); n++) await t.send(bigProgress('p', n, 10_000));
    }
    expect(budget.bytes).toBeLessThanOrEqual(60_000);
    expect(budget.bytes).toBe(sessions[0]!.heldBytes + sessions[1]!.heldBytes);
    expect(sessions[0]!.heldBytes).toBeGreaterThan(40_000); // the first session kept its four events
    await sessions[1]!.close();
    expect(budget.bytes).toBe(sessions[0]!.heldBytes);
    await sessions[0]!.close();
    expect(budget.bytes).toBe(0);
  });

  it('basic.utilities.cancellation#4: a cancelled request ends its POST stream (no response will come) and frees what it held', async () => {
    const t = new HttpSessionTransport('cancel');
    const a = response();
    const get = response();
    t.acceptGet(get.res, {}, undefined);
    t.acceptPost([call(1, 'c')], a.res, {});
    await t.send(progress('c', 1));
    expect(t.connectedStreams()).toBe(2);
    const note = response();
    t.acceptPost([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user' } }], note.res, {});
    expect(a.out.ended).toBe(true);
    expect(t.connectedStreams()).toBe(1);
    expect(t.resumableStreams).toBe(1); // the GET stream alone
    // its token is free: a late progress naming it is no longer that stream's
    await t.send(progress('c', 2));
    expect(get.messages().map((m) => m.method)).toEqual(['notifications/progress']);
    // a response sent anyway goes nowhere
    await t.send(answer(1));
    expect(a.messages()).toHaveLength(1);
  });
});

describe('HttpSessionTransport: a resumption', () => {
  it('regression: primes with the Last-Event-ID it resumes from, so a client losing it again before the replay arrived still gets the replay', async () => {
    const t = new HttpSessionTransport('twice');
    const a = response();
    t.acceptPost([call(1, 'p')], a.res, {});
    const from = a.primed();
    a.lose();
    await t.send(progress('p', 1));
    await t.send(answer(1));
    // resumed, then lost again right after the priming event
    const b = response();
    expect(t.acceptGet(b.res, {}, from)).toBe(true);
    expect(b.primed()).toBe(from);
    const c = response();
    expect(t.acceptGet(c.res, {}, b.primed())).toBe(true);
    expect(c.messages().map((m) => m.id ?? m.method)).toEqual(['notifications/progress', 1]);
  });
});
