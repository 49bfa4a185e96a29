#!/usr/bin/env node
// The floor of `mcpwire serve`'s shape over stdio: a minimal relay between its own stdin/stdout
// (the client) and one stdio server (its child), doing per message what any such gateway must
// do — read a line, parse it, give a request an id of its own, serialize it and write it to the
// other side; an answer gets the client's id back the same way. The lines one read brings are
// written in one write, as `serve` joins a turn's lines. No protocol logic (no lifecycle, no
// host, no checks): a server request or notification goes up as it came, with its own id.
// The bench's `gw-relay-stdio` row runs it in `serve`'s place (bench/run.mjs).
//
//   node bench/stdio-relay.mjs -- <command> [args...]
import { spawnAfterDash } from './lib/args.mjs';

const { child } = spawnAfterDash(process.argv.slice(2), 'stdio-relay.mjs -- <command> [args...]');
child.once('exit', (code) => process.exit(code ?? 1));
process.stdin.once('end', () => child.stdin.end());

/** Requests in flight: the relay's id → the client's id. */
const pending = new Map();
let next = 0;

/** Calls `each(message)` for every whole line of `chunk` (after `state.rest`) and writes what it returns, joined, to `out`. */
function relayLines(state, chunk, out, each) {
  // (a long line comes in many chunks: only the new chunk is searched for its end)
  const first = chunk.indexOf('\n');
  if (first === -1) {
    state.rest += chunk;
    return;
  }
  const text = state.rest + chunk;
  let from = 0;
  let joined = '';
  for (let nl = state.rest.length + first; nl !== -1; nl = text.indexOf('\n', from)) {
    const line = text.slice(from, nl);
    from = nl + 1;
    if (line.trim() === '') continue;
    joined += `${JSON.stringify(each(JSON.parse(line)))}\n`;
  }
  state.rest = text.slice(from);
  if (joined !== '') out.write(joined);
}

const up = { rest: '' };
const down = { rest: '' };
process.stdin.setEncoding('utf8');
child.stdout.setEncoding('utf8');
process.stdin.on('data', (chunk) =>
  relayLines(up, chunk, child.stdin, (m) => {
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      const id = next++;
      pending.set(id, m.id);
      m.id = id;
    }
    return m;
  }),
);
child.stdout.on('data', (chunk) =>
  relayLines(down, chunk, process.stdout, (m) => {
    if (m.method === undefined && pending.has(m.id)) {
      const id = pending.get(m.id);
      pending.delete(m.id);
      m.id = id;
    }
    return m;
  }),
);
process.on('SIGTERM', () => {
  child.kill();
  process.exit(0);
});
