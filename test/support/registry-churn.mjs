// Drives a built RequestRegistry the way a busy client does — 64 requests in flight, each
// awaited by a caller, settled in batches a macrotask apart as responses come — and prints the
// young generation's collections meanwhile (run with --trace-gc-nvp; see
// test/registry/registry-retention.test.ts).
//   node --trace-gc-nvp registry-churn.mjs REGISTRY_JS|map [CALLS]
// `map`: the same table as a plain Map, the yardstick.
import { pathToFileURL } from 'node:url';

class MapRegistry {
  entries = new Map();
  add(entry) {
    this.entries.set(entry.id, entry);
  }
  take(id) {
    const entry = this.entries.get(id);
    this.entries.delete(id);
    return entry;
  }
  drain() {
    this.entries.clear();
  }
}

const { RequestRegistry } = process.argv[2] === 'map' ? { RequestRegistry: MapRegistry } : await import(pathToFileURL(process.argv[2]).href);
const calls = Number(process.argv[3] ?? 100_000);
const registry = new RequestRegistry();
let nextId = 0;
const sent = [];

function request() {
  return new Promise((resolve, reject) => {
    const id = ++nextId;
    // (what the connection keeps for a request: its message, callbacks and times)
    const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` } } };
    registry.add({ id, method: 'tools/call', sentAt: performance.now(), resolve, reject, message, deadline: Infinity, dueList: undefined }, 60_000);
    sent.push(id);
  });
}

let done = 0;
async function caller() {
  while (done < calls) {
    const result = await request();
    if (result.content[0].text.length > 0) done++;
  }
}

// The "server": answers what was sent, 16 a turn of the event loop.
let finished = false;
function answer() {
  for (let n = 0; n < 16 && sent.length > 0; n++) {
    const id = sent.shift();
    const entry = registry.take(id, 'response');
    entry?.resolve({ content: [{ type: 'text', text: `answer ${id}` }] });
  }
  if (!finished) setImmediate(answer);
}
setImmediate(answer);
await Promise.all(Array.from({ length: 64 }, caller));
finished = true;
registry.drain();
console.log(`DONE ${done}`);
