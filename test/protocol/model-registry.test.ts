/**
 * Model-based test of the request registry through `Connection` (the layer that
 * owns it). fast-check generates random interleavings of request, response, late and unknown
 * response, error response, unreadable response, progress, time passing (fake clock: setTimeout
 * and performance.now), abort (shared and own signals), send failure (synchronous and, over an
 * HTTP-like transport, a failed POST before or after dispatch) and close; a small reference
 * model predicts each request's outcome. Checked after every step: every request settles exactly
 * once and as the model says (result, JsonRpcError, TimeoutError, AbortError,
 * ConnectionClosedError, ProtocolError), `pendingCount` equals the model's; at the end no timer
 * and no abort listener remains, and `notifications/cancelled` went out exactly for the requests
 * given up on (timeout/abort) that had been dispatched — once each, never for others.
 * Session expiry and renewal failure are in test/protocol/model-session.test.ts (McpClient level).
 */
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Fuzz properties run many cases: generous per-test bounds for a loaded 2-core CI box (no timing is asserted).
vi.setConfig({ testTimeout: 180_000 });
import { AbortError, ConnectionClosedError, JsonRpcError, ProtocolError, TimeoutError, TransportError } from '../../src/errors.js';
import type { JSONRPCMessage, RequestId } from '../../src/jsonrpc/types.js';
import { Connection } from '../../src/protocol/connection.js';
import type { SendOptions, Transport, TransportDiagnostic } from '../../src/transport/types.js';
import { fuzzAsync } from '../support/fuzz.js';

// ---- the system: Connection over a scripted transport ------------------------------------------

interface HeldSend {
  resolve: () => void;
  reject: (e: Error) => void;
  options: SendOptions | undefined;
  dispatched: boolean;
}

/** stdio-like (`http` false: sends settle at once) or HTTP-like (POSTs the test dispatches and fails). */
class ScriptTransport implements Transport {
  readonly kind = 'script';
  readonly wantsRequestSignal: boolean;
  onmessage?: (m: unknown) => void;
  onclose?: (e?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  readonly sent: Record<string, unknown>[] = [];
  readonly held = new Map<RequestId, HeldSend>();
  /** Ids whose send() throws synchronously (e.g. params JSON cannot serialise). */
  readonly throwOnSend = new Set<RequestId>();
  closed = false;

  constructor(readonly http: boolean) {
    this.wantsRequestSignal = http;
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    const m = message as unknown as Record<string, unknown>;
    if (this.closed) return Promise.reject(new ConnectionClosedError('closed'));
    if ('id' in m && 'method' in m && this.throwOnSend.has(m.id as RequestId)) throw new TypeError('Do not know how to serialize a BigInt');
    this.sent.push(m);
    if (!this.http || !('method' in m) || !('id' in m)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const h: HeldSend = { resolve, reject, options, dispatched: false };
      this.held.set(m.id as RequestId, h);
      // a POST given up on is aborted, as the real transport does
      options?.signal?.addEventListener('abort', () => {
        this.held.delete(m.id as RequestId);
        reject(new TransportError('POST aborted'));
      }, { once: true });
    });
  }

  dispatch(id: RequestId): void {
    const h = this.held.get(id);
    if (h === undefined || h.dispatched) return;
    h.dispatched = true;
    h.options?.onDispatched?.();
  }

  /** The response arrives (its POST is dispatched by then; HTTP: send() resolves after delivery). */
  deliver(id: RequestId, message: unknown): void {
    if (this.closed) return;
    this.dispatch(id);
    this.onmessage?.(message);
    const h = this.held.get(id);
    this.held.delete(id);
    h?.resolve();
  }

  failPost(id: RequestId): void {
    const h = this.held.get(id);
    if (h === undefined) return;
    this.held.delete(id);
    h.reject(new TransportError('POST failed: 502'));
  }

  notify(message: unknown): void {
    if (!this.closed) this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

// ---- operations and the model ----------------------------------------------------------------

type Op =
  | { op: 'request'; timeoutMs: number; extraTotal: number | undefined; signal: 'none' | 'own' | 0 | 1; progress: boolean; reset: boolean; cancellable: boolean; throws: boolean }
  | { op: 'result' | 'error' | 'unreadable' | 'progress' | 'dispatch' | 'failPost' | 'abortOwn'; k: number }
  | { op: 'abortShared'; s: 0 | 1 }
  | { op: 'advance'; ms: number }
  | { op: 'unknownResponse'; id: RequestId }
  | { op: 'close' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('request' as const),
      timeoutMs: fc.constantFrom(50, 120, 1000),
      extraTotal: fc.option(fc.constantFrom(0, 30, 200), { nil: undefined }),
      signal: fc.constantFrom('none' as const, 'own' as const, 0 as const, 1 as const),
      progress: fc.boolean(),
      reset: fc.boolean(),
      cancellable: fc.boolean(),
      throws: fc.boolean().map((b) => b && Math.random() < 0.2),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom('result' as const, 'error' as const, 'progress' as const, 'dispatch' as const), k: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('unreadable' as const, 'failPost' as const, 'abortOwn' as const), k: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('abortShared' as const), s: fc.constantFrom(0 as const, 1 as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(1, 10, 29, 49, 50, 51, 100, 400) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('unknownResponse' as const), id: fc.oneof(fc.integer({ min: 1000, max: 2000 }), fc.constant('1')) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'close' as const }) },
);

