/**
 * mcpwire's own conformance checker (`mcpwire check`) against `mcpwire serve`, over stdio and over
 * Streamable HTTP, with the scripted mock behind it: no check fails, and the progress and
 * cancellation checks run (the gateway's progress tool is given as the slow tool).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-serve-check-')();
const config = path.join(dir, 'config.json');
fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')] } } } }));
const serveLine = `${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} serve --config ${JSON.stringify(config)}`;
let progressTool = '';

function check(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, 'check', ...args, '--slow-tool', progressTool, '--slow-tool-args', '{"steps":8,"intervalMs":300}'], { cwd: dir, env: { ...process.env, MCPWIRE_TRACE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Clean at both revisions the gateway serves (`--all-versions`: 2026-07-28, then the handshake). */
function expectClean(r: { code: number | null; stdout: string; stderr: string }): void {
  const failed = r.stdout.split('\n').filter((l) => /^(FAIL|WARN)\b/.test(l));
  expect(failed, r.stderr).toEqual([]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^PASS\s+progress\.token-echoed\b/m);
  expect(r.stdout).toMatch(/^PASS\s+cancellation\.honoured\b/m);
  expect(r.stdout).toMatch(/^PASS\s+modern\.discover\b/m);
  expect(r.stdout).toMatch(/^PASS\s+modern\.unsupported-version\b/m);
  expect(r.stdout).toMatch(/^PASS\s+modern\.resource-not-found\b/m);
  expect(r.stdout).toMatch(/^PASS\s+modern\.subscriptions-listen\b/m);
}

// the two check runs are independent (each gateway its own): they run at once, their waits overlapping
describe.concurrent('mcpwire check against mcpwire serve', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const client = new Client({ name: 'probe', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--config', config], stderr: 'ignore' }));
    progressTool = (await client.listTools()).tools.find((t) => t.name.startsWith('mcp_alpha_progress'))!.name;
    await client.close();
  });

  it('over stdio: every check passes or does not apply', async () => {
    expectClean(await check(['--stdio', serveLine, '--all-versions']));
  });

  it('over Streamable HTTP: every check passes or does not apply (sessions, Origin, protocol version, streams)', async () => {
    const gw = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (http:\/\/\S+)/);
    try {
      const r = await check(['--url', gw.match[1], '--all-versions']);
      expectClean(r);
      // 2026-07-28 over HTTP: the mirrored headers are checked against the body.
      expect(r.stdout).toMatch(/^PASS\s+modern\.http-method-header\b/m);
      expect(r.stdout).toMatch(/^PASS\s+modern\.http-method-not-found\b/m);
      // A request whose header says 2026-07-28 but whose _meta lacks the version is -32602 with 400 (basic#45).
      expect(r.stdout).toMatch(/^PASS\s+modern\.meta-required\b.*without io\.modelcontextprotocol\/proto/m);
      expect(r.stdout).toMatch(/^PASS\s+http\.origin-forbidden\b/m);
      // Streams are resumable: primed with an event id; a resumption replays only that stream.
      expect(r.stdout).toMatch(/^PASS\s+http\.sse-priming\b/m);
      expect(r.stdout).toMatch(/^PASS\s+http\.last-event-id-replay\b/m);
    } finally {
      await stop(gw.child);
    }
  });
});
