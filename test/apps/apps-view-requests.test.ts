/**
 * A view's MCP requests and notifications through the bridge (src/apps/bridge.ts) to its own
 * server through a real host (`hostViewServer`): `ping`, `tools/list` (only tools a view may
 * call), `resources/read`, `resources/list`, `resources/templates/list`, `prompts/list`; and the
 * view's notifications to the embedder's callbacks: `ui/notifications/size-changed`,
 * `notifications/message`, `ui/notifications/request-teardown`, and the sandbox proxy's
 * `ui/notifications/sandbox-proxy-ready` answered with the view's HTML. The server is the
 * official SDK's (mock-servers/apps/lists-server.mjs) plus the scripted app server.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type McpHost } from '../../src/host/index.js';
import { AppBridgeHost, hostViewServer, ViewCache, loadToolView, withAppsExtension, type AppBridgeOptions } from '../../src/apps/index.js';
import { root } from '../support/cli-process.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { until } from '../support/until.js';

const LISTS = join(root, 'mock-servers/apps/lists-server.mjs');

let host: McpHost;
beforeAll(async () => {
  host = createHost([stdioServer('lists', [LISTS])], { clientOptions: withAppsExtension({}), permission: 'allow', backoff: { maxRetries: 0 } });
  await startAndSettle(host);
}, 60_000);
afterAll(async () => {
  await host?.close();
});

/** A view of server "lists" over an in-process channel, initialized; `ask` sends a request and resolves its answer. */
async function view(extra: Partial<AppBridgeOptions> = {}) {
  const toView: Record<string, any>[] = [];
  let listener: ((m: unknown) => void) | undefined;
  const bridge = new AppBridgeHost({
    channel: { post: (m) => toView.push(m as Record<string, any>), onMessage: (l) => ((listener = l), () => (listener = undefined)) },
    server: hostViewServer(host, 'lists'),
    hostInfo: { name: 'test', version: '0' },
    ...extra,
  }).start();
  let id = 100;
  const ask = async (method: string, params: Record<string, unknown> = {}) => {
    const n = ++id;
    listener?.({ jsonrpc: '2.0', id: n, method, params });
    return until(`the answer to ${method}`, () => toView.find((m) => m.id === n && !('method' in m)), 30_000);
  };
  const tell = (method: string, params: Record<string, unknown> = {}) => listener?.({ jsonrpc: '2.0', method, params });
  await ask('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'v', version: '1' }, appCapabilities: {} });
  tell('ui/notifications/initialized');
  await bridge.initialized;
  return { bridge, toView, ask, tell };
}

describe("a view's requests reach its own server through the host", () => {
  it('ping, tools/list, resources/read, resources/list, resources/templates/list, prompts/list', { timeout: 60_000 }, async () => {
    const v = await view();
    expect(await v.ask('ping')).toMatchObject({ result: {} });
    const tools = (await v.ask('tools/list')).result.tools.map((t: { name: string }) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['show', 'add_app_tool', 'link_view']));
    const read = await v.ask('resources/read', { uri: 'ui://lists/view.html' });
    expect(read.result.contents[0]).toMatchObject({ uri: 'ui://lists/view.html', mimeType: 'text/html;profile=mcp-app', text: expect.stringContaining('view of lists') });
    expect((await v.ask('resources/list')).result.resources.map((r: { uri: string }) => r.uri)).toContain('ui://lists/view.html');
    expect((await v.ask('resources/templates/list')).result.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).toContain('ui://lists/item/{id}');
    expect((await v.ask('prompts/list')).result.prompts.map((p: { name: string }) => p.name)).toContain('hello');
    expect(await v.ask('resources/read', { uri: 'ui://lists/nothing-here' })).toMatchObject({ error: { code: expect.any(Number) } });
    expect(await v.ask('sampling/createMessage')).toMatchObject({ error: { code: -32601 } });
    v.bridge.close();
  });

  it("the view's notifications reach the embedder's callbacks; the sandbox proxy gets the view's HTML", { timeout: 60_000 }, async () => {
    const sizes: unknown[] = [];
    const logs: unknown[] = [];
    let teardownAsked = 0;
    const html = '<!doctype html><p>v</p>';
    const v = await view({
      on: { sizeChanged: (s) => sizes.push(s), log: (l) => logs.push(l), teardownRequested: () => teardownAsked++ },
      sandboxResource: { html, sandbox: 'allow-scripts', csp: { connectDomains: ['https://api.example.com'] } },
    });
    v.tell('ui/notifications/size-changed', { width: 320, height: 200 });
    v.tell('ui/notifications/size-changed', { height: 'tall' });
    v.tell('notifications/message', { level: 'warning', logger: 'view', data: { n: 1 } });
    v.tell('ui/notifications/request-teardown');
    v.tell('ui/notifications/sandbox-proxy-ready');
    expect(sizes).toEqual([{ width: 320, height: 200 }, {}]);
    expect(logs).toEqual([{ level: 'warning', logger: 'view', data: { n: 1 } }]);
    expect(teardownAsked).toBe(1);
    expect(v.toView.filter((m) => m.method === 'ui/notifications/sandbox-resource-ready').map((m) => m.params)).toEqual([
      { html, sandbox: 'allow-scripts', csp: { connectDomains: ['https://api.example.com'] } },
    ]);
    v.bridge.close();
  });
});

describe("the host's rules apply to a view's calls", () => {
  it("a tool the config denies is refused to the view (nothing sent); the server's configured secret is redacted from what the view gets", { timeout: 60_000 }, async () => {
    const SECRET = 'orchid-lantern-velvet-harbour';
    const guarded = createHost([stdioServer('lists', [LISTS], { env: { LISTS_NAME: SECRET }, secretNames: ['LISTS_NAME'], permissions: { allow: [], deny: ['add_prompt'] } })], {
      clientOptions: withAppsExtension({}),
      permission: 'allow',
      backoff: { maxRetries: 0 },
    });
    try {
      await startAndSettle(guarded);
      const link = hostViewServer(guarded, 'lists');
      await expect(link.callTool('add_prompt', {}, {})).rejects.toThrow(/denied|not allowed|permission/i);
      expect((await guarded.client('lists')!.listPrompts({})).map((p) => p.name)).toEqual(['hello']); // it did not run
      const r = await link.callTool('link_view', {}, {});
      const text = JSON.stringify(r);
      expect(text).toContain('view of ');
      expect(text).not.toContain(SECRET);
    } finally {
      await guarded.close();
    }
  });
});

describe('the view cache follows a real host', () => {
  it("a server's views are forgotten on its resources list change and on its restart", { timeout: 60_000 }, async () => {
    const cache = new ViewCache();
    const stop = cache.follow(host);
    await loadToolView(host, 'lists', 'show', { cache });
    expect(cache.size).toBe(1);
    const changed = new Promise((r) => host.once('listChanged', r));
    expect((await host.callTool([...host.catalog.byName].find(([, e]) => e.tool.name === 'add_resource')![0], {})).outcome).toBe('ok');
    await changed;
    expect(cache.size).toBe(0);
    await loadToolView(host, 'lists', 'show', { cache });
    expect(cache.size).toBe(1);
    await host.restart('lists');
    await until('lists ready again', () => host.serverStatus('lists')?.state === 'ready', 30_000);
    expect(cache.size).toBe(0);
    stop();
  });
});
