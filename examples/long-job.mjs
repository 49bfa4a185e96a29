#!/usr/bin/env node
// A long-running job (seed 004, pipeline style) through the host: progress, a timeout that
// restarts on progress, and cancellation.
//
// - The servers come from a config file (loadConfig), as an application would have them.
// - `trigger-long-running-operation` of @modelcontextprotocol/server-everything runs 3 s and
//   reports progress every 500 ms. With `timeoutMs: 1500` alone it times out; with
//   `resetTimeoutOnProgress: true` each progress notification restarts the 1.5 s, and
//   `maxTotalTimeoutMs` still caps the whole call.
// - The second run is cancelled by the caller (AbortController) after two progress
//   notifications: the host sends notifications/cancelled and the call ends as a cancellation.
//
// Run: npm run build && node examples/long-job.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, loadConfig } from 'mcpwire/host';

const here = path.dirname(fileURLToPath(import.meta.url));
// In a project of your own: "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]
const everything = path.join(here, '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-example-'));
const configFile = path.join(dir, 'config.json');
fs.writeFileSync(configFile, JSON.stringify({ version: 1, mcp: { servers: { jobs: { transport: 'stdio', command: process.execPath, args: [everything, 'stdio'] } } } }));

const { servers, diagnostics } = await loadConfig({ globalPath: configFile, projectPath: path.join(dir, 'no-project.json') });
for (const d of diagnostics) console.log(`config ${d.severity}: ${d.message}`);
const host = createHost(servers, { permission: 'allow' });
await host.start();
const job = host.tools().find((t) => t.server === 'jobs' && t.tool === 'trigger-long-running-operation');
console.log(`jobs: ${host.serverStatus('jobs').state}; job tool: ${job ? 'found' : 'missing'}`);

// 0. The same job under a plain 1.5 s timeout: it times out (and the host cancels it on the server).
const plain = await host.callTool(job.name, { duration: 3, steps: 6 }, { timeoutMs: 1500 });
console.log(`run 0: ${plain.isError ? 'error' : 'ok'}${plain.outcome ? ` (${plain.outcome})` : ''} without resetTimeoutOnProgress`);

// 1. Runs to the end: every progress notification restarts the 1.5 s timeout.
const done = await host.callTool(
  job.name,
  { duration: 3, steps: 6 },
  {
    timeoutMs: 1500,
    resetTimeoutOnProgress: true,
    maxTotalTimeoutMs: 20_000,
    onProgress: (p) => console.log(`progress ${p.progress}/${p.total}`),
  },
);
console.log(`run 1: ${done.isError ? 'error' : 'ok'}${done.outcome ? ` (${done.outcome})` : ''}: ${done.content[0]?.text}`);

// 2. Cancelled by the caller after two progress notifications.
const controller = new AbortController();
let seen = 0;
const cancelled = await host.callTool(
  job.name,
  { duration: 3, steps: 6 },
  {
    signal: controller.signal,
    onProgress: (p) => {
      console.log(`progress ${p.progress}/${p.total}`);
      if (++seen === 2) controller.abort();
    },
  },
);
console.log(`run 2: ${cancelled.isError ? 'error' : 'ok'}${cancelled.outcome ? ` (${cancelled.outcome})` : ''} after ${seen} progress notifications`);
console.log(`jobs still ${host.serverStatus('jobs').state}`);

await host.close();
fs.rmSync(dir, { recursive: true, force: true });
