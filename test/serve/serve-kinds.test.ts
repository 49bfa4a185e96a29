/**
 * Three downstream kinds behind one `mcpwire serve`, two clients nobody here wrote: a stdio
 * server (the scripted mock), a Streamable HTTP one and a legacy 2024-11-05 HTTP+SSE one (the
 * HTTP mock, `legacy: true`). The official TypeScript SDK client and the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector-cli`) each list the tools of all three through the gateway
 * and call one of each. A crash of the stdio server is a clear tool error plus a
 * `notifications/tools/list_changed`, and the two HTTP servers keep answering.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';

const inspector = path.join(root, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-kinds-'));
// The Inspector CLI looks for its package.json as "../package.json" from its working directory
// (then imports it relative to itself): run it one level below a directory that has one.
const work = path.join(dir, 'work');
let streamable: { url: string; close(): Promise<void> };
let legacy: { url: string; close(): Promise<void> };
let config: string;
const KINDS = ['alpha', 'beta', 'gamma'] as const; // stdio, Streamable HTTP, HTTP+SSE

beforeAll(async () => {
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  streamable = (await startHttpMock({ mode: 'sse' })) as typeof streamable;
  legacy = (await startHttpMock({ legacy: true })) as typeof legacy;
  config = path.join(dir, 'config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      version: 1,
      mcp: {
        serve_names: 'host', servers: {
          alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')] },
          beta: { transport: 'http', url: streamable.url },
          gamma: { transport: 'sse', url: legacy.url },
        },
      },
    }),
  );
});
afterAll(async () => {
  await streamable?.close();
  await legacy?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const echoOf = (names: string[], server: string) => names.find((n) => n.startsWith(`mcp_${server}_echo`));

/** One Inspector CLI run (`--method …`) against `target`; its stdout parsed as JSON. */
function inspect(target: string[], args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [inspector, ...target, ...args], { cwd: work, env: { ...process.env, MCPWIRE_TRACE: '' }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`inspector-cli failed: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

describe('three downstream kinds, two foreign clients, one gateway', { timeout: 120_000 }, () => {
  it('the SDK client lists and calls stdio, Streamable HTTP and HTTP+SSE tools; a crash is a tool error and a list change, the others keep serving', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--config', config], env: { ...(process.env as Record<string, string>), MCPWIRE_TRACE: '' }, stderr: 'pipe' });
    const client = new Client({ name: 'sdk-three-kinds', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const server of KINDS) {
        const echo = echoOf(names, server);
        expect(echo, `${server}: ${JSON.stringify(names)}`).toBeDefined();
        const r = await client.callTool({ name: echo!, arguments: { text: `via ${server}` } });
        expect(r.isError).not.toBe(true);
        expect(JSON.stringify(r.content)).toContain(`via ${server}`);
      }
      const status = await client.callTool({ name: 'mcpwire_status', arguments: {} });
      const rows = (status.structuredContent as { servers: { id: string; state: string; transport: string }[] }).servers;
      expect(rows.map((r) => [r.id, r.state])).toEqual(KINDS.map((k) => [k, 'ready']));

      const before = changes;
      const crash = names.find((n) => n.startsWith('mcp_alpha_crash'))!;
      const crashed = await client.callTool({ name: crash, arguments: { code: 3 } });
      expect(crashed.isError).toBe(true);
      expect((crashed.content as { text: string }[])[0]!.text).toMatch(/alpha\/crash failed: .*exited with code 3/);
      await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThan(before);
      for (const server of ['beta', 'gamma']) {
        const r = await client.callTool({ name: echoOf(names, server)!, arguments: { text: `still ${server}` } });
        expect(JSON.stringify(r.content)).toContain(`still ${server}`);
      }
    } finally {
      await client.close();
    }
  });

  it('the MCP Inspector CLI lists and calls the tools of all three over stdio, and over Streamable HTTP', async () => {
    const overStdio = [process.execPath, cli, 'serve', '--config', config];
    const listed = await inspect(overStdio, ['--method', 'tools/list']);
    const names = (listed.tools as { name: string }[]).map((t) => t.name);
    for (const server of KINDS) expect(echoOf(names, server), `${server}: ${JSON.stringify(names)}`).toBeDefined();
    for (const server of KINDS) {
      const r = await inspect(overStdio, ['--method', 'tools/call', '--tool-name', echoOf(names, server)!, '--tool-arg', `text=inspected ${server}`]);
      expect(r.isError).not.toBe(true);
      expect(JSON.stringify(r.content)).toContain(`inspected ${server}`);
    }
    const gw = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (http:\/\/\S+)/, { MCPWIRE_TRACE: '' });
    try {
      const overHttp = [gw.match[1]!, '--transport', 'http'];
      const viaHttp = await inspect(overHttp, ['--method', 'tools/list']);
      const httpNames = (viaHttp.tools as { name: string }[]).map((t) => t.name);
      expect(httpNames).toEqual(names);
      const r = await inspect(overHttp, ['--method', 'tools/call', '--tool-name', echoOf(httpNames, 'gamma')!, '--tool-arg', 'text=legacy over http']);
      expect(JSON.stringify(r.content)).toContain('legacy over http');
    } finally {
      await stop(gw.child);
    }
  });
});
