/**
 * The host API the gateway is built on, and what the gateway does with it: `host.client(id)` (a
 * ready server's client, none otherwise), `callTool`'s `_meta` (sent with the request; the
 * host's own progress token kept), a tool's `outputSchema` in `host.tools()` — listed by the
 * gateway, whose answer to a structured tool whose result was cut for size is an error result
 * (no `structuredContent` a client would reject against the schema).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createHost, loadConfig } from '../../src/host/index.js';
import { serveHttp } from '../../src/serve-api.js';
import { root } from '../support/tap-helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-host-api-'));
const record = path.join(dir, 'received.jsonl');
const configFile = path.join(dir, 'config.json');
fs.writeFileSync(
  configFile,
  JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { MOCK_RECORD: record } } } } }),
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('the host API the gateway uses', { timeout: 60_000 }, () => {
  it('host.client(id) is the ready server’s client, and none for an unknown or stopped server', async () => {
    const host = createHost(await loadConfig({ globalPath: configFile }), { permission: 'allow' });
    try {
      await host.start();
      const client = host.client('alpha');
      expect(client?.serverInfo?.name).toBeTruthy();
      expect((await client!.listResources()).length).toBeGreaterThan(0);
      expect(host.client('nope')).toBeUndefined();
      await host.stopServer('alpha');
      expect(host.client('alpha')).toBeUndefined();
    } finally {
      await host.close();
    }
  });

  it('callTool sends the caller’s _meta with tools/call, its own progress token winning; host.tools() carries outputSchema', async () => {
    const host = createHost(await loadConfig({ globalPath: configFile }), { permission: 'allow' });
    try {
      await host.start();
      const named = (tool: string) => host.tools().find((t) => t.server === 'alpha' && t.tool === tool)!;
      expect(named('structured').outputSchema).toMatchObject({ type: 'object', required: ['text', 'length', 'upper'] });
      expect(named('echo').outputSchema).toBeUndefined();
      const seen: number[] = [];
      const r = await host.callTool(named('progress').name, { steps: 2, intervalMs: 10 }, { _meta: { traceparent: TRACEPARENT, progressToken: 'not-the-host-one' }, onProgress: (p) => seen.push(p.progress) });
      expect(r.outcome).toBe('ok');
      expect(seen.length).toBeGreaterThan(0);
      const calls = fs
        .readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method?: string; params?: { _meta?: Record<string, unknown> } })
        .filter((m) => m.method === 'tools/call');
      const meta = calls.at(-1)!.params!._meta!;
      expect(meta.traceparent).toBe(TRACEPARENT);
      expect(meta.progressToken).not.toBe('not-the-host-one');
      expect(meta.progressToken).toBeDefined();
    } finally {
      await host.close();
    }
  });

  it('the gateway lists outputSchema; a structured result cut for size comes back as an error result, a whole one as it was', async () => {
    const gw = await serveHttp(await loadConfig({ globalPath: configFile }), { log: () => {}, host: { bound: { maxBytes: 400 } } });
    const client = new Client({ name: 'schema-checker', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
      const { tools } = await client.listTools();
      const structured = tools.find((t) => t.name.startsWith('mcp_alpha_structured'))!;
      expect(structured.outputSchema).toMatchObject({ type: 'object', required: ['text', 'length', 'upper'] });
      const small = await client.callTool({ name: structured.name, arguments: { text: 'abc' } });
      expect(small.structuredContent).toEqual({ text: 'abc', length: 3, upper: 'ABC' });
      // The SDK client validates structuredContent against the listed schema: a cut result must not reach it as a success.
      const big = await client.callTool({ name: structured.name, arguments: { text: 'x'.repeat(2000) } });
      expect(big.isError).toBe(true);
      expect(big.structuredContent).toBeUndefined();
    } finally {
      await client.close();
      await gw.close();
    }
  });
});
