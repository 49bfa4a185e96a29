/**
 * The gateway passes a downstream tool's annotations on only for a server the user marked
 * `trust_annotations`: its client cannot tell whose claims they are, so an untrusted server's
 * hints would read as the gateway's own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp } from '../../src/serve-api.js';
import { root } from '../support/tap-helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-annotations-'));
const configFile = path.join(dir, 'config.json');
const mock = { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs'), path.join(root, 'mock-servers/scenarios/demo.json')] };
fs.writeFileSync(configFile, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: mock, beta: { ...mock, trust_annotations: true } } } }));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('mcpwire serve and tool annotations', { timeout: 60_000 }, () => {
  it('server.tools#6: an untrusted server’s hints are dropped from the gateway’s tools/list, a trusted server’s kept', async () => {
    const gw = await serveHttp(await loadConfig({ globalPath: configFile }), { log: () => {} });
    const client = new Client({ name: 'hints-reader', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
      const { tools } = await client.listTools();
      const tool = (server: string) => tools.find((t) => t.name.startsWith(`mcp_${server}_weather`));
      expect(tool('alpha')).toBeDefined();
      expect(tool('alpha')!.annotations).toBeUndefined();
      expect(tool('beta')!.annotations).toMatchObject({ readOnlyHint: true });
    } finally {
      await client.close();
      await gw.close();
    }
  });
});
