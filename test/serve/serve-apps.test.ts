/**
 * MCP Apps through `mcpwire serve` (src/serve/apps.ts), as the official SDK client sees it: two
 * example app servers whose views share one URI (`ui://get-time/mcp-app.html`) are told apart as
 * `ui://<server>/…` and each is read back from its own server; `_meta.ui` stays on listed tools;
 * the extension is declared to the servers only when the client declared it; tools only an app
 * may call are listed (and callable) only for a client that renders views. Every place a client
 * meets a server's `ui://` URI through the gateway maps it the same way — `resources/list` (two
 * servers listing one URI both appear), `resources/templates/list` (an expansion read back from
 * its server), a tool result's resource link and embedded resource — and each reads back from
 * its own server (mock-servers/apps/lists-server.mjs twice); a subscription to a mapped view goes
 * to its server under the server's URI and its updates come back under the mapped one. docs/apps.md's `mcpwire serve`
 * block: ran-by: test/serve/serve-apps.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { publicToolName } from '../../src/host/index.js';
import { cli, root } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-serve-apps-')();
const example = (name: string) => ({ transport: 'stdio', command: process.execPath, args: [path.join(root, 'node_modules/@modelcontextprotocol', name, 'dist/index.js'), '--stdio'] });
const lists = (name: string) => ({ transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/apps/lists-server.mjs')], env: { LISTS_NAME: name } });
const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

function gateway(tag: string, servers: string[] = ['vanilla', 'react', 'mock', 'la', 'lb']) {
  const record = path.join(dir, `${tag}-mock.jsonl`);
  const config = path.join(dir, `${tag}.json`);
  const all: Record<string, unknown> = {
    vanilla: example('server-basic-vanillajs'),
    react: example('server-basic-react'),
    mock: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/apps/app-server.mjs')], env: { MOCK_APP_ROLE: 'check', MOCK_RECORD: record, MOCK_APP_UPDATE: '1' } },
    la: lists('la'),
    lb: lists('lb'),
  };
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: Object.fromEntries(servers.map((s) => [s, all[s]])) } }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--config', config], stderr: 'pipe', env: { ...process.env, MCPWIRE_TRACE: '' } as Record<string, string> });
  return { transport, record };
}
const initializeOf = (record: string) => fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.method === 'initialize');

describe('mcpwire serve in front of app servers, with the official SDK client', { timeout: 90_000 }, () => {
  /**
   * One gateway and one client that renders views, shared by the three tests that read through
   * it: the downstream `initialize` the mock recorded is this client's, no test changes what the
   * gateway serves, and the one subscription and update are the subscription test's own.
   */
  let views: Promise<{ client: Client; record: string }> | undefined;
  const updated: string[] = [];
  const viewsClient = () =>
    (views ??= (async () => {
      const { transport, record } = gateway('views');
      const client = new Client({ name: 'sdk-apps-host', version: '1.0.0' }, { capabilities: { extensions: UI } as never });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
      await client.connect(transport);
      return { client, record };
    })());
  afterAll(async () => {
    await (await views?.catch(() => undefined))?.client.close();
  });

  it('a client that renders views: distinct view URIs read from their own servers, _meta.ui kept, app-only tools listed and callable, the extension declared downstream', async () => {
    const { client, record } = await viewsClient();
    const { tools } = await client.listTools();
    const uriOf = (prefix: string) => (tools.find((t) => t.name.startsWith(prefix))?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
    expect(uriOf('mcp_vanilla_get')).toBe('ui://vanilla/get-time/mcp-app.html');
    expect(uriOf('mcp_react_get')).toBe('ui://react/get-time/mcp-app.html');
    const a = await client.readResource({ uri: 'ui://vanilla/get-time/mcp-app.html' });
    const b = await client.readResource({ uri: 'ui://react/get-time/mcp-app.html' });
    expect(a.contents[0]).toMatchObject({ uri: 'ui://vanilla/get-time/mcp-app.html', mimeType: 'text/html;profile=mcp-app' });
    expect(b.contents[0]).toMatchObject({ uri: 'ui://react/get-time/mcp-app.html', mimeType: 'text/html;profile=mcp-app' });
    expect((a.contents[0] as { text: string }).text).not.toBe((b.contents[0] as { text: string }).text);
    const refresh = tools.find((t) => t.name.startsWith('mcp_mock_refresh'));
    expect(refresh?._meta).toMatchObject({ ui: { visibility: ['app'] } });
    expect(await client.callTool({ name: refresh!.name, arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'refreshed' }] });
    expect(initializeOf(record).params.capabilities.extensions?.['io.modelcontextprotocol/ui']).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
  });

  it('ui:// URIs in resources/list, resource templates and tool results are mapped the same way and read back from their own server', async () => {
    const { client } = await viewsClient();
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    // two servers listing ui://get-time/mcp-app.html, two listing ui://lists/view.html: each appears, as its own
    expect(uris).toEqual(expect.arrayContaining(['ui://vanilla/get-time/mcp-app.html', 'ui://react/get-time/mcp-app.html', 'ui://la/lists/view.html', 'ui://lb/lists/view.html']));
    expect(uris.filter((u) => u.startsWith('ui://') && !/^ui:\/\/(vanilla|react|mock|la|lb)\//.test(u))).toEqual([]);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(['ui://la/lists/item/{id}', 'ui://lb/lists/item/{id}']));
    const item = await client.readResource({ uri: 'ui://lb/lists/item/blue' });
    expect(item.contents[0]).toMatchObject({ uri: 'ui://lb/lists/item/blue', mimeType: 'text/html;profile=mcp-app' });
    expect((item.contents[0] as { text: string }).text).toContain('item blue of lb');
    const { tools } = await client.listTools();
    const linkView = tools.find((t) => t.name.startsWith('mcp_la_link_view'))!;
    const r = (await client.callTool({ name: linkView.name, arguments: {} })) as { content: Record<string, any>[] };
    expect(r.content[0]).toMatchObject({ type: 'resource_link', uri: 'ui://la/lists/view.html' });
    expect(r.content[1]).toMatchObject({ type: 'resource', resource: { uri: 'ui://la/lists/view.html' } });
    const view = await client.readResource({ uri: r.content[0].uri });
    expect(view.contents[0]).toMatchObject({ uri: 'ui://la/lists/view.html' });
    expect((view.contents[0] as { text: string }).text).toContain('view of la');
    expect((await client.readResource({ uri: 'ui://lb/lists/view.html' })).contents[0]).toMatchObject({ text: expect.stringContaining('view of lb') });
  });

  it('a subscription to a mapped view URI is asked of its server by its own URI; its updates come back under the mapped one', async () => {
    const { client, record } = await viewsClient();
    await client.subscribeResource({ uri: 'ui://mock/mock/probe.html' });
    const down = fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.method === 'resources/subscribe');
    expect(down?.params.uri).toBe('ui://mock/probe.html');
    const { tools } = await client.listTools();
    const update = tools.find((t) => t.name.startsWith('mcp_mock_update'))!;
    expect(await client.callTool({ name: update.name, arguments: { uri: 'ui://mock/probe.html' } })).toMatchObject({ content: [{ text: 'sent' }] });
    for (let i = 0; i < 200 && updated.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(updated).toEqual(['ui://mock/mock/probe.html']);
  });

  it('a client that does not: no app-only tool listed, the extension not declared downstream', async () => {
    // its own gateway: what is declared downstream follows the gateway's first client; the two
    // servers its assertions are about are enough
    const { transport, record } = gateway('plain', ['vanilla', 'mock']);
    const client = new Client({ name: 'sdk-plain-host', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.some((t) => t.name.startsWith('mcp_vanilla_get'))).toBe(true);
      expect(tools.some((t) => t.name.startsWith('mcp_mock_refresh'))).toBe(false);
      // nor callable by its name (the name a client that renders views is given)
      const refused = await client.callTool({ name: publicToolName('mock', 'refresh'), arguments: {} }).then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      expect(refused).toMatch(/for its app's view only/);
      expect(fs.readFileSync(record, 'utf8')).not.toContain('"name":"refresh"');
      expect(initializeOf(record).params.capabilities.extensions?.['io.modelcontextprotocol/ui']).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
