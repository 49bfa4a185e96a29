/**
 * The NDJSON line writer both stdio ends use (the client's stdin to its server, the gateway's
 * stdout): the lines of one tick in one write, backpressure through 'drain', nothing after end.
 * Real node:stream Writables stand for the pipe (basic.transports#3: one message per line).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineWriter } from '../../src/transport/line-writer.js';

/** A Writable that records each write; `hold` keeps write callbacks until `release()`. */
function sink(options: { highWaterMark?: number; hold?: boolean } = {}) {
  const writes: string[] = [];
  const held: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      writes.push(String(chunk));
      if (options.hold === true) held.push(() => cb());
      else cb();
    },
  });
  return { stream, writes, release: () => held.splice(0).forEach((cb) => cb()) };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('LineWriter', () => {
  it('writes every line sent in one tick with one write, and a later tick with another', async () => {
    const s = sink();
    const w = new LineWriter(s.stream);
    void w.send({ jsonrpc: '2.0', id: 1, result: {} });
    void w.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
    void w.send({}, '{"jsonrpc":"2.0","id":2,"result":{"text":"as given"}}');
    expect(s.writes).toEqual([]); // nothing written before the tick's promise jobs have run
    await tick();
    expect(s.writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n{"jsonrpc":"2.0","id":2,"result":{"text":"as given"}}\n',
    ]);
    void w.send({ jsonrpc: '2.0', id: 3, result: {} });
    await tick();
    expect(s.writes).toHaveLength(2);
    expect(s.writes[1]).toBe('{"jsonrpc":"2.0","id":3,"result":{}}\n');
  });

  it('makes senders wait for drain while the stream is over its mark, then lets them all go', async () => {
    const s = sink({ highWaterMark: 8, hold: true });
    const w = new LineWriter(s.stream);
    await w.send({ jsonrpc: '2.0', id: 1, result: { big: 'x'.repeat(64) } }); // accepted, then the stream is full
    await tick();
    let settled = 0;
    const waiting = [w.send({ jsonrpc: '2.0', id: 2, result: {} }), w.send({ jsonrpc: '2.0', id: 3, result: {} })].map((p) => p.then(() => settled++));
    await tick();
    expect(settled).toBe(0);
    s.release(); // the first write completes: the stream drains
    await tick();
    s.release();
    await Promise.all(waiting);
    expect(settled).toBe(2);
    expect(s.writes.join('')).toContain('"id":3');
  });

  it('end() writes what is queued, drops later lines and writes nothing to a destroyed stream', async () => {
    const s = sink();
    const w = new LineWriter(s.stream);
    void w.send({ jsonrpc: '2.0', id: 1, result: {} });
    w.end();
    expect(s.writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    await w.send({ jsonrpc: '2.0', id: 2, result: {} });
    await tick();
    expect(s.writes).toHaveLength(1);

    const gone = sink();
    const w2 = new LineWriter(gone.stream);
    gone.stream.destroy();
    void w2.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    expect(gone.writes).toEqual([]);
  });
});
