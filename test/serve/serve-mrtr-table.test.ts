// clauses: 2026-07-28
/**
 * The gateway's held calls in process (src/serve/input-rounds.ts, held-call.ts, input-call.ts),
 * on fake timers: the table's bound and TTL, what expiry and cancellation leave behind, and the
 * state's checks without a downstream server.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonRpcError } from '../../src/errors.js';
import type { CallSink, HeldCall } from '../../src/serve/held-call.js';
import { withInputRounds } from '../../src/serve/input-call.js';
import { InputRounds, requestIdentity } from '../../src/serve/input-rounds.js';

const sink: CallSink = { progress: () => {}, log: () => {} };
const ELICIT = { message: 'Name?', requestedSchema: { type: 'object', properties: {} } };
const params = (more: Record<string, unknown> = {}) => ({ name: 'tool', arguments: { a: 1 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }, ...more });

/** A downstream call that asks `method` and returns what it was answered. */
function asking(method: string, seen: { call?: HeldCall; error?: unknown }): (call: HeldCall) => Promise<Record<string, unknown>> {
  return async (call) => {
    seen.call = call;
    try {
      const answer = await call.ask(method, ELICIT, call.controller.signal);
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    } catch (err) {
      seen.error = err;
      // The call's own end after it was cancelled (the host answers a cancelled call).
      await new Promise((r) => setTimeout(r, 0));
      return { content: [], isError: true };
    }
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

async function first(rounds: InputRounds, start: (call: HeldCall) => Promise<Record<string, unknown>>, signal = new AbortController().signal) {
  const p = withInputRounds(rounds, { method: 'tools/call', params: params(), caps: { elicitation: {} }, signal, sink }, start);
  await vi.advanceTimersByTimeAsync(rounds.coalesceMs);
  return p;
}

describe('held calls of 2026-07-28 clients', () => {
  // cites basic.patterns.mrtr#15: mcpwire serve is the server here: a client that never retries does not hold a call forever
  it('basic.patterns.mrtr#15: a call whose client does not come back within the TTL is cancelled: its input request fails, it leaves the table, its state is refused', async () => {
    const rounds = new InputRounds({ ttlMs: 1000 });
    const seen: { call?: HeldCall; error?: unknown } = {};
    const r = await first(rounds, asking('elicitation/create', seen));
    expect(r.resultType).toBe('input_required');
    expect(rounds.size).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(rounds.size).toBe(1);
    expect(seen.call!.controller.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(rounds.size).toBe(0);
    expect(seen.call!.controller.signal.aborted).toBe(true);
    expect(seen.error).toBeInstanceOf(JsonRpcError);
    expect(String((seen.error as Error).message)).toMatch(/within 1000 ms/);
    const late = withInputRounds(rounds, { method: 'tools/call', params: params({ requestState: r.requestState, inputResponses: {} }), caps: {}, signal: new AbortController().signal, sink }, () => {
      throw new Error('not started again');
    });
    await expect(late).rejects.toMatchObject({ rpcCode: -32602 });
  });

  it('the table is bounded: a call beyond maxHeld has its input request refused and goes on without it', async () => {
    const rounds = new InputRounds({ maxHeld: 1 });
    const a: { call?: HeldCall; error?: unknown } = {};
    const b: { call?: HeldCall; error?: unknown } = {};
    expect((await first(rounds, asking('elicitation/create', a))).resultType).toBe('input_required');
    const second = await first(rounds, asking('elicitation/create', b));
    expect(second).toMatchObject({ isError: true });
    expect(String((b.error as Error).message)).toMatch(/already holds 1 calls/);
    expect(rounds.size).toBe(1);
    rounds.close();
    expect(rounds.size).toBe(0);
    expect(a.call!.controller.signal.aborted).toBe(true);
  });

  it('a retry the client cancels cancels the held call (nothing is left waiting)', async () => {
    const rounds = new InputRounds();
    const seen: { call?: HeldCall; error?: unknown } = {};
    const r = await first(rounds, async (call) => {
      seen.call = call;
      await call.ask('elicitation/create', ELICIT, call.controller.signal);
      // a second round: the retry will wait for it
      await call.ask('elicitation/create', ELICIT, call.controller.signal).catch((e: unknown) => (seen.error = e));
      return { content: [] };
    });
    const key = Object.keys(r.inputRequests as object)[0]!;
    const cancel = new AbortController();
    const retry = withInputRounds(rounds, { method: 'tools/call', params: params({ requestState: r.requestState, inputResponses: { [key]: { action: 'decline' } } }), caps: {}, signal: cancel.signal, sink }, () => {
      throw new Error('not started again');
    });
    retry.catch(() => {});
    await vi.advanceTimersByTimeAsync(1);
    cancel.abort(new Error('cancelled by the client'));
    await expect(retry).rejects.toThrow('cancelled by the client');
    expect(seen.call!.controller.signal.aborted).toBe(true);
    expect(rounds.size).toBe(0);
  });

  // cites basic.patterns.mrtr#10: mcpwire serve is the server here: its requestState is bound to the originating request
  it("basic.patterns.mrtr#10: a request's identity is its method and salient params, whatever the key order, _meta or the retry's fields", () => {
    const a = requestIdentity('tools/call', { name: 't', arguments: { x: 1, y: [1, { b: 2, a: 1 }] } });
    const b = requestIdentity('tools/call', { arguments: { y: [1, { a: 1, b: 2 }], x: 1 }, name: 't', _meta: { other: true }, requestState: 's', inputResponses: {} });
    expect(a).toBe(b);
    expect(requestIdentity('tools/call', { name: 't', arguments: { x: 2 } })).not.toBe(a);
    expect(requestIdentity('prompts/get', { name: 't', arguments: { x: 1, y: [1, { b: 2, a: 1 }] } })).not.toBe(a);
  });
});
