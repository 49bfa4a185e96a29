/**
 * Tracing cheap enough to leave on: the tracer writes a message's own JSON text —
 * the string the transport writes, or the text it read — instead of serializing the message
 * again, straight into its batch buffer. What that must not change: the line's fields and bytes,
 * redaction (a peer's text may hold more than the parsed message: repeated members, spacing), and
 * lines that stay whole across batches and tracers sharing a file.
 */
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/protocol/connection.js';
import type { MessageInfo } from '../../src/protocol/observer.js';
import { createTracer } from '../../src/trace/index.js';
import { sessionTag } from '../../src/trace/session-tag.js';
import { isPlainMillis, putBytesField, putFixed3, putLatencyField, putLineStart, putMillis3, putMsgField, putUint } from '../../src/trace/line-bytes.js';
import { TRACE_FORMAT_VERSION } from '../../src/trace/record.js';
import { millis3 } from '../../src/trace/tracer.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { SendOptions, Transport } from '../../src/transport/types.js';
import { fuzz } from '../support/fuzz.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-fast-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function records(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('trace fast path: the message text is the line', () => {
  it('a line written from the text has the fields, order and bytes of one written from the message', async () => {
    const a = join(dir, 'with-text.jsonl');
    const b = join(dir, 'without-text.jsonl');
    const ta = await createTracer({ file: a, serverId: 'srv', transport: 'stdio' });
    const tb = await createTracer({ file: b, serverId: 'srv', transport: 'stdio' });
    const msgs: [('in' | 'out'), unknown, MessageInfo][] = [
      ['out', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo 🎉 "q"\n' } } }, { kind: 'request', method: 'tools/call', id: 1 }],
      ['in', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }], n: [0, -0, 1.5, 1e21, -3] } }, { kind: 'result', id: 1, latencyMs: 0.5004, requestMethod: 'tools/call' }],
      ['in', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { a: null, b: true } } }, { kind: 'notification', method: 'notifications/message' }],
      ['in', { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'nope' } }, { kind: 'error', id: 9, latencyMs: 12, requestMethod: 'x/y' }],
      ['out', { jsonrpc: '2.0', id: 'str-id', result: {} }, { kind: 'result', id: 'str-id' }],
      ['in', { jsonrpc: '2.0', id: 3, method: 'roots/list' }, { kind: 'request', method: 'roots/list', id: 3 }],
    ];
    for (const [dirn, m, info] of msgs) {
      ta.message(dirn, m, { ...info, text: JSON.stringify(m) });
      tb.message(dirn, m, info);
    }
    await ta.close();
    await tb.close();
    const ra = records(a).filter((r) => r.msg !== undefined);
    const rb = records(b).filter((r) => r.msg !== undefined);
    expect(ra).toHaveLength(msgs.length);
    for (let i = 0; i < ra.length; i++) {
      const { t: _t1, ts: _s1, ...x } = ra[i];
      const { t: _t2, ts: _s2, ...y } = rb[i];
      expect(Object.keys(ra[i])).toEqual(Object.keys(rb[i]));
      expect(x).toEqual(y);
      expect(x.bytes).toBe(Buffer.byteLength(JSON.stringify(msgs[i][1])));
    }
    // the text went in as it is
    expect(readFileSync(a, 'utf8')).toContain(`,"msg":${JSON.stringify(msgs[0][1])}}\n`);
  });

  it('a peer text longer than its parsed message (spacing, a repeated member hiding a credential) is not written: the message is', async () => {
    const file = join(dir, 'peer-text.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    const hidden = '{"jsonrpc":"2.0","id":7,"result":{"access_token":"hunter2-hidden-value","access_token":null}}';
    t.message('in', JSON.parse(hidden), { kind: 'result', id: 7, text: hidden });
    const spaced = '{ "jsonrpc": "2.0", "id": 8, "result": {} }';
    t.message('in', JSON.parse(spaced), { kind: 'result', id: 8, text: spaced });
    await t.close();
    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toContain('hunter2-hidden-value');
    const [r7, r8] = records(file).filter((r) => r.msg !== undefined);
    expect(r7.msg).toEqual({ jsonrpc: '2.0', id: 7, result: { access_token: null } });
    expect(r7.bytes).toBe(Buffer.byteLength(JSON.stringify(r7.msg)));
    expect(raw).toContain(',"msg":{"jsonrpc":"2.0","id":8,"result":{}}}');
  });

  it('a configured secret in a repeated member of the text is caught even when shorter numbers make the text as long as the parsed message', async () => {
    const secret = 'sk-live-ABCDEFGHIJ';
    // `"a":"<secret>",` is 25 characters more than the parsed value's JSON; 1e20, 1e9 and 1e3 are
    // 17, 7 and 1 shorter than JSON's 100000000000000000000, 1000000000 and 1000.
    const text = `{"jsonrpc":"2.0","id":5,"result":{"a":"${secret}","a":0,"n":[1e20,1e9,1e3]}}`;
    const parsed = JSON.parse(text) as unknown;
    expect(JSON.stringify(parsed).length).toBe(text.length); // the case this test is about
    const file = join(dir, 'secret-hidden.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio', secrets: [secret] });
    t.message('in', parsed, { kind: 'result', id: 5, text });
    await t.close();
    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toContain(secret);
    expect(records(file).find((r) => r.id === 5)?.msg).toEqual(parsed);
  });

  it('a credential-named member repeated in the text is not written even when shorter numbers make the text as long as the parsed message', async () => {
    // No configured secret: only the key names the value a credential. The first member is
    // dropped by JSON.parse (the last `access_token` wins, a number, which is not redacted); the
    // numbers are written shorter than JSON.stringify writes them, so the lengths match.
    const file = join(dir, 'key-hidden.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    const cases: string[] = [];
    // integers with trailing zeros: below 1e9 (1e8 is 6 shorter than its digits), and above
    // (1e20, 1e17: 17, 14)
    cases.push('{"jsonrpc":"2.0","id":5,"result":{"access_token":"peer-credential-A1","access_token":0,"n":[1e8,1e8,1e8,1e8,1e8,1e8]}}');
    cases.push('{"jsonrpc":"2.0","id":5,"result":{"api_key":"peer-credential-A2","api_key":0,"n":[1e20,1e17]}}');
    // small fractions (JSON writes 1e-5 as 0.00001)
    cases.push('{"jsonrpc":"2.0","id":6,"result":{"password":"peer-credential-B2","password":1,"n":[1e-5,2e-6,3e-4,4e-5,5e-6,1e-4,2e-5,3e-6,1e-5,1e-6]}}');
    // beyond 1e21 JSON writes `1e+21`
    cases.push('{"jsonrpc":"2.0","id":7,"result":{"secret":"peer-credential-C3","secret":2,"n":[1e21,2e22,3e23,4e24,5e25,6e26,7e27,8e28,9e29,1e30,2e31,3e32,4e33,5e34,6e35,7e36,8e37,9e38,1e39,2e40,3e41,4e42,5e43,6e44,7e45,8e46,9e47,1e48,2e49,3e50]}}');
    // lone surrogates held raw (JSON.stringify writes each as \udXXX: 5 more), in a string and in
    // a key (the one space after `"token":` makes the 29 characters of the repeated member 30)
    const lone = '\ud800';
    cases.push(`{"jsonrpc":"2.0","id":8,"result":{"token":"peer-credential-D4","token": 3,"s":"${lone.repeat(6)}"}}`);
    cases.push(`{"jsonrpc":"2.0","id":9,"result":{"token":"peer-credential-E5","token": 3,"${lone.repeat(6)}":0}}`);
    const parsedLengths: number[] = [];
    for (const [i, text] of cases.entries()) {
      const parsed = JSON.parse(text) as unknown;
      parsedLengths.push(JSON.stringify(parsed).length - text.length);
      t.message('in', parsed, { kind: 'result', id: 5 + i, text });
    }
    await t.close();
    expect(parsedLengths).toEqual([0, 0, 0, 0, 0, 0]); // the cases this test is about
    const raw = readFileSync(file, 'utf8');
    for (const s of ['peer-credential-A1', 'peer-credential-A2', 'peer-credential-B2', 'peer-credential-C3', 'peer-credential-D4', 'peer-credential-E5']) expect(raw).not.toContain(s);
    const lines = records(file).filter((r) => r.msg !== undefined);
    expect(lines.map((r) => r.msg)).toEqual(cases.map((c) => JSON.parse(c)));
  });

  it('what the redaction changes is redacted on this path too (credential keys, Bearer in text, configured secrets)', async () => {
    const file = join(dir, 'redacted.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio', secrets: ['my-configured-secret'] });
    const ms = [
      { jsonrpc: '2.0', id: 1, result: { token: 'tok-value-123456' } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Authorization: Bearer abcdefghijkl' }] } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'echo my-configured-secret' }] } },
    ];
    for (const m of ms) t.message('in', m, { kind: 'result', id: m.id, text: JSON.stringify(m) });
    await t.close();
    const raw = readFileSync(file, 'utf8');
    for (const s of ['tok-value-123456', 'abcdefghijkl', 'my-configured-secret']) expect(raw).not.toContain(s);
    expect(raw.match(/\[redacted\]/g)).toHaveLength(3);
  });

  it('lines stay whole across many batches (buffers filled again) and between two tracers sharing the file', async () => {
    const file = join(dir, 'batches.jsonl');
    const t1 = await createTracer({ file, serverId: 'one', transport: 'stdio' });
    const t2 = await createTracer({ file, serverId: 'two', transport: 'stdio' });
    const pad = 'x'.repeat(700);
    const n = 3000; // ~2.5 MB: about 40 batches
    for (let i = 1; i <= n; i++) {
      const m = { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `${i}:${pad}` }] } };
      (i % 2 === 0 ? t1 : t2).message('in', m, { kind: 'result', id: i, text: JSON.stringify(m), latencyMs: i / 7 });
      if (i % 500 === 0) await new Promise((r) => setImmediate(r));
    }
    await t1.close();
    await t2.close();
    const recs = records(file).filter((r) => r.kind === 'result');
    expect(recs.map((r) => r.id)).toEqual(Array.from({ length: n }, (_, k) => k + 1));
    for (const r of recs) {
      const id = r.id as number;
      expect(r.server).toBe(id % 2 === 0 ? 'one' : 'two');
      expect(((r.msg as { result: { content: { text: string }[] } }).result.content[0].text)).toBe(`${id}:${pad}`);
      expect(r.latency_ms).toBe(Math.round((id / 7) * 1000) / 1000);
    }
  });

  it('a full batch is written in the check phase of the turn that filled it (off the line that filled it), and one turn keeps at most a buffer pending', async () => {
    const file = join(dir, 'batch-soon.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    await t.flush();
    const start = statSync(file).size;
    const pad = 'y'.repeat(900);
    let id = 0;
    const line = () => {
      const m = { jsonrpc: '2.0', id: ++id, result: { content: [{ type: 'text', text: pad }] } };
      t.message('in', m, { kind: 'result', id, text: JSON.stringify(m), latencyMs: 1 });
    };
    for (let i = 0; i < 80; i++) line(); // ~80 KB: past a batch (64 KiB), within the buffer (128 KiB)
    expect(statSync(file).size).toBe(start);
    await new Promise((r) => setImmediate(r));
    expect(statSync(file).size - start).toBeGreaterThan(64 * 1024);
    const before = statSync(file).size;
    for (let i = 0; i < 400; i++) line(); // ~400 KB in one turn: written as the buffer fills
    expect(statSync(file).size - before).toBeGreaterThan(400 * 1000 - 128 * 1024);
    await t.close();
    expect(records(file).filter((r) => r.kind === 'result').map((r) => r.id)).toEqual(Array.from({ length: id }, (_, k) => k + 1));
  });

  it('each line names its own method, id and session while methods alternate, with and without ids, and after the session changes', async () => {
    const file = join(dir, 'segments.jsonl');
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio' });
    // the last method of each round is the first of the next: the same segment asked for across the change
    const methods = ['tools/call', 'resources/read', 'tools/call', 'tools/call', 'prompts/get', 'tools/call'];
    const send = (i: number, method: string) => {
      const req = { jsonrpc: '2.0', id: i, method, params: {} };
      t.message('out', req, { kind: 'request', method, id: i, text: JSON.stringify(req) });
      const note = { jsonrpc: '2.0', method: `${method}/note` };
      t.message('out', note, { kind: 'notification', method: note.method, text: JSON.stringify(note) });
    };
    let i = 0;
    for (const method of methods) send(++i, method);
    t.setSessionId('session-one');
    for (const method of methods) send(++i, method);
    t.setSessionId(undefined);
    for (const method of methods) send(++i, method);
    await t.close();
    const recs = records(file).filter((r) => r.dir === 'out');
    expect(recs).toHaveLength(6 * methods.length);
    const expected = [undefined, 'session-one', undefined];
    for (let k = 0; k < recs.length; k += 2) {
      const n = k / 2;
      const method = methods[n % methods.length];
      const session = expected[Math.floor(n / methods.length)];
      expect(recs[k]).toMatchObject({ kind: 'request', method, id: n + 1 });
      expect(recs[k + 1]).toMatchObject({ kind: 'notification', method: `${method}/note` });
      expect(recs[k + 1].id).toBeUndefined();
      for (const r of [recs[k], recs[k + 1]]) {
        if (session === undefined) expect(r.session).toBeUndefined();
        else expect(r.session).toBe(sessionTag(session));
      }
    }
  });

  it('the connection serializes a traced message once: the observer and the transport get the same text', async () => {
    const sent: { message: JSONRPCMessage; serialized?: string }[] = [];
    const transport: Transport = {
      kind: 'memory',
      start: async () => {},
      close: async () => {},
      send: (message: JSONRPCMessage, options?: SendOptions) => {
        sent.push({ message, serialized: options?.serialized });
        return Promise.resolve();
      },
    };
    const seen: { text?: string; kind: string }[] = [];
    const conn = new Connection(transport, { observer: { message: (_d, _m, info) => seen.push({ text: info.text, kind: info.kind }), event: () => {} } });
    const pending = conn.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    await conn.notify('notifications/initialized');
    transport.onmessage?.({ jsonrpc: '2.0', id: 1, result: { ok: true } }, undefined, '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}');
    await expect(pending).resolves.toEqual({ ok: true });
    expect(sent).toHaveLength(2);
    for (const s of sent) expect(s.serialized).toBe(JSON.stringify(s.message));
    expect(seen.map((s) => s.text)).toEqual([sent[0].serialized, sent[1].serialized, '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}']);
    await conn.close();
  });
});