type Outcome = 'pending' | 'result' | 'JsonRpcError' | 'TimeoutError' | 'AbortError' | 'ConnectionClosedError' | 'ProtocolError' | 'TransportError';

interface ModelRequest {
  id: RequestId | undefined;
  expected: Outcome;
  actual: Outcome;
  settleCount: number;
  dispatched: boolean;
  cancellable: boolean;
  sentAt: number;
  timeoutMs: number;
  maxTotalMs: number;
  deadline: number;
  reset: boolean;
  progressWanted: boolean;
  progressSeen: number;
  progressCalls: number;
  /** Progress notifications that arrived while the request was pending (interval 0: each is a callback). */
  progressWhilePending: number;
  token: string | number | undefined;
  signal: AbortSignal | undefined;
  own: AbortController | undefined;
  /** Given up on (timeout/abort) while dispatched and cancellable: one notifications/cancelled due. */
  cancelDue: boolean;
}

const classOf = (e: unknown): Outcome => {
  for (const C of [TimeoutError, AbortError, ConnectionClosedError, JsonRpcError, ProtocolError, TransportError] as const) if (e instanceof C) return C.name as Outcome;
  return `unexpected ${String(e)}` as Outcome;
};

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

async function runModel(ops: Op[], http: boolean): Promise<void> {
  const t = new ScriptTransport(http);
  const conn = new Connection(t, { serverId: 'model', onDiagnostic: () => {} });
  const shared = [new AbortController(), new AbortController()];
  const reqs: ModelRequest[] = [];
  let closed = false;
  let nextId = 0;
  let now = performance.now();
  const pending = (): ModelRequest[] => reqs.filter((r) => r.expected === 'pending');
  const giveUp = (r: ModelRequest, outcome: Outcome): void => {
    r.expected = outcome;
    if (r.cancellable && r.dispatched) r.cancelDue = true;
  };

  for (const o of ops) {
    const pick = (k: number): ModelRequest | undefined => (reqs.length === 0 ? undefined : reqs[k % reqs.length]);
    switch (o.op) {
      case 'request': {
        const own = o.signal === 'own' ? new AbortController() : undefined;
        const signal = o.signal === 'none' ? undefined : own?.signal ?? shared[o.signal as number].signal;
        const maxTotalMs = o.extraTotal === undefined ? o.timeoutMs * 10 : o.timeoutMs + o.extraTotal;
        const r: ModelRequest = {
          id: undefined, expected: 'pending', actual: 'pending', settleCount: 0, dispatched: !http, cancellable: o.cancellable,
          sentAt: now, timeoutMs: o.timeoutMs, maxTotalMs, deadline: now + o.timeoutMs, reset: o.reset, progressWanted: o.progress,
          progressSeen: 0, progressCalls: 0, progressWhilePending: 0, token: undefined, signal, own, cancelDue: false,
        };
        const sentBefore = t.sent.length;
        // the connection numbers the requests it accepts (not closed, signal not aborted) 1, 2, 3…
        const id = !closed && !signal?.aborted ? ++nextId : undefined;
        if (o.throws && id !== undefined) t.throwOnSend.add(id);
        if (closed) r.expected = 'ConnectionClosedError';
        else if (signal?.aborted) r.expected = 'AbortError';
        else if (o.throws) r.expected = 'ProtocolError';
        reqs.push(r);
        const p = conn.request('tools/call', { name: 'x' }, {
          timeoutMs: o.timeoutMs,
          maxTotalTimeoutMs: maxTotalMs,
          signal,
          cancellable: o.cancellable,
          resetTimeoutOnProgress: o.reset,
          progressIntervalMs: 0,
          onProgress: o.progress ? () => r.progressCalls++ : undefined,
        });
        p.then(
          () => {
            r.settleCount++;
            r.actual = 'result';
          },
          (e: unknown) => {
            r.settleCount++;
            r.actual = classOf(e);
          },
        );
        if (t.sent.length > sentBefore) {
          const m = t.sent[t.sent.length - 1] as { id: RequestId; params: { _meta?: { progressToken?: string } } };
          r.id = m.id;
          expect(m.id).toBe(id);
          r.token = m.params._meta?.progressToken;
        }
        break;
      }
      case 'result':
      case 'error': {
        const r = pick(o.k);
        if (r?.id === undefined) break;
        if (r.expected === 'pending' && !closed) r.expected = o.op === 'result' ? 'result' : 'JsonRpcError';
        t.deliver(r.id, o.op === 'result' ? { jsonrpc: '2.0', id: r.id, result: { ok: true } } : { jsonrpc: '2.0', id: r.id, error: { code: -32000, message: 'no' } });
        break;
      }
      case 'unreadable': {
        const r = pick(o.k);
        if (r?.id === undefined || closed) break;
        if (r.expected === 'pending') r.expected = 'ProtocolError';
        t.ondiagnostic?.({ code: 'MCPWIRE_FRAME_OVERSIZED', message: 'too big', responseToId: r.id });
        break;
      }
      case 'progress': {
        const r = pick(o.k);
        if (r?.id === undefined || closed || r.token === undefined) break;
        r.progressSeen++;
        if (r.expected === 'pending') {
          r.progressWhilePending++;
          if (r.reset) {
            const remainingTotal = r.maxTotalMs - (now - r.sentAt);
            r.deadline = remainingTotal >= r.timeoutMs ? now + r.timeoutMs : now + Math.max(0, remainingTotal);
          }
        }
        t.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: r.token, progress: r.progressSeen } });
        break;
      }
      case 'dispatch': {
        const r = pick(o.k);
        if (r?.id === undefined || !http || closed) break;
        if (t.held.has(r.id) && r.expected === 'pending') r.dispatched = true;
        t.dispatch(r.id);
        break;
      }
      case 'failPost': {
        const r = pick(o.k);
        if (r?.id === undefined || !http || closed) break;
        if (t.held.has(r.id) && r.expected === 'pending') r.expected = 'TransportError';
        t.failPost(r.id);
        break;
      }
      case 'abortOwn': {
        const r = pick(o.k);
        if (r?.own === undefined) break;
        if (r.expected === 'pending' && !r.own.signal.aborted) giveUp(r, 'AbortError');
        r.own.abort();
        break;
      }
      case 'abortShared': {
        const c = shared[o.s];
        if (!c.signal.aborted) for (const r of pending()) if (r.signal === c.signal) giveUp(r, 'AbortError');
        c.abort();
        break;
      }
      case 'advance': {
        now += o.ms;
        // timeouts: everything due by now, in deadline order (order does not change outcomes here)
        for (const r of pending()) if (r.id !== undefined && r.deadline <= now) giveUp(r, 'TimeoutError');
        vi.advanceTimersByTime(o.ms);
        break;
      }
      case 'unknownResponse':
        if (!closed) t.notify({ jsonrpc: '2.0', id: o.id, result: {} });
        break;
      case 'close':
        if (!closed) for (const r of pending()) r.expected = 'ConnectionClosedError';
        closed = true;
        await conn.close();
        break;
    }
    await flush();
    // ---- invariants after every step
    for (const r of reqs) {
      expect(r.actual, `request ${String(r.id)} after ${o.op}`).toBe(r.expected);
      expect(r.settleCount).toBe(r.expected === 'pending' ? 0 : 1);
    }
    expect(conn.pendingCount).toBe(pending().length);
  }

  // ---- the end: everything settles, nothing remains
  await conn.close();
  await flush();
  for (const r of reqs) {
    if (r.expected === 'pending') r.expected = 'ConnectionClosedError';
    expect(r.actual).toBe(r.expected);
    expect(r.settleCount).toBe(1);
    expect(r.progressCalls).toBe(r.progressWanted ? r.progressWhilePending : 0);
  }
  expect(conn.pendingCount).toBe(0);
  expect(vi.getTimerCount()).toBe(0);
  for (const c of shared) expect(getEventListeners(c.signal, 'abort')).toHaveLength(0);
  for (const r of reqs) if (r.own !== undefined) expect(getEventListeners(r.own.signal, 'abort')).toHaveLength(0);
  // notifications/cancelled: exactly the given-up, dispatched, cancellable requests, once each
  const cancelled = t.sent.filter((m) => m.method === 'notifications/cancelled').map((m) => (m.params as { requestId: RequestId }).requestId);
  const due = reqs.filter((r) => r.cancelDue).map((r) => r.id);
  expect([...cancelled].sort()).toEqual([...due].sort());
  const sentIds = new Set(t.sent.filter((m) => 'id' in m && 'method' in m).map((m) => m.id));
  for (const id of cancelled) expect(sentIds.has(id)).toBe(true);
}

describe('model: request registry and Connection', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stdio-like transport: random interleavings settle every request exactly once as the model says; pendingCount follows; no timer/listener left; cancelled only for dispatched requests given up on', async () => {
    await fuzzAsync('model registry (stdio-like)', 700, fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => runModel(ops, false));
  });

  it('HTTP-like transport (dispatch later, POST may fail): the same, and a request given up on before its POST started gets no notifications/cancelled', async () => {
    await fuzzAsync('model registry (http-like)', 700, fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => runModel(ops, true));
  });
});
