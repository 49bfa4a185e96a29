#!/usr/bin/env node
// Scripted mock MCP server over stdio (newline-delimited JSON-RPC), for tests. No dependencies.
//
//   node mock-servers/stdio-server.mjs [scenario.json | scenario-name]
//   MOCK_SCENARIO_JSON='{"tools":["echo"]}' node mock-servers/stdio-server.mjs   (env wins)
//
// Env: MOCK_RECORD=<file>       append every received message (one JSON per line, as received)
//      MOCK_RECORD_SENT=<file>  append every message/line this server writes to stdout
// The scenario format is documented in README.md; the MCP semantics live in lib/mcp-scenario.mjs,
// this file only does the framing, the recording, stdin close and signals.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScenarioServer, resolveScenario } from './lib/mcp-scenario.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function readScenarioFile(ref) {
  const candidates = [ref, path.join(here, 'scenarios', ref), path.join(here, 'scenarios', `${ref}.json`)];
  const file = candidates.find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  if (!file) throw new Error(`scenario not found: ${ref}`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function loadScenario() {
  const env = process.env.MOCK_SCENARIO_JSON;
  const raw = env ? JSON.parse(env) : process.argv[2] ? readScenarioFile(process.argv[2]) : undefined;
  return resolveScenario(raw, readScenarioFile);
}

function badScenario(err) {
  process.stderr.write(`mock stdio server: bad scenario: ${err.message}\n`);
  process.exit(2);
}

let scenario;
try {
  scenario = loadScenario();
} catch (err) {
  badScenario(err);
}

if (scenario.ignoreSigterm) process.on('SIGTERM', () => process.stderr.write('mock stdio server: ignoring SIGTERM\n'));

const recordIn = process.env.MOCK_RECORD;
const recordOut = process.env.MOCK_RECORD_SENT;
process.stdout.on('error', () => process.exit(0)); // EPIPE: the client went away

function writeLine(line) {
  if (recordOut) fs.appendFileSync(recordOut, `${line}\n`);
  process.stdout.write(`${line}\n`);
}

let server;
try {
  server = createScenarioServer(scenario, {
    send: (msg) => writeLine(JSON.stringify(msg)),
    sendRaw: (text) => writeLine(text),
    stderr: (text) => process.stderr.write(text),
    exit: (code) => process.exit(code),
  });
} catch (err) {
  badScenario(err);
}

function onLine(buf) {
  let line = buf.toString('utf8');
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() === '') return;
  let msg;
  let ok = true;
  try {
    msg = JSON.parse(line);
  } catch {
    ok = false;
  }
  if (recordIn) fs.appendFileSync(recordIn, `${ok ? line.trim() : JSON.stringify({ __malformed: line })}\n`);
  const done = ok ? server.handleMessage(msg) : server.handleText(line);
  done.catch((err) => process.stderr.write(`mock stdio server: internal error: ${err?.stack ?? err}\n`));
}

function listen() {
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
    if (scenario.ignoreStdinClose) {
      process.stderr.write('mock stdio server: stdin closed, staying alive on purpose\n');
      setInterval(() => {}, 1 << 30);
    } else {
      process.exit(0);
    }
  });
}

server.start().then((alive) => {
  if (alive !== false) listen();
});
