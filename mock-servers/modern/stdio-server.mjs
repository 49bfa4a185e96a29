#!/usr/bin/env node
// Scripted mock MCP server over stdio that speaks protocol revision 2026-07-28 (stateless:
// per-request _meta, server/discover, MRTR, subscriptions/listen), for tests. No dependencies.
//
//   node mock-servers/modern/stdio-server.mjs [scenario.json | scenario-name]
//   MOCK_SCENARIO_JSON='{"extends":"default","mode":"dual"}' node mock-servers/modern/stdio-server.mjs
//
// Env: MOCK_RECORD=<file>       append every received message (one JSON per line, as received)
//      MOCK_RECORD_SENT=<file>  append every line this server writes to stdout
// Modes (scenario.mode): modern-only (default: `initialize` → -32022 naming the versions),
// dual (an `initialize` selects the handshake-era engine of ../lib/mcp-scenario.mjs for this
// process; requests carrying modern _meta are still served statelessly), legacy-strict (a
// handshake-era server that exits on any request before `initialize`).
// The MCP semantics live in lib/engine.mjs; this file does the framing, recording and modes.

import fs from 'node:fs';
import { createModernEngine, META } from './lib/engine.mjs';
import { loadModernScenario, legacyScenarioOf } from './lib/scenario.mjs';
import { createScenarioServer } from '../lib/mcp-scenario.mjs';
import { kindOf } from '../lib/rpc.mjs';

let scenario;
try {
  scenario = loadModernScenario(process.argv[2]);
} catch (err) {
  process.stderr.write(`modern mock stdio server: bad scenario: ${err.message}\n`);
  process.exit(2);
}

const recordIn = process.env.MOCK_RECORD;
const recordOut = process.env.MOCK_RECORD_SENT;
process.stdout.on('error', () => process.exit(0)); // EPIPE: the client went away

function writeLine(line) {
  if (recordOut) fs.appendFileSync(recordOut, `${line}\n`);
  process.stdout.write(`${line}\n`);
}
const send = (msg) => writeLine(JSON.stringify(msg));
const stderr = (t) => process.stderr.write(t);

const engine = createModernEngine(scenario, { stderr });
let legacy; // the handshake-era engine, once a client sent `initialize` (dual, legacy-strict)

function startLegacy() {
  legacy ??= createScenarioServer(legacyScenarioOf(scenario), { send, sendRaw: writeLine, stderr, exit: (c) => process.exit(c) });
  return legacy;
}

/** Which era a message belongs to in this process. */
function eraOf(msg) {
  if (scenario.mode === 'legacy-strict') return 'legacy';
  if (scenario.mode !== 'dual') return 'modern';
  if (msg?.method === 'initialize') return 'legacy';
  const modernMeta = msg?.params?._meta?.[META.version] !== undefined || msg?.method === 'server/discover';
  return legacy && !modernMeta ? 'legacy' : 'modern';
}

function onLegacy(msg) {
  if (scenario.mode === 'legacy-strict' && !legacy && kindOf(msg) === 'request' && msg.method !== 'initialize') {
    // Some handshake-era servers die on anything before initialize: the stdio probe must survive it.
    stderr(`legacy-strict mock: ${msg.method} before initialize, exiting\n`);
    process.exit(1);
  }
  return startLegacy().handleMessage(msg);
}

async function onModern(msg) {
  const kind = kindOf(msg);
  if (kind === 'notification') return engine.handleNotification(msg, 'stdio');
  if (kind === 'response') return engine.violation('a JSON-RPC response sent to a 2026-07-28 server (it sends no requests)');
  if (kind !== 'request') return send(engine.invalid(msg?.id, 'Invalid request'));
  const out = await engine.handleRequest(msg, { send });
  if (out.cancelled) return;
  if (out.behavior) return misbehave(msg, out.behavior);
  send(out.response);
}

function misbehave(msg, beh) {
  if (beh.crash || beh.dropStream) {
    if (beh.crash?.stderr) stderr(beh.crash.stderr);
    process.exit(beh.crash?.code ?? 1);
  }
  if (beh.nullIdError) return send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request', ...(typeof beh.nullIdError === 'object' ? beh.nullIdError : {}) } });
  if (beh.garbage) return writeLine(typeof beh.garbage === 'string' ? beh.garbage : 'this is not JSON {{{');
  if (beh.http?.body) return writeLine(beh.http.body);
}

function onLine(buf) {
  let line = buf.toString('utf8');
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    if (recordIn) fs.appendFileSync(recordIn, `${JSON.stringify({ __malformed: line })}\n`);
    return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  if (recordIn) fs.appendFileSync(recordIn, `${line.trim()}\n`);
  const done = eraOf(msg) === 'legacy' ? onLegacy(msg) : onModern(msg);
  Promise.resolve(done).catch((err) => stderr(`modern mock stdio server: internal error: ${err?.stack ?? err}\n`));
}

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  let nl;
  while ((nl = pending.indexOf(0x0a)) >= 0) {
    const line = pending.subarray(0, nl);
    pending = pending.subarray(nl + 1);
    onLine(line);
  }
});
process.stdin.on('end', () => {
  if (pending.length) onLine(pending);
  for (const e of engine.unmet()) stderr(`[mock] expectation never met: ${e}\n`);
  process.exit(0);
});
