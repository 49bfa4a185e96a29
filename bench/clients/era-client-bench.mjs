#!/usr/bin/env node
// mcpwire pinned to one protocol era (`--protocol-version 2025-11-25`: the initialize handshake;
// `2026-07-28`: stateless, per-request _meta), same loads as the harness's engine-client-bench.mjs.
// Staged beside the harness files by bench/run.mjs (imports ./bench-lib.mjs). A server without a
// `blob` tool (the SDK v2 interop peer) leaves the blob figures empty (blob_error).
//   node --expose-gc era-client-bench.mjs DIST_INDEX stdio --server-cmd "..." --protocol-version V
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs, suiteOptions, runSuite } from './bench-lib.mjs';

const { pos, opt } = parseArgs(process.argv.slice(2));
const [distIndex, transportKind] = pos;
if (transportKind !== 'stdio' || typeof opt['server-cmd'] !== 'string' || typeof opt['protocol-version'] !== 'string') {
  process.stderr.write('usage: era-client-bench.mjs DIST_INDEX stdio --server-cmd "..." --protocol-version V\n');
  process.exit(2);
}
const o = suiteOptions(opt);
const ti = performance.now();
const engine = await import(pathToFileURL(distIndex).href);
const importMs = Math.round((performance.now() - ti) * 10) / 10;
const cmd = opt['server-cmd'].split(' ');
const version = opt['protocol-version'];

await runSuite({ impl: `mcpwire@${version}`, transport: 'stdio', import_ms: importMs }, async () => {
  const client = await engine.connect({ transport: 'stdio', command: cmd[0], args: cmd.slice(1) }, { clientInfo: { name: 'engine-bench-client', version: '0.1.0' }, protocolVersion: version });
  if (client.protocolVersion !== version) throw new Error(`asked for ${version}, negotiated ${client.protocolVersion}`);
  return {
    serverPid: client.pid,
    call: async (text) => (await client.callTool('echo', { text })).content[0].text,
    blob: async (bytes) => (await client.callTool('blob', { bytes })).content[0].text,
    close: () => client.close(),
  };
}, o);
process.exit(0);
