/**
 * Tool search in a running host over real server processes: the scripted mock and a server whose
 * tool list changes while it runs (mock-servers/search/catalog-server.mjs, the official SDK's).
 * The index follows list_changed, a reconnect and add/remove; app-only tools (MCP Apps
 * `_meta.ui.visibility: ["app"]`) and tools the config denies are never surfaced, listed, pinned
 * or found; the call tool runs a found tool exactly as a direct call, refusals included.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, TOOL_SEARCH_NAMES, type HostCallResult, type McpHost, type PermissionHook } from '../../../src/host/index.js';
import { startAndSettle, stdioServer } from '../../support/host-servers.js';
import { until } from '../../support/until.js';

const root = path.resolve(path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url)))), '..');
const CATALOG = path.join(root, 'mock-servers/search/catalog-server.mjs');
const MOCK = path.join(root, 'mock-servers/stdio-server.mjs');

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function start(permission: PermissionHook | 'allow' = 'allow'): Promise<McpHost> {
  host = createHost([stdioServer('cat', [CATALOG], { permissions: { allow: [], deny: ['wipe_disk'] } }), stdioServer('mock', [MOCK])], { permission });
  return startAndSettle(host).then(() => host!);
}

const found = async (h: McpHost, q: string) => (await h.searchTools(q, { limit: 50 })).map((x) => `${x.server}/${x.tool}`);
const publicName = (h: McpHost, server: string, tool: string) => [...h.catalog.byName].find(([, v]) => v.server === server && v.tool.name === tool)![0];
const without = ({ durationMs: _d, ...rest }: HostCallResult) => rest;

describe('host.searchTools over real servers', () => {
  it('ranks every ready server\'s tools, with scores and full schemas; filters by server', async () => {
    const h = await start();
    expect(h.status().map((s) => s.state)).toEqual(['ready', 'ready']);
    const hits = await h.searchTools('repeat the text back', { limit: 3 });
    expect(hits[0]).toMatchObject({ server: 'cat', tool: 'echo_text', name: publicName(h, 'cat', 'echo_text') });
    expect(hits[0]!.parameters).toMatchObject({ properties: { text: { type: 'string' } }, required: ['text'] });
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits.every((x, i) => i === 0 || x.score <= hits[i - 1]!.score)).toBe(true);
    expect((await h.searchTools('echo', { servers: ['mock'] })).map((x) => x.server)).toEqual(['mock']);
    // the server's title (serverInfo.title) is indexed too
    expect((await found(h, 'weather station'))[0]).toMatch(/^cat\//);
  });

  it('follows notifications/tools/list_changed: a tool the server adds is found, one it removes is gone', async () => {
    const h = await start();
    expect(await found(h, 'weather forecast for a city')).not.toContain('cat/get_forecast');
    const added = new Promise((r) => h.once('toolsChanged', r));
    expect((await h.callTool(publicName(h, 'cat', 'install_weather'), {})).outcome).toBe('ok');
    await added;
    expect((await found(h, 'weather forecast for a city'))[0]).toBe('cat/get_forecast');
    expect((await h.searchTools('forecast', { readOnly: true })).map((x) => x.tool)).toEqual(['get_forecast']);
    const removed = new Promise((r) => h.once('toolsChanged', r));
    await h.callTool(publicName(h, 'cat', 'uninstall_weather'), {});
    await removed;
    expect(await found(h, 'weather forecast for a city')).not.toContain('cat/get_forecast');
  });

  it('follows a reconnect, removeServer and addServer', async () => {
    const h = await start();
    expect(await found(h, 'echo')).toContain('mock/echo');
    await h.restart('mock');
    await until('mock ready again', () => h.serverStatus('mock')?.state === 'ready');
    expect(await found(h, 'echo')).toContain('mock/echo');
    await h.removeServer('mock');
    expect(await found(h, 'echo')).not.toContain('mock/echo');
    await h.addServer('again', { command: process.execPath, args: [MOCK] });
    expect(await found(h, 'echo')).toContain('again/echo');
  });

  it('never surfaces app-only or denied tools: not found, not pinned, not callable through the call tool', async () => {
    const h = await start();
    expect(await found(h, 'render chart view app')).not.toContain('cat/render_chart_view');
    expect(await found(h, 'wipe erase disk')).not.toContain('cat/wipe_disk');
    const defs = h.toolDefinitions({ toolSearch: { pinned: ['cat/*'] } }).map((d) => d.name);
    expect(defs.slice(0, 2)).toEqual([TOOL_SEARCH_NAMES.search, TOOL_SEARCH_NAMES.call]);
    expect(defs).toContain(publicName(h, 'cat', 'echo_text'));
    expect(defs).not.toContain(publicName(h, 'cat', 'render_chart_view'));
    expect(defs).not.toContain(publicName(h, 'cat', 'wipe_disk'));
    expect(defs).not.toContain(publicName(h, 'mock', 'echo'));
    const app = await h.callTool(TOOL_SEARCH_NAMES.call, { name: publicName(h, 'cat', 'render_chart_view'), arguments: { series: 'x' } });
    expect([app.outcome, app.attempts]).toEqual(['unknown_tool', 0]);
  });

  it('the call tool refuses a denied tool exactly as a direct call does (config deny, the hook)', async () => {
    const h = await start((req) => (req.tool === 'echo' ? 'deny' : 'allow'));
    const denied = publicName(h, 'cat', 'wipe_disk');
    const direct = await h.callTool(denied, { confirm: true });
    const viaSearch = await h.callTool(TOOL_SEARCH_NAMES.call, { name: denied, arguments: { confirm: true } });
    expect(direct.outcome).toBe('denied');
    expect(without(viaSearch)).toEqual(without(direct));
    const hooked = publicName(h, 'mock', 'echo');
    const d2 = await h.callTool(hooked, { text: 'hi' });
    expect(d2.outcome).toBe('denied');
    expect(without(await h.callTool(TOOL_SEARCH_NAMES.call, { name: hooked, arguments: { text: 'hi' } }))).toEqual(without(d2));
    // invalid arguments and unknown names: the same refusals too
    const echo = publicName(h, 'cat', 'echo_text');
    expect(without(await h.callTool(TOOL_SEARCH_NAMES.call, { name: echo, arguments: { text: 3 } }))).toEqual(without(await h.callTool(echo, { text: 3 })));
    expect(without(await h.callTool(TOOL_SEARCH_NAMES.call, { name: 'nope' }))).toEqual(without(await h.callTool('nope', {})));
  });

  it('the agent mode lists the host\'s resource and prompt tools only when pinned: otherwise search finds them and the call tool runs them', async () => {
    const h = await start();
    const hostTools = ['mcp_resources_list', 'mcp_resource_read', 'mcp_prompts_list', 'mcp_prompt_get'];
    // the mock serves resources and prompts, so the host offers all four tools in the full list
    expect(h.toolDefinitions().map((d) => d.name)).toEqual(expect.arrayContaining([...hostTools, 'mcp_result_read']));
    expect(h.toolDefinitions({ toolSearch: true }).map((d) => d.name)).toEqual([TOOL_SEARCH_NAMES.search, TOOL_SEARCH_NAMES.call, 'mcp_result_read']);
    expect(h.toolDefinitions({ toolSearch: { pinned: ['mcp_prompt_get', 'mcpwire/mcp_resources_*'] } }).map((d) => d.name)).toEqual([
      TOOL_SEARCH_NAMES.search, TOOL_SEARCH_NAMES.call, 'mcp_resources_list', 'mcp_prompt_get', 'mcp_result_read',
    ]);
    const s = await h.callTool(TOOL_SEARCH_NAMES.search, { query: 'which resources do the servers offer' });
    const tools = (s.structuredContent as { tools: { name: string; server: string }[] }).tools;
    expect(tools[0]).toMatchObject({ name: 'mcp_resources_list', server: 'mcpwire' });
    expect((await h.searchTools('get a prompt template filled with arguments', { limit: 3 }))[0]!.name).toBe('mcp_prompt_get');
    // a server filter keeps that server's tools only
    expect((await h.searchTools('list resources', { servers: ['cat'] })).map((x) => x.server)).not.toContain('mcpwire');
    const viaCall = await h.callTool(TOOL_SEARCH_NAMES.call, { name: 'mcp_resources_list', arguments: { server: 'mock' } });
    expect(without(viaCall)).toEqual(without(await h.callTool('mcp_resources_list', { server: 'mock' })));
    expect(viaCall.outcome).toBe('ok');
  });

  it('the agent mode: search returns the best matches with schemas, the call tool runs one', async () => {
    const h = await start();
    const s = await h.callTool(TOOL_SEARCH_NAMES.search, { query: 'say the text again', limit: 2 });
    expect(s.outcome).toBe('ok');
    const tools = (s.structuredContent as { tools: { name: string; inputSchema: unknown; score: number }[] }).tools;
    expect(tools.length).toBeLessThanOrEqual(2);
    expect(tools[0]).toMatchObject({ name: publicName(h, 'cat', 'echo_text'), inputSchema: { required: ['text'] } });
    expect(JSON.parse((s.content[0] as { text: string }).text)).toEqual({ tools });
    const r = await h.callTool(TOOL_SEARCH_NAMES.call, { name: tools[0]!.name, arguments: { text: 'hello' } });
    expect([r.outcome, (r.content[0] as { text: string }).text, r.server, r.tool]).toEqual(['ok', 'hello', 'cat', 'echo_text']);
    const bad = await h.callTool(TOOL_SEARCH_NAMES.search, { words: 'x' });
    expect(bad.outcome).toBe('invalid_arguments');
    expect((await h.callTool(TOOL_SEARCH_NAMES.call, { name: TOOL_SEARCH_NAMES.search, arguments: { query: 'x' } })).outcome).toBe('invalid_arguments');
  });
});
