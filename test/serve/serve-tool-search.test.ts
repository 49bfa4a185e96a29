/**
 * `mcpwire serve --tool-search` and `mcpwire tools --search`, as a client and a user meet them:
 * the official SDK's client over stdio sees the two tool-search tools (and a pinned one) instead
 * of every tool, finds and calls tools through them, still gets `notifications/tools/list_changed`
 * when a server's list changes, and is refused a denied or app-only tool as a direct call is.
 * The CLI ranks the configured servers' tools (text and `--json`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { publicToolName } from '../../src/host/index.js';
import { runCliHere } from '../support/cli-in-process.js';
import { cli, root } from '../support/cli-process.js';
import { until } from '../support/until.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-tool-search-'));
const configFile = path.join(dir, 'config.json');
const servers = {
  cat: { command: process.execPath, args: [path.join(root, 'mock-servers/search/catalog-server.mjs')], permissions: { deny: ['wipe_disk'] } },
  mock: { command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')] },
};
fs.writeFileSync(configFile, JSON.stringify({ version: 1, mcp: { servers } }));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? '');
type Found = { name: string; server: string; tool: string; inputSchema: unknown };
const found = (r: unknown) => (r as { structuredContent: { tools: Found[] } }).structuredContent.tools;

describe('mcpwire serve --tool-search', { timeout: 90_000 }, () => {
  it('lists the search and call tools and the pinned ones; finds, calls, follows list_changed; refuses denied and app-only tools', async () => {
    const client = new Client({ name: 'search-client', version: '1.0.0' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--tool-search', '--pin', 'cat/echo_*', '--config', configFile, '--no-daemon'], stderr: 'pipe' }));
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed.slice(0, 4)).toEqual(['mcpwire_status', 'mcp_result_read', 'mcp_tools_search', 'mcp_tool_call']);
      expect(listed).toHaveLength(5);
      expect(listed[4]).toMatch(/^mcp_cat_echo_text_/);

      const install = found(await client.callTool({ name: 'mcp_tools_search', arguments: { query: 'install the weather tools', limit: 1 } }))[0]!;
      expect(install.tool).toBe('install_weather');
      await client.callTool({ name: 'mcp_tool_call', arguments: { name: install.name, arguments: {} } });
      await until('notifications/tools/list_changed', () => changed > 0);
      const forecast = found(await client.callTool({ name: 'mcp_tools_search', arguments: { query: 'what will the weather be tomorrow in Paris' } }))[0]!;
      expect(forecast).toMatchObject({ tool: 'get_forecast', inputSchema: { properties: { city: { type: 'string' } } } });
      expect(text(await client.callTool({ name: 'mcp_tool_call', arguments: { name: forecast.name, arguments: { city: 'Paris' } } }))).toBe('sunny in Paris');

      // the denied tool: never found; called by its name, refused exactly as a direct call
      const all = found(await client.callTool({ name: 'mcp_tools_search', arguments: { query: 'erase wipe disk files render chart view', limit: 50 } })).map((f) => f.tool);
      expect(all).not.toContain('wipe_disk');
      expect(all).not.toContain('render_chart_view');
      const status = JSON.parse(text(await client.callTool({ name: 'mcpwire_status', arguments: {} }))) as { servers: { id: string }[] };
      expect(status.servers.map((s) => s.id)).toEqual(['cat', 'mock']);
      const wipe = publicToolName('cat', 'wipe_disk');
      const direct = await client.callTool({ name: wipe, arguments: { confirm: true } });
      expect([direct.isError, text(direct)]).toEqual([true, expect.stringMatching(/denied/)]);
      expect(await client.callTool({ name: 'mcp_tool_call', arguments: { name: wipe, arguments: { confirm: true } } })).toEqual(direct);
      const unknown = await client.callTool({ name: 'mcp_tool_call', arguments: { name: 'mcp_nope', arguments: {} } }).catch((e: Error) => e);
      expect(String(unknown)).toMatch(/unknown tool/);
    } finally {
      await client.close();
    }
  });

  it('--pin without --tool-search is a usage error', async () => {
    const r = await runCliHere(['serve', '--pin', 'a/b', '--config', configFile]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--pin goes with --tool-search/);
  });
});

describe('mcpwire tools --search', { timeout: 90_000 }, () => {
  it('ranks the configured servers\' tools: text lines best first, --json with server, tool, name, score, description', async () => {
    const r = await runCliHere(['tools', '--search', 'repeat my text', '--limit', '2', '--json', '--config', configFile, '--no-daemon']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { server: string; tool: string; name: string; score: number; description: string }[];
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows[0]).toMatchObject({ server: 'cat', tool: 'echo_text', description: 'Repeats the text.' });
    expect(rows[0]!.name).toMatch(/^mcp_cat_echo_text_[0-9a-f]{8}$/);
    expect(Object.keys(rows[0]!).sort()).toEqual(['description', 'name', 'score', 'server', 'tool']);
    const t = await runCliHere(['tools', 'mock', '--search', 'add two numbers', '--config', configFile, '--no-daemon']);
    expect(t.code).toBe(0);
    expect(t.stdout.split('\n')[0]).toMatch(/^\s*\d+\.\d\d {2}mock\/add/);
    expect(t.stdout).not.toMatch(/cat\//);
    const none = await runCliHere(['tools', '--search', 'zzzz qqqq', '--config', configFile, '--no-daemon']);
    expect([none.code, none.stdout]).toEqual([1, 'no tool matches "zzzz qqqq"\n']);
    const bad = await runCliHere(['tools', '--search', 'x', '--limit', '0', '--config', configFile]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--limit: a whole number from 1 to 50/)]);
  });
});
