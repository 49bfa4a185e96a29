#!/usr/bin/env node
// A stdio MCP server (the official SDK's, a test peer) whose tool list changes while it runs,
// for tool search: `install_weather` adds `get_forecast` and `uninstall_weather` removes it (each
// sends notifications/tools/list_changed); `render_chart_view` is app-only (MCP Apps:
// `_meta.ui.visibility: ["app"]`); `wipe_disk` is there for a config to deny.
// Used by test/host/search/tool-search-host.test.ts.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'catalog-server', title: 'Weather Station', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

let forecast;
server.registerTool('install_weather', { description: 'Adds the forecast tool.' }, async () => {
  forecast ??= server.registerTool(
    'get_forecast',
    { title: 'Weather forecast', description: 'Tomorrow\u2019s weather for a city.', inputSchema: { city: z.string().describe('City name') }, annotations: { readOnlyHint: true } },
    async ({ city }) => text(`sunny in ${city}`),
  );
  return text('installed');
});
server.registerTool('uninstall_weather', { description: 'Removes the forecast tool.' }, async () => {
  forecast?.remove();
  forecast = undefined;
  return text('removed');
});
server.registerTool('render_chart_view', { description: 'Draws the chart inside the app view (app only).', inputSchema: { series: z.string() }, _meta: { ui: { visibility: ['app'] } } }, async () => text('drawn'));
server.registerTool('wipe_disk', { description: 'Erases every file on the disk.', inputSchema: { confirm: z.boolean() } }, async () => text('wiped'));
server.registerTool('echo_text', { description: 'Repeats the text.', inputSchema: { text: z.string() } }, async ({ text: t }) => text(t));

await server.connect(new StdioServerTransport());
