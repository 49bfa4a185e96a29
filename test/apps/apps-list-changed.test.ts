/**
 * A view hears when its own server's lists change (MCP Apps: `hostCapabilities.serverTools` /
 * `serverResources` `listChanged`, "Host supports tools/list_changed notifications"; the 2.0.4
 * bridge forwards `notifications/{tools,resources,prompts}/list_changed` to the view). A real
 * host over a real server whose lists change while it runs (mock-servers/apps/lists-server.mjs,
 * the official SDK's) and a second server; the view is the bridge's in-process channel, as an
 * embedder's postMessage pair would be. A tool only the view may call is added: the view is told
 * though the agent's tool list does not change; another server's change tells this view nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type McpHost } from '../../src/host/index.js';
import { AppBridgeHost, hostViewServer, publicNameOf, withAppsExtension } from '../../src/apps/index.js';
import { root } from '../support/cli-process.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { until } from '../support/until.js';

const LISTS = join(root, 'mock-servers/apps/lists-server.mjs');

let host: McpHost;
beforeAll(async () => {
  host = createHost([stdioServer('lists', [LISTS]), stdioServer('elsewhere', [LISTS])], { clientOptions: withAppsExtension({}), permission: 'allow', backoff: { maxRetries: 0 } });
  await startAndSettle(host);
}, 60_000);
afterAll(async () => {
  await host?.close();
});

/** A view of `server`'s, initialized: what the host posted to it so far. */
async function view(server: string) {
  const toView: Record<string, unknown>[] = [];
  let listener: ((m: unknown) => void) | undefined;
  const bridge = new AppBridgeHost({
    channel: { post: (m) => toView.push(m as Record<string, unknown>), onMessage: (l) => ((listener = l), () => (listener = undefined)) },
    server: hostViewServer(host, server),
    hostInfo: { name: 'test', version: '0' },
  }).start();
  listener?.({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'v', version: '1' }, appCapabilities: {} } });
  listener?.({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
  await bridge.initialized;
  const methods = () => toView.map((m) => m.method).filter((m) => typeof m === 'string');
  return { bridge, toView, methods, listening: () => listener !== undefined };
}

const call = async (server: string, tool: string) => expect((await host.callTool(publicNameOf(host, server, tool)!, {})).outcome).toBe('ok');

describe('list changes of its server reach the view', () => {
  it('offers listChanged for tools and resources in ui/initialize', async () => {
    const v = await view('lists');
    const caps = (v.toView[0].result as { hostCapabilities: Record<string, unknown> }).hostCapabilities;
    expect(caps.serverTools).toEqual({ listChanged: true });
    expect(caps.serverResources).toEqual({ listChanged: true });
    v.bridge.close();
  });

  it('an app-only tool added: tools/list_changed to the view (the agent list unchanged), the view lists and calls it', { timeout: 60_000 }, async () => {
    const v = await view('lists');
    const other = await view('elsewhere');
    const agentTools = host.tools().map((t) => t.name);
    await call('lists', 'add_app_tool');
    await until('notifications/tools/list_changed to the view', () => v.methods().includes('notifications/tools/list_changed'), 30_000);
    expect(host.tools().map((t) => t.name)).toEqual(agentTools);
    const link = hostViewServer(host, 'lists');
    expect((await link.listTools({})).map((t) => t.name)).toContain('extra');
    await expect(link.callTool('extra', {}, {})).resolves.toMatchObject({ content: [{ text: 'extra ran' }] });
    expect(other.methods()).not.toContain('notifications/tools/list_changed');
    v.bridge.close();
    other.bridge.close();
  });

  it('a resource and a prompt added: resources/ and prompts/list_changed; none once the view is closed', { timeout: 60_000 }, async () => {
    const v = await view('lists');
    const other = await view('elsewhere');
    await call('lists', 'add_resource');
    await until('notifications/resources/list_changed to the view', () => v.methods().includes('notifications/resources/list_changed'), 30_000);
    await call('lists', 'add_prompt');
    await until('notifications/prompts/list_changed to the view', () => v.methods().includes('notifications/prompts/list_changed'), 30_000);
    expect(other.methods().filter((m) => m.endsWith('list_changed'))).toEqual([]);
    v.bridge.close();
    const before = v.toView.length;
    const changed = new Promise((r) => host.once('listChanged', r));
    await call('lists', 'add_resource');
    await changed;
    expect(v.toView.length).toBe(before);
    other.bridge.close();
  });
});
