#!/usr/bin/env node
// Micro benchmark of the trace's redaction check (`Redactor.isClean`), two builds side by side in
// one process, interleaved (not a test: wall-clock numbers, run by hand).
//   npm run build && node scripts/redact-bench.mjs [--old /tmp/base/dist] [--new dist] [--rounds 6]
//     [--hot 200000] [--cold 3000] [--sweep-mib 32] [--secrets]
//   valgrind --tool=callgrind node scripts/redact-bench.mjs --instr new --calls 100000
// The messages are the bench's echo exchange as a trace of `npm run bench` shows them: the
// client's tools/call request (an object literal, `isClean(m, false)`) and the result as the raw
// server and the SDK server write it (parsed from its text, `isClean(m, true)`). A call is the
// request and one result (raw and SDK server alternately), two messages.
// Each message is checked as the tracer does (src/trace/tracer.ts): `isClean`, its text as long
// as `lastChars`, no configured secret in the text (`hasSecrets`, `textHasSecret`).
// - hot: calls back to back over a pool of 1,024 distinct messages; ns per message.
// - cold: before each call (not timed) a write to every cache line of a 32 MiB buffer, then the
//   call's messages are made (the request built and serialized, the result parsed: as the
//   transport leaves them in the cache) and the two checks timed alone (hrtime, minus an empty timed section measured
//   the same way); median and mean ns per message.
// - --instr <old|new> --calls N: only N hot calls of one build after a warm-up, for an
//   instruction count (run it with two values of N and take the difference: startup cancels).
// - --secrets: the redactors have configured secrets (keys are then checked against them too).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? def : args[i + 1];
};
const ROUNDS = Number(opt('rounds', 6));
const HOT = Number(opt('hot', 200_000));
const COLD = Number(opt('cold', 3_000));
const SWEEP = Number(opt('sweep-mib', 32)) * 1024 * 1024;
const secrets = args.includes('--secrets') ? ['ghp_EnvValueSecret123456', 'hdr-api-key-987654321', 'zq9'] : [];
const builds = {
  old: path.resolve(opt('old', '/tmp/base2/dist')),
  new: path.resolve(root, opt('new', 'dist')),
};

const text = 'hello from the bench client';
const request = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
const rawText = (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}]}}`;
const sdkText = (id) => `{"result":{"content":[{"type":"text","text":"${text}"}]},"jsonrpc":"2.0","id":${id}}`;
const result = (id) => JSON.parse(id % 2 === 0 ? sdkText(id) : rawText(id));

async function load(name) {
  const { Redactor } = await import(pathToFileURL(path.join(builds[name], 'trace', 'redact.js')).href);
  const r = new Redactor({ secrets });
  // the same verdicts and sizes, or the comparison means nothing
  for (const [m, parsed, t] of [[request(7), false, JSON.stringify(request(7))], [result(7), true, rawText(7)], [result(8), true, sdkText(8)]]) {
    if (!r.isClean(m, parsed) || r.lastChars !== t.length || r.lastBytes !== Buffer.byteLength(t)) throw new Error(`${name}: isClean disagrees on ${t}`);
  }
  return r;
}

const POOL = 1024;
/** Ids as in a bench run (2,000 calls of warm-up, then thousands more): five digits. */
const FIRST_ID = 20_001;
const reqPool = Array.from({ length: POOL }, (_, i) => request(FIRST_ID + i));
const reqTexts = reqPool.map((m) => JSON.stringify(m));
const resTexts = Array.from({ length: POOL }, (_, i) => ((FIRST_ID + i) % 2 === 0 ? sdkText(FIRST_ID + i) : rawText(FIRST_ID + i)));
const resPool = resTexts.map((t) => JSON.parse(t));

/** What the tracer asks of the redactor for a message with its text (src/trace/tracer.ts). */
function check(r, message, parsed, text) {
  return r.isClean(message, parsed) && text.length === r.lastChars && !(r.hasSecrets && r.textHasSecret(text));
}

/** ns per message, `calls` calls back to back. */
function hot(r, calls) {
  let ok = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const j = i & (POOL - 1);
    if (check(r, reqPool[j], false, reqTexts[j])) ok += r.lastBytes;
    if (check(r, resPool[j], true, resTexts[j])) ok += r.lastBytes;
  }
  const ns = Number(process.hrtime.bigint() - t0);
  if (ok === 0) throw new Error('nothing clean');
  return ns / (2 * calls);
}

const sweepBuf = new Uint8Array(SWEEP);
function sweep() {
  for (let i = 0; i < SWEEP; i += 64) sweepBuf[i]++;
}

/** ns per message with the caches swept before each call: [median, mean]. */
function cold(r, calls) {
  const xs = new Float64Array(calls);
  let ok = 0;
  for (let i = 0; i < calls; i++) {
    sweep();
    const id = FIRST_ID + i;
    const req = request(id);
    const reqText = JSON.stringify(req);
    const resText = id % 2 === 0 ? sdkText(id) : rawText(id);
    const res = JSON.parse(resText);
    const t0 = process.hrtime.bigint();
    if (r !== undefined) {
      if (check(r, req, false, reqText)) ok += r.lastBytes;
      if (check(r, res, true, resText)) ok += r.lastBytes;
    } else ok += req.id + res.id;
    xs[i] = Number(process.hrtime.bigint() - t0);
  }
  if (ok === 0) throw new Error('nothing clean');
  const sorted = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / calls;
  return [sorted[calls >> 1], mean];
}

const instr = opt('instr', undefined);
if (instr !== undefined) {
  const r = await load(instr);
  hot(r, 20_000);
  hot(r, Number(opt('calls', 100_000)));
  process.exit(0);
}

const reds = { old: await load('old'), new: await load('new') };
for (const name of ['old', 'new']) {
  hot(reds[name], 50_000);
  cold(reds[name], 200);
}
cold(undefined, 200);
const rows = { old: { hot: [], coldMed: [], coldMean: [] }, new: { hot: [], coldMed: [], coldMean: [] } };
const empty = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
  for (const name of order) rows[name].hot.push(hot(reds[name], HOT));
  const [e] = cold(undefined, COLD);
  empty.push(e);
  for (const name of order) {
    const [med, mean] = cold(reds[name], COLD);
    rows[name].coldMed.push(med);
    rows[name].coldMean.push(mean);
  }
  const f = (xs) => ((xs[xs.length - 1] - e) / 2).toFixed(0).padStart(5);
  console.log(`round ${round + 1}: hot old ${rows.old.hot.at(-1).toFixed(1)} new ${rows.new.hot.at(-1).toFixed(1)} ns/msg; cold (median, mean) old ${f(rows.old.coldMed)} ${f(rows.old.coldMean)} new ${f(rows.new.coldMed)} ${f(rows.new.coldMean)} ns/msg (empty section ${e} ns)`);
}
const range = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`\nns per message over ${ROUNDS} interleaved rounds (range; median)${secrets.length ? ', with configured secrets' : ''}; empty timed section ${median(empty)} ns a call:`);
// (the empty section's median over all rounds taken off: its first rounds may run colder)
const e = median(empty);
for (const name of ['old', 'new']) {
  const r = rows[name];
  r.coldMed = r.coldMed.map((x) => (x - e) / 2);
  r.coldMean = r.coldMean.map((x) => (x - e) / 2);
  console.log(`${name} (${builds[name]}): hot ${range(r.hot)} (${median(r.hot).toFixed(0)}); cold median ${range(r.coldMed)} (${median(r.coldMed).toFixed(0)}), cold mean ${range(r.coldMean)} (${median(r.coldMean).toFixed(0)})`);
}
