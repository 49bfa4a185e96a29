/**
 * MCP Apps' unhappy paths against the scripted app server (mock-servers/apps/app-server.mjs):
 * the engine (host visibility, a view's link to its own server, reading views) and `mcpwire app`
 * in headless Chromium (CSP, refusals, a view that never initializes, a flooding view).
 */
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type McpHost } from '../../src/host/index.js';
import { APPS_EXTENSION, hostViewServer, loadToolView, publicNameOf, ViewCache, withAppsExtension } from '../../src/apps/index.js';
import { launchBrowser, runApp, viewText, type Browser } from '../support/app-browser.js';
import { node, root, runCli } from '../support/cli-process.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { tempDirs } from '../support/temp-dirs.js';

const MOCK = join(root, 'mock-servers/apps/app-server.mjs');
const dir = tempDirs('mcpwire-apps-mock-')();
const config = join(dir, 'config.json');
writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { mock: { transport: 'stdio', command: node, args: [MOCK] } } } }));

describe('the engine against the mock app server', () => {
  let host: McpHost;
  const record = join(dir, 'received.jsonl');
  beforeAll(async () => {
    host = createHost([stdioServer('mock', [MOCK], { env: { MOCK_RECORD: record } }), stdioServer('other', [MOCK], { env: { MOCK_APP_ROLE: 'other' } })], {
      clientOptions: withAppsExtension({}),
      permission: 'allow',
      backoff: { maxRetries: 0 },
    });
    await startAndSettle(host);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it('declares the extension with its MIME type when the embedder opts in', () => {
    const init = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.method === 'initialize');
    expect(init.params.capabilities.extensions[APPS_EXTENSION]).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
  });

  it('an app-only tool is not in the agent tool list, and the model path calling it is refused (nothing sent)', async () => {
    expect(host.tools().map((t) => t.tool)).not.toContain('refresh');
    expect(host.tools().map((t) => t.tool)).toContain('model_only');
    const r = await host.callTool(publicNameOf(host, 'mock', 'refresh')!, {});
    expect(r).toMatchObject({ outcome: 'denied', attempts: 0 });
    expect(r.content[0]).toMatchObject({ text: expect.stringContaining('is for its app\'s view only') });
    expect(readFileSync(record, 'utf8')).not.toContain('"name":"refresh"');
  });

  it("a view reaches its own server's app tools; a model-only tool or another server's tool is refused", async () => {
    const link = hostViewServer(host, 'mock');
    await expect(link.callTool('refresh', {}, {})).resolves.toMatchObject({ content: [{ text: 'refreshed' }] });
    await expect(link.callTool('model_only', {}, {})).rejects.toThrow(/may not be called by an app view/);
    await expect(link.callTool('other_tool', {}, {})).rejects.toThrow(/no tool "other_tool" on this view's server "mock"/);
    expect(await host.callTool(publicNameOf(host, 'other', 'other_tool')!, {})).toMatchObject({ outcome: 'ok' }); // it exists, on the other server
    expect((await link.listTools({})).map((t) => t.name)).not.toContain('model_only');
  });

  it('reads views: wrong MIME type and a missing resource refused; the flat key, a blob and listing metadata accepted', async () => {
    await expect(loadToolView(host, 'mock', 'wrong_mime')).rejects.toThrow(/server "mock".*MIME type "text\/html"/);
    await expect(loadToolView(host, 'mock', 'missing')).rejects.toThrow(/server "mock".*resources\/read "ui:\/\/mock\/missing.html" failed/);
    const legacy = await loadToolView(host, 'mock', 'legacy');
    expect(legacy.view).toMatchObject({ uri: 'ui://mock/legacy.html', metaFrom: 'listing', meta: { prefersBorder: false } });
    expect(legacy.view.html).toContain('legacy');
    expect(legacy.csp).toContain('connect-src https://api.example.com;');
  });

  it('the view cache forgets a server on its resources list change and on reconnect', async () => {
    const cache = new ViewCache();
    const events = new EventEmitter();
    cache.follow(events as never);
    await loadToolView(host, 'mock', 'probe', { cache });
    let loads = 0;
    await cache.get('mock', 'ui://mock/probe.html', async () => (loads++, (await loadToolView(host, 'mock', 'probe')).view));
    expect(loads).toBe(0);
    events.emit('listChanged', { server: 'mock', kind: 'resources' });
    expect(cache.size).toBe(0);
    await loadToolView(host, 'mock', 'probe', { cache });
    events.emit('stateChange', { server: 'mock', to: 'ready' });
    expect(cache.size).toBe(0);
  });
});

describe('mcpwire app refuses what it must not render', () => {
  it('wrong MIME type, missing resource, app-only tool: exit 1, the server and the reason named', { timeout: 180_000 }, async () => {
    const wrong = await runCli(['app', 'mock.wrong_mime', '--no-open', '--config', config]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('app view of server "mock": resource "ui://mock/wrong.html" has MIME type "text/html"');
    const missing = await runCli(['app', 'mock.missing', '--no-open', '--config', config]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/server "mock".*resources\/read "ui:\/\/mock\/missing.html" failed/);
    const appOnly = await runCli(['app', 'mock.refresh', '--no-open', '--config', config]);
    expect(appOnly.code).toBe(1);
    expect(appOnly.stderr).toContain('tool "refresh" of server "mock" is for its app\'s view only');
    expect(wrong.stdout + missing.stdout + appOnly.stdout).toBe('');
  });
});

describe('mcpwire app: misbehaving views in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function probe(action: string) {
    const run = runApp(['mock.probe', `action=${action}`, '--config', config, '--init-timeout-ms', '90000']);
    const page = await browser.newPage();
    const consoleLines: string[] = [];
    page.on('console', (m) => consoleLines.push(m.text()));
    await page.goto(await run.url);
    await run.waitErr('the view is initialized');
    // The view's frame may not be listed (or may still be navigating) when the host reports the
    // view initialized: viewText reads it once it is there (bounded).
    const text = await viewText(page, (t) => t.includes(`done ${action}`));
    return { run, page, text, consoleLines };
  }
  async function end(p: Awaited<ReturnType<typeof probe>>) {
    p.run.child.kill('SIGINT');
    expect(await p.run.exited).toBe(130);
    await p.page.close();
  }

  it('a fetch to an origin the view did not declare is blocked by the CSP (a violation in the browser)', { timeout: 180_000 }, async () => {
    const p = await probe('fetch');
    expect(p.text).toContain('CSP violation: connect-src http://127.0.0.1:9/undeclared');
    expect(p.text).toContain('fetch: failed');
    expect(p.consoleLines.join('\n')).toMatch(/'http:\/\/127.0.0.1:9\/undeclared' violates the following Content Security Policy directive: "connect-src 'none'"/);
    await end(p);
  });

  it("the view's calls: its app-only tool answered; a model-only tool and another server's tool refused", { timeout: 300_000 }, async () => {
    const ok = await probe('call-app-only');
    expect(ok.text).toMatch(/app-only: .*"result":\{"content":\[\{"type":"text","text":"refreshed"\}\]/);
    await end(ok);
    const model = await probe('call-model-only');
    expect(model.text).toMatch(/model-only: .*"error":\{"code":-32000,"message":"MCP tool mock\/model_only may not be called by an app view/);
    expect(model.run.stderr()).toContain('view: tools/call: MCP tool mock/model_only may not be called by an app view');
    await end(model);
    const other = await probe('call-other');
    expect(other.text).toMatch(/other: .*"error":\{"code":-32000,"message":"no tool \\"other_tool\\" on this view's server \\"mock\\"/);
    await end(other);
  });

  it('a view that floods is cut off: the command ends with the reason (exit 1)', { timeout: 180_000 }, async () => {
    const run = runApp(['mock.probe', 'action=flood', '--config', config, '--init-timeout-ms', '90000']);
    const page = await browser.newPage();
    await page.goto(await run.url);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('the excess is dropped');
    expect(run.stderr()).toMatch(/the view of server "mock" kept flooding \(\d+ messages dropped\); it was cut off/);
    await page.close();
  });

  it('a view that never initializes: a bounded wait, then a clear error (exit 1)', { timeout: 180_000 }, async () => {
    const run = runApp(['mock.silent', '--config', config, '--init-timeout-ms', '3000']);
    const page = await browser.newPage();
    await page.goto(await run.url);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('the view of server "mock" did not initialize within 3000 ms (no ui/notifications/initialized)');
    await page.close();
  });
});
