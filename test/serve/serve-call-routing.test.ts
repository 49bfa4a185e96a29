/**
 * Who a downstream server's request goes to while calls of several gateway sessions run on it:
 * the session that started a call on that server most recently (gateway.ts, `whileCalling`).
 * Two official SDK clients hold HTTP sessions of one `mcpwire serve --http`, both declaring
 * elicitation and answering it with their own name; each holds a slow call on the server, then
 * the first one calls a tool that asks: the first one must be asked, as its call is the latest,
 * though its session started calling there before the second one's did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-serve-routing-')();
const record = path.join(dir, 'received.jsonl');
const config = path.join(dir, 'config.json');
fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { MOCK_RECORD: record } } } } }));

/** The downstream `tools/call`s of the slow tool received so far. */
const slowCalls = (): number =>
  (fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method?: string; params?: { name?: string } })
    .filter((m) => m.method === 'tools/call' && m.params?.name === 'slow').length;

function client(name: string): Client {
  const c = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: {} } });
  c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { who: name } }));
  return c;
}

describe('mcpwire serve: a server request during calls of several sessions', { timeout: 60_000 }, () => {
  it('client.elicitation#4: goes to the session whose call on that server started last, even when that session was calling there first', async () => {
    const gw = await startUntil([cli, 'serve', '--http', '--config', config], /LISTEN (http:\/\/\S+)/);
    const first = client('first');
    const second = client('second');
    try {
      await first.connect(new StreamableHTTPClientTransport(new URL(gw.match[1])));
      await second.connect(new StreamableHTTPClientTransport(new URL(gw.match[1])));
      const { tools } = await first.listTools();
      const tool = (t: string) => tools.find((x) => x.name === `mcp_alpha_${t}` || x.name.startsWith(`mcp_alpha_${t}_`))!.name;
      const ask = { name: tool('ask'), arguments: { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: { type: 'object', properties: { who: { type: 'string' } } } } } };
      // each session holds a call on the server, the first one's first
      const held = [first, second].map(async (c, i) => {
        await expect.poll(slowCalls, { timeout: 10_000 }).toBe(i);
        return c.callTool({ name: tool('slow'), arguments: { ms: 4_000 } });
      });
      await expect.poll(slowCalls, { timeout: 10_000 }).toBe(2);
      const asked = await first.callTool(ask);
      expect((asked.content as { text: string }[])[0]!.text).toContain('first');
      // and the second one's latest call is its own
      const again = await second.callTool(ask);
      expect((again.content as { text: string }[])[0]!.text).toContain('second');
      await Promise.all(held);
    } finally {
      await first.close();
      await second.close();
      await stop(gw.child);
    }
  });
});
