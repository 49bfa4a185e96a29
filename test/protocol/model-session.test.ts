/**
 * Model-based test of the client's lifecycle: random interleavings of tool calls, responses (also
 * late ones), aborts, HTTP session expiry (every request in flight on the session answered 404),
 * a renewal that fails (the new initialize gets HTTP 500) and close, driven through `McpClient`
 * over a scripted HTTP-like transport (a fake server that holds calls until the test answers
 * them). Checked against a small model: every call settles exactly once; a call resolves only
 * if one of its wire requests was answered; after a renewal failure or close nothing stays
 * pending; `pendingCount` returns to 0; no timer and no abort listener remain;
 * `notifications/cancelled` names only requests that went out on the wire.
 */
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionClosedError, SessionExpiredError, TransportError } from '../../src/errors.js';
import type { JSONRPCMessage, RequestId } from '../../src/jsonrpc/types.js';
import { McpClient } from '../../src/mcp/client.js';
import type { Transport, TransportDiagnostic, TransportEvent } from '../../src/transport/types.js';
import { fuzzAsync } from '../support/fuzz.js';

vi.setConfig({ testTimeout: 180_000 });

interface Held {
  resolve: () => void;
  reject: (e: Error) => void;
  session: string | undefined;
}

/** An HTTP-like transport with a fake server behind it: sessions, 404 for an expired one, a failing initialize on demand. */
class FakeHttp implements Transport {
  readonly kind = 'fake-http';
  onmessage?: (m: unknown) => void;
  onclose?: (e?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  onsessionexpired?: (e: Error) => void;
  sessionId: string | undefined;
  readonly sent: Record<string, unknown>[] = [];
  /** tools/call requests on the wire, waiting for the test to answer them. */
  readonly held = new Map<RequestId, Held>();
  readonly expired = new Set<string>();
  failNextInitialize = false;
  private seq = 0;
  private closed = false;

  async start(): Promise<void> {}
  setProtocolVersion(): void {}
  resetSession(): void {
    this.sessionId = undefined;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('closed'));
    const m = message as unknown as Record<string, unknown>;
    this.sent.push(m);
    const id = m.id as RequestId | undefined;
    if (id === undefined) return Promise.resolve(); // notifications
    const session = this.sessionId;
    if (m.method === 'initialize') {
      return new Promise((resolve, reject) =>
        queueMicrotask(() => {
          if (this.closed) return reject(new ConnectionClosedError('closed'));
          if (this.failNextInitialize) {
            this.failNextInitialize = false;
            return reject(new TransportError('HTTP 500 on initialize', { status: 500 }));
          }
          this.sessionId = `session-${++this.seq}-abcdef`;
          const params = m.params as { protocolVersion: string };
          this.onmessage?.({ jsonrpc: '2.0', id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } } });
          resolve();
        }),
      );
    }
    if (session !== undefined && this.expired.has(session)) return Promise.reject(new SessionExpiredError(`HTTP 404: session ${session} not found`));
    if (m.method === 'tools/list') {
      return new Promise((resolve) =>
        queueMicrotask(() => {
          if (!this.closed) this.onmessage?.({ jsonrpc: '2.0', id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
          resolve();
        }),
      );
    }
    return new Promise((resolve, reject) => this.held.set(id, { resolve, reject, session }));
  }

  respond(id: RequestId): void {
    const h = this.held.get(id);
    if (h === undefined || this.closed) return;
    this.held.delete(id);
    this.onmessage?.({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `answer ${String(id)}` }] } });
    h.resolve();
  }

  /** The server forgets the current session: every call in flight on it gets 404. */
  expire(): void {
    const s = this.sessionId;
    if (s === undefined) return;
    this.expired.add(s);
    for (const [id, h] of [...this.held]) {
      if (h.session !== s) continue;
      this.held.delete(id);
      h.reject(new SessionExpiredError(`HTTP 404: session ${s} not found`));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.held.values()) h.reject(new ConnectionClosedError('closed'));
    this.held.clear();
    this.onclose?.();
  }
}

type Op =
  | { op: 'call'; abortable: boolean }
  | { op: 'respond'; k: number }
  | { op: 'abort'; k: number }
  | { op: 'expire'; renewalFails: boolean }
  | { op: 'close' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('call' as const), abortable: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('respond' as const), k: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('abort' as const), k: fc.nat(30) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('expire' as const), renewalFails: fc.boolean().map((b) => b && Math.random() < 0.3) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'close' as const }) },
);

interface Call {
  settled: number;
  outcome: 'pending' | 'result' | 'error';
  ctrl: AbortController | undefined;
  /** The wire ids of its tools/call requests (one, or more when replayed on a new session). */
  wireIds: RequestId[];
  answered: boolean;
}

