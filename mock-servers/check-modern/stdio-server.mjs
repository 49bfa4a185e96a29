#!/usr/bin/env node
// The correct 2026-07-28 mock (../modern/lib/engine.mjs, default scenario + tasks extension) over stdio with one
// planted bug of bugs.mjs around it, for the `mcpwire check` tests of the modern checks.
//
//   node mock-servers/check-modern/stdio-server.mjs --bug=<name>     (no bug: the correct mock)

import { createModernEngine } from '../modern/lib/engine.mjs';
import { kindOf } from '../lib/rpc.mjs';
import { bugFrom, SCENARIO } from './bugs.mjs';

let bug;
try {
  bug = bugFrom(process.argv.slice(2), process.env) ?? {};
} catch (err) {
  process.stderr.write(`check-modern stdio mock: ${err.message}\n`);
  process.exit(2);
}
const st = {};
const engine = createModernEngine(SCENARIO, { stderr: () => {} });
process.stdout.on('error', () => process.exit(0));
const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
const notify = (n) => write(bug.notification ? bug.notification(n, st) : n);

async function onMessage(msg) {
  const kind = kindOf(msg);
  if (kind === 'notification') return engine.handleNotification(msg, 'stdio');
  if (kind !== 'request') return;
  const original = structuredClone(msg);
  const changed = bug.request ? bug.request(msg, st) : msg;
  if (changed?.respond) return write(changed.respond);
  const out = await engine.handleRequest(changed, { send: notify });
  if (out.cancelled || out.behavior) return;
  write(bug.response ? bug.response(out.response, original, st) : out.response);
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, nl).trim();
    pending = pending.slice(nl + 1);
    if (!line) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    onMessage(msg).catch((err) => process.stderr.write(`check-modern stdio mock: ${err?.stack ?? err}\n`));
  }
});
process.stdin.on('end', () => process.exit(0));
