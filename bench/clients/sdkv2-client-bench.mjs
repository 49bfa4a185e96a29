#!/usr/bin/env node
// The official SDK v2 client (@modelcontextprotocol/client 2.x, a devDependency) in one era:
// `--era modern` pins 2026-07-28 (`versionNegotiation: { mode: { pin } }`: server/discover, the
// per-request _meta), `--era handshake` is its plain 2025 connect (`mode: 'legacy'`). Same loads
// as the harness's clients; staged beside them by bench/run.mjs (imports ./bench-lib.mjs). A
// server without a `blob` tool (the SDK v2 interop peer) leaves the blob figures empty.
//   node --expose-gc sdkv2-client-bench.mjs stdio --server-cmd "..." --era modern|handshake
import { performance } from 'node:perf_hooks';
import { parseArgs, suiteOptions, runSuite } from './bench-lib.mjs';

const { pos, opt } = parseArgs(process.argv.slice(2));
const era = opt.era;
if (pos[0] !== 'stdio' || typeof opt['server-cmd'] !== 'string' || (era !== 'modern' && era !== 'handshake')) {
  process.stderr.write('usage: sdkv2-client-bench.mjs stdio --server-cmd "..." --era modern|handshake\n');
  process.exit(2);
}
const o = suiteOptions(opt);
const ti = performance.now();
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
const importMs = Math.round((performance.now() - ti) * 10) / 10;
const cmd = opt['server-cmd'].split(' ');

await runSuite({ impl: `sdkv2-${era}`, transport: 'stdio', import_ms: importMs }, async () => {
  const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: 'inherit' });
  const mode = era === 'modern' ? { pin: '2026-07-28' } : 'legacy';
  const client = new Client({ name: 'sdkv2-bench-client', version: '0.1.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return {
    serverPid: transport.pid,
    call: async (text) => (await client.callTool({ name: 'echo', arguments: { text } })).content[0].text,
    blob: async (bytes) => (await client.callTool({ name: 'blob', arguments: { bytes } })).content[0].text,
    close: () => client.close(),
  };
}, o);
process.exit(0);