/** What the runs exercised (asserted non-zero at the end, so the model cannot silently degenerate). */
const seen = { renewals: 0, failedRenewals: 0, replays: 0, results: 0, errors: 0, cancels: 0 };

const flush = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((r) => setImmediate(r));
};

async function runSession(ops: Op[]): Promise<void> {
  const t = new FakeHttp();
  const client = new McpClient({ transport: 'http', url: 'http://fake.invalid/mcp', id: 'model' }, { transport: t, timeoutMs: 600_000 });
  client.on('error', () => {});
  await client.connect();
  const calls: Call[] = [];
  let closed = false;
  let gone = false; // the client closed itself (renewal failed)
  client.on('close', () => (gone = true));
  /** Which call a wire id belongs to: the request's text names the call. */
  const owner = new Map<RequestId, Call>();
  const track = (): void => {
    for (const m of t.sent) {
      if (m.method !== 'tools/call' || owner.has(m.id as RequestId)) continue;
      const k = Number(((m.params as { arguments: { k: number } }).arguments).k);
      owner.set(m.id as RequestId, calls[k]);
      calls[k].wireIds.push(m.id as RequestId);
    }
  };

  for (const o of ops) {
    switch (o.op) {
      case 'call': {
        const c: Call = { settled: 0, outcome: 'pending', ctrl: o.abortable ? new AbortController() : undefined, wireIds: [], answered: false };
        const k = calls.length;
        calls.push(c);
        client.callTool('echo', { k }, { signal: c.ctrl?.signal, task: false }).then(
          () => {
            c.settled++;
            c.outcome = 'result';
          },
          () => {
            c.settled++;
            c.outcome = 'error';
          },
        );
        break;
      }
      case 'respond': {
        track();
        const c = calls.length === 0 ? undefined : calls[o.k % calls.length];
        const id = c?.wireIds.find((w) => t.held.has(w));
        if (c !== undefined && id !== undefined) {
          if (c.outcome === 'pending') c.answered = true;
          t.respond(id);
        }
        break;
      }
      case 'abort': {
        const c = calls.length === 0 ? undefined : calls[o.k % calls.length];
        c?.ctrl?.abort(new Error('caller gave up'));
        break;
      }
      case 'expire':
        if (o.renewalFails) t.failNextInitialize = true;
        t.expire();
        break;
      case 'close':
        closed = true;
        await client.close();
        break;
    }
    await flush();
    track();
    for (const c of calls) {
      expect(c.settled).toBeLessThanOrEqual(1);
      if (c.outcome === 'result') expect(c.answered).toBe(true);
      if ((closed || gone) && c.outcome === 'pending') expect.fail('a call still pending after the client closed');
    }
    if (closed || gone) expect(client.pendingCount).toBe(0);
  }

  const selfClosed = gone && !closed; // closed itself: a renewal failed
  await client.close();
  await flush();
  for (const c of calls) {
    expect(c.settled).toBe(1);
    if (c.outcome === 'result') expect(c.answered).toBe(true);
    if (c.ctrl !== undefined) expect(getEventListeners(c.ctrl.signal, 'abort')).toHaveLength(0);
  }
  expect(client.pendingCount).toBe(0);
  expect(vi.getTimerCount()).toBe(0);
  const inits = t.sent.filter((m) => m.method === 'initialize').length;
  seen.renewals += Math.max(0, inits - 1);
  if (selfClosed) seen.failedRenewals++;
  seen.replays += calls.filter((c) => c.wireIds.length > 1).length;
  seen.results += calls.filter((c) => c.outcome === 'result').length;
  seen.errors += calls.filter((c) => c.outcome === 'error').length;
  seen.cancels += t.sent.filter((m) => m.method === 'notifications/cancelled').length;
  const wire = new Set(t.sent.filter((m) => m.id !== undefined && m.method !== undefined).map((m) => m.id));
  for (const m of t.sent) if (m.method === 'notifications/cancelled') expect(wire.has((m.params as { requestId: RequestId }).requestId)).toBe(true);
}

describe('model: client lifecycle with session expiry and renewal failure', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('random calls, answers, aborts, session expiries, failed renewals and close: each call settles once, only answered calls resolve, nothing pending after close, no timer or listener left, cancels only for sent requests', async () => {
    await fuzzAsync('model client session lifecycle', 400, fc.array(opArb, { minLength: 1, maxLength: 30 }), (ops) => runSession(ops));
    console.log(`[model] exercised: ${JSON.stringify(seen)}`);
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });
});
