#!/usr/bin/env node
// Micro-benchmarks of mcpwire's hot paths (no I/O), against the naive way of doing the same work:
//   - NDJSON framer MB/s vs a string splitter (`split('\n')` + JSON.parse) on the same bytes,
//     pushed in 64 KiB chunks: many small messages, and one 10 MiB line;
//   - request registry add+take ops/s;
//   - Connection.request() → response → settle, over a fake in-process transport.
// Prints one JSON line {reps, cases:[{name, value, unit, vs}]}. Imports from dist/ (build first).
import { StringDecoder } from 'node:string_decoder';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// MCPWIRE_DIST: another build to measure (e.g. the previous commit's, for before/after numbers)
const dist = process.env.MCPWIRE_DIST ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
const { NdjsonFramer } = await load('jsonrpc/framer.js');
const { RequestRegistry } = await load('protocol/registry.js');
const { Connection } = await load('protocol/connection.js');

const quick = process.argv.includes('--quick');
const REPS = quick ? 3 : 7;
const CHUNK = 64 * 1024;

function med(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}
function timeIt(fn) {
  const out = [];
  fn(); // warm-up
  for (let i = 0; i < REPS; i++) {
    if (globalThis.gc) globalThis.gc();
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return med(out);
}
function chunks(buf) {
  const out = [];
  for (let i = 0; i < buf.length; i += CHUNK) out.push(buf.subarray(i, Math.min(buf.length, i + CHUNK)));
  return out;
}

// The naive reader: decode chunks to strings, accumulate, split on '\n', JSON.parse each line.
function naiveSplit(pieces, onMessage) {
  const dec = new StringDecoder('utf8');
  let pending = '';
  for (const c of pieces) {
    const lines = (pending + dec.write(c)).split('\n');
    pending = lines.pop();
    for (const l of lines) if (l) onMessage(JSON.parse(l));
  }
}
function framerRead(pieces, onMessage) {
  const f = new NdjsonFramer({ maxMessageBytes: 64 * 1024 * 1024, onMessage, onDiagnostic: (d) => { throw new Error(d.message); } });
  for (const c of pieces) f.push(c);
}

const cases = [];
/**
 * Framer vs naive split+parse on the same bytes. Both include JSON.parse, which dominates for
 * small messages and swings with the machine's load, so the three timings (framer, naive, and
 * JSON.parse alone on the pre-split lines) are taken alternately, best of REPS each, and the
 * framing overhead per message (total − JSON.parse) is reported too.
 */
function framerCase(name, bytes, expected) {
  const pieces = chunks(bytes);
  const lines = bytes.toString('utf8').split('\n').filter(Boolean);
  let n = 0;
  const count = () => n++;
  const mb = bytes.length / (1024 * 1024);
  const best = { f: Infinity, s: Infinity, p: Infinity };
  const runs = { f: () => framerRead(pieces, count), s: () => naiveSplit(pieces, count), p: () => { for (const l of lines) count(JSON.parse(l)); } };
  for (let i = 0; i <= REPS * 2; i++) {
    for (const k of ['f', 's', 'p']) {
      if (globalThis.gc) globalThis.gc();
      const t = performance.now();
      runs[k]();
      if (i > 0) best[k] = Math.min(best[k], performance.now() - t); // i = 0: warm-up
    }
  }
  if (n !== expected * (REPS * 2 + 1) * 3) throw new Error(`framer/naive message count mismatch: ${n}`);
  const ns = (t) => Math.max(0, ((t - best.p) * 1e6) / expected);
  cases.push({ name: `framer ${name}`, value: mb / (best.f / 1000), unit: 'MB/s',
    vs: `${(best.s / best.f).toFixed(2)}× split+parse (${(mb / (best.s / 1000)).toFixed(0)} MB/s); JSON.parse alone ${(mb / (best.p / 1000)).toFixed(0)} MB/s` });
  cases.push({ name: `framer ${name}: framing overhead beyond JSON.parse`, value: ns(best.f), unit: 'ns/msg', vs: `split+parse: ${ns(best.s).toFixed(0)} ns/msg` });
}

// many small messages: 20,000 echo results (~110 bytes each)
{
  const lines = [];
  for (let i = 1; i <= 20000; i++) {
    lines.push(JSON.stringify({ result: { content: [{ type: 'text', text: 'hello from the bench client' }] }, jsonrpc: '2.0', id: i }));
  }
  framerCase('small messages (20k × ~110 B)', Buffer.from(lines.join('\n') + '\n'), 20000);
}
// one large line: a 10 MiB text result
{
  const text = 'a'.repeat(10 * 1024 * 1024);
  framerCase('one 10 MiB message', Buffer.from(JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 1 }) + '\n'), 1);
}

// registry add + take
{
  const reg = new RequestRegistry();
  const N = 200_000;
  const noop = () => {};
  const t = timeIt(() => {
    for (let i = 0; i < N; i++) {
      reg.add({ id: i, method: 'tools/call', sentAt: performance.now(), resolve: noop, reject: noop, deadline: Infinity, dueMs: 0, deadlineIsTotal: false,
        cancellable: true, dueList: undefined, duePrev: undefined, dueNext: undefined, timer: undefined, timeoutMs: 60000, maxTotalMs: 600000,
        resetOnProgress: false, signal: undefined, onAbort: undefined, onProgress: undefined, lastProgress: -Infinity }, 60000);
      reg.take(i, 'response');
    }
  });
  reg.drain();
  cases.push({ name: 'registry add+take (60 s timeout)', value: N / (t / 1000), unit: 'ops/s' });
}

// Connection request → response → settle, over a fake transport that answers in a microtask
const SENT = Promise.resolve();
async function connectionCase(inFlight, withSignal = false) {
  const transport = {
    kind: 'fake',
    start: async () => {},
    close: async () => { transport.onclose?.(); },
    send(msg) {
      queueMicrotask(() => transport.onmessage({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: msg.params.arguments.text }] } }));
      return SENT; // like stdio: one shared resolved promise
    },
  };
  const conn = new Connection(transport);
  const N = quick ? 50_000 : 200_000;
  const params = { name: 'echo', arguments: { text: 'hello' } };
  const options = withSignal ? { signal: new AbortController().signal } : undefined;
  const once = async () => {
    let next = 0;
    const worker = async () => {
      while (next < N) {
        next++;
        await conn.request('tools/call', params, options);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  };
  await once();
  const ts = [];
  for (let i = 0; i < REPS; i++) {
    if (globalThis.gc) globalThis.gc();
    const t = performance.now();
    await once();
    ts.push(performance.now() - t);
  }
  await conn.close();
  cases.push({ name: `Connection request→settle, ${inFlight} in flight${withSignal ? ', one caller signal' : ''}`, value: N / (med(ts) / 1000), unit: 'req/s' });
}
await connectionCase(1);
await connectionCase(64);
await connectionCase(64, true);

process.stdout.write(JSON.stringify({ reps: REPS, cases }) + '\n');
