#!/usr/bin/env node
// An MCP Apps server (the official SDK's, a test peer) whose lists change while it runs, for the
// list changes a host forwards to a view (test/apps/apps-list-changed.test.ts). `show` has the view
// ui://lists/view.html; `add_app_tool` adds `extra`, a tool only the view may call (the agent's
// list does not change; the SDK sends notifications/tools/list_changed); `add_resource` adds a
// resource and `add_prompt` a prompt (each list_changed as well). For the gateway's mapping of
// `ui://` URIs (test/serve/serve-apps.test.ts): the resource template ui://lists/item/{id} and
// `link_view`, whose result links the view and embeds it. LISTS_NAME names the server in what
// it serves, so a test tells two of them apart.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const MIME = 'text/html;profile=mcp-app';
const NAME = process.env.LISTS_NAME ?? 'lists';
const VIEW = `<!doctype html><html><body><p>view of ${NAME}</p></body></html>`;
const server = new McpServer({ name: 'lists-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

server.registerResource('view', 'ui://lists/view.html', { mimeType: MIME }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: MIME, text: VIEW }] }));
server.registerResource('item', new ResourceTemplate('ui://lists/item/{id}', { list: undefined }), { mimeType: MIME }, async (uri, { id }) => ({
  contents: [{ uri: uri.href, mimeType: MIME, text: `<!doctype html><html><body><p>item ${id} of ${NAME}</p></body></html>` }],
}));
server.registerTool('link_view', { description: 'Links the view and embeds it.' }, async () => ({
  content: [
    { type: 'resource_link', uri: 'ui://lists/view.html', name: 'view', mimeType: MIME },
    { type: 'resource', resource: { uri: 'ui://lists/view.html', mimeType: MIME, text: VIEW } },
  ],
}));
server.registerPrompt('hello', { description: 'Says hello.' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
server.registerTool('show', { description: 'Shows the view.', _meta: { ui: { resourceUri: 'ui://lists/view.html' } } }, async () => text('shown'));
let n = 0;
server.registerTool('add_app_tool', { description: 'Adds the app-only tool extra.' }, async () => {
  server.registerTool('extra', { description: 'Only the view may call it.', _meta: { ui: { visibility: ['app'] } } }, async () => text('extra ran'));
  return text('added');
});
server.registerTool('add_resource', { description: 'Adds a resource.' }, async () => {
  n++;
  server.registerResource(`note${n}`, `note://lists/${n}`, { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'note' }] }));
  return text('added');
});
server.registerTool('add_prompt', { description: 'Adds a prompt.' }, async () => {
  n++;
  server.registerPrompt(`extra${n}`, { description: 'Another prompt.' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }));
  return text('added');
});

await server.connect(new StdioServerTransport());
