/**
 * Pairing answers with requests by HTTP exchange (the `exchange` number the HTTP tap writes on
 * every line of one exchange), on hand-written records and a recorder fed by hand: the request of
 * the answer's own exchange first, whatever the order answers come in; then by session and id
 * (an answer that came on another stream, a trace without exchanges) as before. The tap's
 * recorder names the right request's method; `trace show --follow`'s renderer the right latency.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/tap/recorder.js';
import { buildScript, createShowRenderer } from '../../src/tap/index.js';
import { pairExchanges, type TraceRecord } from '../../src/trace-api.js';
import type { Tracer } from '../../src/trace/tracer.js';

type Rec = Record<string, any>;
let clock = 0;
function msg(dir: 'in' | 'out', kind: string, id: unknown, fields: Rec = {}): TraceRecord {
  const { t, ...rest } = fields;
  return { v: 1, t: t ?? ++clock, ts: '2026-07-28T10:00:00.000Z', server: 's', transport: 'http-tap', dir, kind, id, bytes: 1, msg: { jsonrpc: '2.0', id }, ...rest } as unknown as TraceRecord;
}
const pairs = (records: TraceRecord[]) => pairExchanges(records).exchanges.map((e) => [(e.request as Rec).tag, (e.response as Rec | undefined)?.tag]);

describe('pairing by HTTP exchange', () => {
  it('two sessionless requests #1 in two exchanges: each answer goes to its own exchange, in either order', () => {
    const a = msg('out', 'request', 1, { method: 'tools/call', exchange: 1, tag: 'qa' });
    const b = msg('out', 'request', 1, { method: 'tools/list', exchange: 2, tag: 'qb' });
    const ra = msg('in', 'result', 1, { exchange: 1, tag: 'ra' });
    const rb = msg('in', 'result', 1, { exchange: 2, tag: 'rb' });
    expect(pairs([a, b, ra, rb])).toEqual([['qa', 'ra'], ['qb', 'rb']]);
    expect(pairs([a, b, rb, ra])).toEqual([['qa', 'ra'], ['qb', 'rb']]);
  });

  it('two initialize #0 before either session exists: each answer (with its new session) goes to its own exchange', () => {
    const a = msg('out', 'request', 0, { method: 'initialize', exchange: 1, tag: 'qa' });
    const b = msg('out', 'request', 0, { method: 'initialize', exchange: 2, tag: 'qb' });
    const rb = msg('in', 'result', 0, { exchange: 2, session: 'sha256:bbbbbbbb', tag: 'rb' });
    const ra = msg('in', 'result', 0, { exchange: 1, session: 'sha256:aaaaaaaa', tag: 'ra' });
    expect(pairs([a, b, rb, ra])).toEqual([['qa', 'ra'], ['qb', 'rb']]);
    expect(pairs([a, b, ra, rb])).toEqual([['qa', 'ra'], ['qb', 'rb']]);
  });

  it('an answer on another stream (legacy SSE: POST in one exchange, answer on the GET stream) pairs by session and id', () => {
    const q = msg('out', 'request', 5, { method: 'ping', exchange: 3, session: 'sha256:cccccccc', tag: 'q' });
    const r = msg('in', 'result', 5, { exchange: 1, session: 'sha256:cccccccc', tag: 'r' });
    expect(pairs([q, r])).toEqual([['q', 'r']]);
  });

  it('a trace without exchanges pairs as before: by session and id, a reused id with the request sent last', () => {
    const q1 = msg('out', 'request', 7, { method: 'ping', tag: 'q1' });
    const q2 = msg('out', 'request', 7, { method: 'ping', tag: 'q2' });
    const r = msg('in', 'result', 7, { tag: 'r' });
    expect(pairs([q1, q2, r])).toEqual([['q1', undefined], ['q2', 'r']]);
  });

  it("the live renderer (trace show --follow) gives each answer its own request's latency", () => {
    const render = createShowRenderer();
    const lines = [
      msg('out', 'request', 1, { method: 'tools/call', exchange: 1, t: 1 }),
      msg('out', 'request', 1, { method: 'tools/call', exchange: 2, t: 2 }),
      msg('in', 'result', 1, { exchange: 1, t: 5 }),
      msg('in', 'result', 1, { exchange: 2, t: 11 }),
    ].map(render);
    expect(lines[2]).toContain('4.000 ms');
    expect(lines[3]).toContain('9.000 ms');
  });

  it('a replay script gives each request the notifications of its own stream, though both used progress token 1', () => {
    const call = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'progress', arguments: { text }, _meta: { progressToken: 1 } } });
    const progress = (message: string) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message } });
    const script = buildScript([
      msg('out', 'request', 1, { method: 'tools/call', exchange: 1, msg: call(1, 'a') }),
      msg('out', 'request', 1, { method: 'tools/call', exchange: 2, msg: call(1, 'b') }),
      msg('in', 'notification', undefined, { method: 'notifications/progress', exchange: 2, msg: progress('b') }),
      msg('in', 'notification', undefined, { method: 'notifications/progress', exchange: 1, msg: progress('a') }),
      msg('in', 'result', 1, { exchange: 2, msg: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'b' }] } } }),
      msg('in', 'result', 1, { exchange: 1, msg: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }] } } }),
    ]);
    expect(script.exchanges.map((e) => [(e.params as Rec).arguments.text, e.before.map((b) => b.msg.params).map((p) => (p as Rec).message), (e.response as Rec).result.content[0].text])).toEqual([
      ['a', ['a'], 'a'],
      ['b', ['b'], 'b'],
    ]);
  });

  it("the tap's recorder: an answer names the method of its own exchange's request, and every line carries the exchange", () => {
    const written: Rec[] = [];
    let exchange: number | undefined;
    const tracer = {
      message: (dir: string, _m: unknown, info: Rec) => written.push({ dir, exchange, ...info }),
      event: () => {},
      setSessionId: () => {},
      setExchange: (id: number | undefined) => (exchange = id),
      addSecrets: () => {},
      flush: async () => {},
      close: async () => {},
    } as unknown as Tracer;
    const rec = new Recorder(tracer);
    rec.setExchange(1);
    rec.text('out', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}');
    rec.setExchange(2);
    rec.text('out', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    rec.setExchange(1);
    rec.text('in', '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}');
    rec.setExchange(2);
    rec.text('in', '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}');
    expect(written.map((w) => [w.dir, w.exchange, w.method ?? w.requestMethod])).toEqual([
      ['out', 1, 'tools/call'],
      ['out', 2, 'tools/list'],
      ['in', 1, 'tools/call'],
      ['in', 2, 'tools/list'],
    ]);
  });
});
