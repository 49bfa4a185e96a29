/**
 * A request's result read by the caller's `mapResult` where the request settles (a tool call's
 * checks, with no promise or async frame chained after the request's own): the caller's promise
 * settles in the same job as the response, a throw rejects it as thrown (not through mapError),
 * a promise is adopted, and no other way out runs it.
 */
import { describe, expect, it } from 'vitest';
import { JsonRpcError, TimeoutError } from '../../src/errors.js';
import { Connection } from '../../src/protocol/connection.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { Transport } from '../../src/transport/types.js';

/** A transport whose responses the test delivers by hand (synchronously, as a framer does). */
function manual() {
  const sent: Array<{ id: number; method: string }> = [];
  const transport: Transport = {
    kind: 'manual',
    start: async () => {},
    close: async () => {
      transport.onclose?.();
    },
    send: (m: JSONRPCMessage) => {
      sent.push(m as { id: number; method: string });
      return Promise.resolve();
    },
  };
  const conn = new Connection(transport, { serverId: 'manual' });
  const answer = (id: number, body: Record<string, unknown>): void => transport.onmessage?.({ jsonrpc: '2.0', id, ...body });
  return { conn, sent, answer };
}

class Mapped extends Error {}

describe('Connection.request mapResult', () => {
  it('the caller has the mapped result in the job right after the response: no promise hop in between', async () => {
    const { conn, sent, answer } = manual();
    let got: unknown;
    const p = conn.request('tools/call', { name: 'echo' }, {}, undefined, (r) => ({ checked: r }));
    void p.then((v) => (got = v));
    answer(sent[0]!.id, { result: { content: [] } });
    await null; // one job: the reaction queued by the response ran before this continuation
    expect(got).toEqual({ checked: { content: [] } });
    expect(conn.pendingCount).toBe(0);
  });

  it('a throw in mapResult rejects the request with that error, not through mapError', async () => {
    const { conn, sent, answer } = manual();
    const bad = new Error('malformed result');
    const p = conn.request('tools/call', undefined, {}, (e) => new Mapped(String(e)), () => {
      throw bad;
    });
    answer(sent[0]!.id, { result: {} });
    await expect(p).rejects.toBe(bad);
    expect(conn.pendingCount).toBe(0);
  });

  it('a promise from mapResult is adopted (fulfilled or rejected)', async () => {
    const { conn, sent, answer } = manual();
    const ok = conn.request('a', undefined, {}, undefined, async (r) => ({ later: r }));
    const no = conn.request('b', undefined, {}, undefined, async () => Promise.reject(new Mapped('late check')));
    answer(sent[0]!.id, { result: { x: 1 } });
    answer(sent[1]!.id, { result: {} });
    await expect(ok).resolves.toEqual({ later: { x: 1 } });
    await expect(no).rejects.toBeInstanceOf(Mapped);
  });

  it('an error response, a timeout and a close never run mapResult; mapError still reads their errors', async () => {
    const { conn, sent, answer } = manual();
    let ran = 0;
    const mapResult = (r: unknown): unknown => {
      ran++;
      return r;
    };
    const failed = conn.request('a', undefined, {}, (e) => new Mapped(String((e as Error).message)), mapResult).catch((e: unknown) => e);
    const timedOut = conn.request('b', undefined, { timeoutMs: 5 }, undefined, mapResult).catch((e: unknown) => e);
    const closed = conn.request('c', undefined, {}, undefined, mapResult).catch((e: unknown) => e);
    answer(sent[0]!.id, { error: { code: -32000, message: 'nope' } });
    expect(await failed).toBeInstanceOf(Mapped);
    expect(await timedOut).toBeInstanceOf(TimeoutError);
    await conn.close();
    expect(await closed).toBeInstanceOf(Error);
    expect(ran).toBe(0);
    // a late response to the timed-out request is dropped without running it either
    answer(sent[1]!.id, { result: {} });
    expect(ran).toBe(0);
    expect(conn.pendingCount).toBe(0);
  });

  it('without mapResult the result is handed on as received', async () => {
    const { conn, sent, answer } = manual();
    const p = conn.request('a');
    const result = { same: true };
    answer(sent[0]!.id, { result });
    await expect(p).resolves.toBe(result);
    const e = conn.request('b').catch((err: unknown) => err);
    answer(sent[1]!.id, { error: { code: -32601, message: 'no' } });
    expect(await e).toBeInstanceOf(JsonRpcError);
  });
});
