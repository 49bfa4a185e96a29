/**
 * `mcpwire registry launch` relays a host's stdio to a package's Streamable HTTP server; for a
 * 2026-07-28 session it is the client on HTTP, so the request metadata headers are its to send:
 * `Mcp-Param-*` from the called tool's `x-mcp-header` annotations as listed, and malformed
 * annotations screened out of `tools/list`. Real processes: the built CLI (dist/) launching the
 * scripted modern HTTP mock, which answers -32020 when a header disagrees with the body.
 */
// clauses: 2026-07-28
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const MODERN_HTTP = path.join(ROOT, 'mock-servers', 'modern', 'http-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launch-headers-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** A client on the launcher's stdio, the package being the modern HTTP mock with `tools`; what the launcher said on stderr. */
async function launched(tools: unknown[]): Promise<{ client: McpClient; stderr: () => string }> {
  const scenario = path.join(dir, `scenario-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(scenario, JSON.stringify({ tools }));
  const port = await freePort();
  let err = '';
  const client = await connect(
    {
      transport: 'stdio',
      id: 'pkg',
      command: process.execPath,
      args: [CLI, 'registry', 'launch', '--url', `http://127.0.0.1:${port}/mcp`, '--', process.execPath, MODERN_HTTP, scenario, '--port', String(port)],
    },
    { protocolVersion: '2026-07-28', timeoutMs: 30_000, onStderr: (chunk: Buffer) => void (err += chunk.toString('utf8')) },
  );
  return { client, stderr: () => err };
}

describe('registry launch as the 2026-07-28 client on HTTP', () => {
  it('mirrors the called tool\'s x-mcp-header arguments into Mcp-Param-* headers (the server checks them)', { timeout: 60_000 }, async () => {
    // cites basic.transports.streamable_http#9: the launcher sends the request metadata headers on each POST
    // cites basic.transports.streamable_http#31: annotated parameter values mirrored into headers
    const { client } = await launched(['echo', 'route']);
    try {
      expect(client.protocolVersion).toBe('2026-07-28');
      const listed = await client.listTools();
      expect(listed.map((t) => t.name).sort()).toEqual(['echo', 'route']);
      const r = await client.callTool('route', { region: 'eu-west', tenant: { id: 42 }, dryRun: true, query: 'q' });
      expect(r.isError ?? false).toBe(false);
      const seen = JSON.parse((r.content[0] as { text: string }).text) as { headers: Record<string, string> };
      expect(seen.headers).toEqual({ 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Tenant': '42', 'Mcp-Param-Dry-Run': 'true' });
    } finally {
      await client.close();
    }
  });

  it('leaves a tool with a malformed x-mcp-header out of tools/list and names it on stderr', { timeout: 60_000 }, async () => {
    // cites basic.transports.streamable_http#40: a malformed annotation's tool is rejected
    // cites basic.transports.streamable_http#41: excluded from tools/list
    // cites basic.transports.streamable_http#42: a warning with the tool name and the reason
    const bad = { name: 'bad_header', inputSchema: { type: 'object', properties: { where: { type: 'object', 'x-mcp-header': 'Where' } } } };
    const { client, stderr } = await launched(['echo', bad]);
    try {
      const listed = await client.listTools();
      expect(listed.map((t) => t.name)).toEqual(['echo']);
      await expect.poll(stderr).toMatch(/tool "bad_header" left out of tools\/list: .+/);
    } finally {
      await client.close();
    }
  });
});
