/**
 * `mcpwire serve` as seen by a host that is not mcpwire: the official SDK client spawns the
 * gateway over stdio (and, second, reaches it over Streamable HTTP), with two downstream servers
 * behind it — the scripted stdio mock and the HTTP mock — and lists and calls the tools of both
 * through the one connection. A downstream crash is a clear tool error plus a
 * `notifications/tools/list_changed`, and the other server keeps answering.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const mockStdio = path.join(root, 'mock-servers/stdio-server.mjs');
const dir = tempDirs('mcpwire-serve-sdk-')();
let http: { url: string; close(): Promise<void> };
let config: string;

beforeAll(async () => {
  http = (await startHttpMock({ mode: 'sse' })) as typeof http;
  config = path.join(dir, 'config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      version: 1,
      mcp: {
        serve_names: 'host', servers: {
          alpha: { transport: 'stdio', command: process.execPath, args: [mockStdio] },
          beta: { transport: 'http', url: http.url },
        },
      },
    }),
  );
});
afterAll(async () => {
  await http?.close();
});

const named = (tools: { name: string }[], server: string, tool: string) => tools.find((t) => t.name === `mcp_${server}_${tool}` || t.name.startsWith(`mcp_${server}_${tool}_`))?.name;

describe('mcpwire serve with the official SDK client', { timeout: 60_000 }, () => {
  it('over stdio: tools of both servers under one connection, progress passed through, a crash is a tool error and a list change, the other server still answers', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--config', config], stderr: 'pipe', env: { ...process.env, MCPWIRE_TRACE: '' } as Record<string, string> });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'sdk-host', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    try {
      await client.connect(transport);
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} });
      const { tools } = await client.listTools();
      const alphaEcho = named(tools, 'alpha', 'echo');
      const betaEcho = named(tools, 'beta', 'echo');
      expect(alphaEcho, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
      expect(betaEcho).toBeDefined();
      expect(tools.map((t) => t.name)).toContain('mcpwire_status');

      expect(await client.callTool({ name: alphaEcho!, arguments: { text: 'to alpha' } })).toMatchObject({ content: [{ type: 'text', text: 'to alpha' }] });
      expect(await client.callTool({ name: betaEcho!, arguments: { text: 'to beta' } })).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('to beta') }] });

      const structured = await client.callTool({ name: named(tools, 'alpha', 'structured')!, arguments: { text: 'abc' } });
      expect(structured.structuredContent).toEqual({ text: 'abc', length: 3, upper: 'ABC' });

      const seen: number[] = [];
      const progress = await client.callTool({ name: named(tools, 'alpha', 'progress')!, arguments: { steps: 3, intervalMs: 20 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
      expect(progress.isError).not.toBe(true);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));

      const before = changes;
      const crashed = await client.callTool({ name: named(tools, 'alpha', 'crash')!, arguments: { code: 3 } });
      expect(crashed.isError).toBe(true);
      expect((crashed.content as { text: string }[])[0].text).toMatch(/alpha\/crash failed: .*exited with code 3/);
      await expect.poll(() => changes, { timeout: 10_000 }).toBeGreaterThan(before);
      expect(await client.callTool({ name: betaEcho!, arguments: { text: 'still here' } })).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('still here') }] });

      const status = await client.callTool({ name: 'mcpwire_status', arguments: {} });
      const rows = (status.structuredContent as { servers: { id: string; state: string }[] }).servers;
      expect(rows.map((r) => r.id)).toEqual(['alpha', 'beta']);
      expect(rows.find((r) => r.id === 'beta')!.state).toBe('ready');
    } finally {
      await client.close();
    }
    expect(stderr).not.toMatch(/"jsonrpc"/); // the protocol stays on stdout
  });

  it('over Streamable HTTP: the SDK client lists and calls tools of both servers through one gateway, and answers a forwarded elicitation', async () => {
    const gw = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (http:\/\/\S+)/);
    const client = new Client({ name: 'sdk-host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => ({ action: 'accept', content: { colour: `teal for ${req.params.message}` } }));
    try {
      const transport = new StreamableHTTPClientTransport(new URL(gw.match[1]));
      await client.connect(transport);
      const { tools } = await client.listTools();
      const out = await client.callTool({ name: named(tools, 'beta', 'echo')!, arguments: { text: 'over http' } });
      expect(out).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('over http') }] });
      const seen: number[] = [];
      await client.callTool({ name: named(tools, 'alpha', 'progress')!, arguments: { steps: 2, intervalMs: 20 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
      expect(seen.length).toBeGreaterThan(0);
      // A downstream server's elicitation travels up the HTTP session's streams and its answer back down.
      const ask = await client.callTool({ name: named(tools, 'alpha', 'ask')!, arguments: { method: 'elicitation/create', params: { message: 'Colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } } } });
      expect((ask.content as { text: string }[])[0].text).toContain('teal for Colour?');
      await transport.terminateSession();
    } finally {
      await client.close();
      await stop(gw.child);
    }
  });
});
