/**
 * A request's error read by the caller's `mapError` where the request settles (the client's era
 * errors, with no promise chained after the request's own): every way a request fails goes
 * through it, and a result does not.
 */
import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../../src/errors.js';
import { Connection } from '../../src/protocol/connection.js';
import { createMemoryPair } from '../../src/transport/memory.js';

class Mapped extends Error {
  constructor(readonly original: unknown) {
    super('mapped');
  }
}
const mapError = (err: unknown): unknown => new Mapped(err);

function pair() {
  const [c, s] = createMemoryPair();
  s.onmessage = (m) => {
    const msg = m as { id?: number; method?: string };
    if (msg.id === undefined) return;
    if (msg.method === 'fail') void s.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32042, message: 'needs a URL' } });
    else if (msg.method === 'ok') void s.send({ jsonrpc: '2.0', id: msg.id, result: { fine: true } });
  };
  return new Connection(c, { serverId: 'mem' });
}

describe('Connection.request mapError', () => {
  it('an error response reaches the caller as mapError makes it; a result is untouched', async () => {
    const conn = pair();
    const err = await conn.request('fail', undefined, {}, mapError).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Mapped);
    expect((err as Mapped).original).toBeInstanceOf(JsonRpcError);
    expect(((err as Mapped).original as JsonRpcError).rpcCode).toBe(-32042);
    await expect(conn.request('ok', undefined, {}, mapError)).resolves.toEqual({ fine: true });
    await conn.close();
    expect(conn.pendingCount).toBe(0);
  });

  it('timeouts, aborts, close and refusals before registration are mapped too, each request settled once', async () => {
    const conn = pair();
    const timedOut = conn.request('silent', undefined, { timeoutMs: 5 }, mapError).catch((e: unknown) => e);
    const ac = new AbortController();
    const aborted = conn.request('silent', undefined, { signal: ac.signal }, mapError).catch((e: unknown) => e);
    const closed = conn.request('silent', undefined, {}, mapError).catch((e: unknown) => e);
    const pre = conn.request('silent', undefined, { signal: AbortSignal.abort('early') }, mapError).catch((e: unknown) => e);
    ac.abort('stop');
    expect(await aborted).toBeInstanceOf(Mapped);
    expect(await pre).toBeInstanceOf(Mapped);
    expect(await timedOut).toBeInstanceOf(Mapped);
    await conn.close();
    expect(await closed).toBeInstanceOf(Mapped);
    expect(await conn.request('after', undefined, {}, mapError).catch((e: unknown) => e)).toBeInstanceOf(Mapped);
    expect(conn.pendingCount).toBe(0);
  });

  it('without mapError the error is the engine’s own', async () => {
    const conn = pair();
    await expect(conn.request('fail')).rejects.toBeInstanceOf(JsonRpcError);
    await conn.close();
  });
});
