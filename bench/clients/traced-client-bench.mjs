#!/usr/bin/env node
// mcpwire with tracing ON (a pino trace file via createTracer), same loads as the harness's
// engine-client-bench.mjs. Staged beside the harness files by bench/run.mjs (imports ./bench-lib.mjs).
//   node --expose-gc traced-client-bench.mjs DIST_INDEX stdio --server-cmd "..." | http URL [--server-pid PID]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs, suiteOptions, runSuite } from './bench-lib.mjs';

const { pos, opt } = parseArgs(process.argv.slice(2));
const [distIndex, transportKind, urlArg] = pos;
const o = suiteOptions(opt);
const ti = performance.now();
const engine = await import(pathToFileURL(distIndex).href);
const { createTracer } = engine.createTracer ? engine : await import(pathToFileURL(path.join(path.dirname(distIndex), 'trace', 'index.js')).href);
const importMs = Math.round((performance.now() - ti) * 10) / 10;
const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-trace-'));
const traceFile = path.join(traceDir, 'trace.jsonl');

const config = transportKind === 'stdio'
  ? (() => { const cmd = opt['server-cmd'].split(' '); return { transport: 'stdio', command: cmd[0], args: cmd.slice(1) }; })()
  : { transport: 'http', url: new URL(urlArg).href };
const meta = { impl: 'mcpwire-traced', transport: transportKind, import_ms: importMs };
let tracer;
await runSuite(meta, async () => {
  tracer = await createTracer({ file: traceFile, serverId: 'bench', transport: transportKind === 'stdio' ? 'stdio' : 'streamable-http' });
  const client = await engine.connect(config, { clientInfo: { name: 'engine-bench-client', version: '0.1.0' }, observer: tracer });
  return {
    serverPid: transportKind === 'stdio' ? client.pid : opt['server-pid'] ? Number(opt['server-pid']) : undefined,
    call: async (text) => (await client.callTool('echo', { text })).content[0].text,
    blob: async (bytes) => (await client.callTool('blob', { bytes })).content[0].text,
    close: async () => {
      await client.close();
      await tracer.close();
      process.stderr.write(`trace: ${fs.statSync(traceFile).size} bytes\n`);
      fs.rmSync(traceDir, { recursive: true, force: true });
    },
  };
}, o);
process.exit(0);