describe('trace fast path: numbers written as digits', () => {
  const buf = Buffer.alloc(64);
  const text = (f: (b: Uint8Array, p: number) => number): string => buf.toString('latin1', 0, f(buf, 0));

  it('putUint, putFixed3, putMillis3 and millis3 write what String / toFixed write', () => {
    fuzz('line-bytes: putUint ≡ String', 5_000, fc.oneof(fc.nat(), fc.maxSafeNat(), fc.constantFrom(0, 9, 10, 99, 100, 1e15, Number.MAX_SAFE_INTEGER)), (n) => {
      expect(text((b, p) => putUint(b, p, n))).toBe(String(n));
    });
    const ms = fc.oneof(fc.double({ min: 0, max: 1e12 - 1, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), fc.constantFrom(0, 0.0005, 0.0015, 999.9995, 1.1, 10.01, 5e-324));
    fuzz('line-bytes: putFixed3 ≡ toFixed(3), putMillis3 ≡ String(round3)', 5_000, ms, (x) => {
      expect(isPlainMillis(x)).toBe(true);
      const expected = Math.round(x * 1000) / 1000;
      expect(text((b, p) => putMillis3(b, p, x))).toBe(String(expected));
      expect(millis3(x)).toBe(String(expected));
      expect(Number(text((b, p) => putFixed3(b, p, x)))).toBe(expected);
      expect(text((b, p) => putFixed3(b, p, x))).toMatch(/^\d+\.\d{3}$/);
    });
    expect(millis3(NaN)).toBe('null');
    expect(millis3(-1.5)).toBe(String(Math.round(-1500) / 1000));
  });

  it('putLineStart, putBytesField, putMsgField and putLatencyField write exactly their field names', () => {
    expect(text((b, p) => putLineStart(b, p, TRACE_FORMAT_VERSION))).toBe(`{"v":${TRACE_FORMAT_VERSION},"t":`);
    expect(text(putBytesField)).toBe(',"bytes":');
    expect(text(putMsgField)).toBe(',"msg":');
    expect(text(putLatencyField)).toBe(',"latency_ms":');
    // at an offset, touching nothing before it
    buf.fill(0x20);
    expect(putMsgField(buf, 5)).toBe(12);
    expect(buf.toString('latin1', 0, 13)).toBe('     ,"msg": ');
  });
});
