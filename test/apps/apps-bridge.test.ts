/**
 * The host side of the MCP Apps view protocol (src/apps/bridge.ts) over an in-process channel:
 * the view here is a script of JSON-RPC messages, as a real view posts them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppBridgeHost, buildAllow, buildCsp, contentOf, DEFAULT_VIEW_CSP, isCspOrigin, readView, ViewRequestError, type AppBridgeOptions, type ViewServerLink } from '../../src/apps/index.js';

function pair() {
  const toView: Record<string, unknown>[] = [];
  let listener: ((m: unknown) => void) | undefined;
  return {
    toView,
    channel: { post: (m: unknown) => toView.push(m as Record<string, unknown>), onMessage: (l: (m: unknown) => void) => ((listener = l), () => (listener = undefined)) },
    fromView: (m: unknown) => listener?.(m),
    get listening() {
      return listener !== undefined;
    },
  };
}

const link = (over: Partial<ViewServerLink> = {}): ViewServerLink => ({
  server: 'srv',
  callTool: async (name) => ({ content: [{ type: 'text', text: `${name} ran` }], isError: false }),
  listTools: async () => [],
  readResource: async (uri) => ({ contents: [{ uri, text: 'x' }] }),
  listResources: async () => [],
  listResourceTemplates: async () => [],
  listPrompts: async () => [],
  ...over,
});

function bridge(extra: Partial<AppBridgeOptions> = {}) {
  const p = pair();
  const b = new AppBridgeHost({ channel: p.channel, server: link(), hostInfo: { name: 'mcpwire', version: '0' }, ...extra }).start();
  return { p, b };
}

const init = { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'v', version: '1' }, appCapabilities: { availableDisplayModes: ['inline', 'fullscreen'] } } };
const initialized = { jsonrpc: '2.0', method: 'ui/notifications/initialized' };
const tick = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => vi.useRealTimers());

describe('ui/initialize and the initialized gate', () => {
  it('answers host info, the capabilities offered and the sandbox as granted; sends nothing before initialized', async () => {
    const { p, b } = bridge({ on: { openLink: () => true }, sandbox: { csp: { connectDomains: ['https://api.example.com'] } }, hostContext: { theme: 'dark', displayMode: 'inline' } });
    b.sendToolInput({ a: 1 });
    b.sendToolResult({ content: [{ type: 'text', text: 'r' }], structuredContent: { x: 1 }, _meta: { k: 'v' } });
    p.fromView(init);
    await tick();
    expect(p.toView).toHaveLength(1);
    const r = p.toView[0].result as Record<string, any>;
    expect(r.protocolVersion).toBe('2026-01-26');
    expect(r.hostInfo).toEqual({ name: 'mcpwire', version: '0' });
    expect(r.hostCapabilities.openLinks).toEqual({});
    expect(r.hostCapabilities.message).toBeUndefined(); // no callback, not offered
    expect(r.hostCapabilities.sandbox).toEqual({ permissions: {}, csp: { connectDomains: ['https://api.example.com'] } });
    expect(r.hostContext).toMatchObject({ theme: 'dark', displayMode: 'inline' });
    p.fromView(initialized);
    await b.initialized;
    expect(p.toView.slice(1).map((m) => m.method)).toEqual(['ui/notifications/tool-input', 'ui/notifications/tool-result']);
    expect(p.toView[2].params).toMatchObject({ structuredContent: { x: 1 }, _meta: { k: 'v' } });
  });

  it('sends tool-input at most once and never after the result; cancelled instead of a result', async () => {
    const { p, b } = bridge();
    p.fromView(init);
    p.fromView(initialized);
    await b.initialized;
    b.sendToolInputPartial({ a: '1' });
    b.sendToolInput({ a: 1 });
    b.sendToolInput({ a: 2 });
    b.sendToolInputPartial({ a: '3' });
    b.sendToolCancelled('user');
    b.sendToolResult({ content: [] });
    expect(p.toView.slice(1).map((m) => m.method)).toEqual(['ui/notifications/tool-input-partial', 'ui/notifications/tool-input', 'ui/notifications/tool-cancelled']);
  });

  it('a view that never initializes is given up after the bounded wait, with the server named', async () => {
    vi.useFakeTimers();
    const problems: string[] = [];
    const { p, b } = bridge({ limits: { initTimeoutMs: 5000 }, on: { problem: (x) => problems.push(x.code) } });
    const failed = expect(b.initialized).rejects.toThrow(/server "srv" did not initialize within 5000 ms/);
    vi.advanceTimersByTime(5001);
    await failed;
    expect(problems).toEqual(['init-timeout']);
    expect(p.listening).toBe(false);
  });

  it('host-context-changed carries only what changed', async () => {
    const { p, b } = bridge({ hostContext: { theme: 'light', locale: 'en' } });
    p.fromView(init);
    p.fromView(initialized);
    await b.initialized;
    b.setHostContext({ theme: 'dark', locale: 'en' });
    b.setHostContext({ theme: 'dark' });
    expect(p.toView.slice(1)).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } }]);
  });
});

describe("the server's list changes (hostCapabilities serverTools/serverResources listChanged)", () => {
  function following() {
    const p = pair();
    let changed: ((kind: 'tools' | 'resources' | 'prompts') => void) | undefined;
    const server = link({ onListChanged: (l) => ((changed = l), () => (changed = undefined)) });
    const b = new AppBridgeHost({ channel: p.channel, server, hostInfo: { name: 'mcpwire', version: '0' } }).start();
    return { p, b, change: (k: 'tools' | 'resources' | 'prompts') => changed?.(k), get following() {
      return changed !== undefined;
    } };
  }

  it('a link that reports changes: listChanged offered; one waiting per kind before initialized, each after', async () => {
    const f = following();
    f.p.fromView(init);
    await tick();
    const caps = (f.p.toView[0].result as Record<string, any>).hostCapabilities;
    expect(caps.serverTools).toEqual({ listChanged: true });
    expect(caps.serverResources).toEqual({ listChanged: true });
    f.change('tools');
    f.change('tools');
    f.change('resources');
    expect(f.p.toView).toHaveLength(1); // nothing before initialized
    f.p.fromView(initialized);
    await f.b.initialized;
    f.change('prompts');
    f.change('prompts');
    expect(f.p.toView.slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} },
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: {} },
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: {} },
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: {} },
    ]);
    f.b.close();
    expect(f.following).toBe(false);
  });

  it('a link that does not: listChanged not offered', async () => {
    const { p } = bridge();
    p.fromView(init);
    await tick();
    const caps = (p.toView[0].result as Record<string, any>).hostCapabilities;
    expect(caps.serverTools).toEqual({});
    expect(caps.serverResources).toEqual({});
  });
});

describe("the view's requests", () => {
  async function ready(extra: Partial<AppBridgeOptions> = {}) {
    const r = bridge(extra);
    r.p.fromView(init);
    r.p.fromView(initialized);
    await r.b.initialized;
    r.p.toView.length = 0;
    return r;
  }
  const ask = async (p: ReturnType<typeof pair>, method: string, params: unknown, id = 9) => {
    p.fromView({ jsonrpc: '2.0', id, method, params });
    await tick();
    await tick();
    return p.toView.find((m) => m.id === id)!;
  };

  it('ui/message: one block (the stable text) or an array (the 2.0.4 schema), both as an array', async () => {
    const got: unknown[] = [];
    const { p } = await ready({ on: { message: (m) => (got.push(m.content), true) } });
    expect((await ask(p, 'ui/message', { role: 'user', content: { type: 'text', text: 'a' } }, 2)).result).toEqual({});
    await ask(p, 'ui/message', { role: 'user', content: [{ type: 'text', text: 'b' }] }, 3);
    expect(got).toEqual([[{ type: 'text', text: 'a' }], [{ type: 'text', text: 'b' }]]);
    expect(contentOf('nope')).toEqual([]);
  });

  it('ui/open-link: refused without the capability, only http(s), declined as isError', async () => {
    const none = await ready();
    expect((await ask(none.p, 'ui/open-link', { url: 'https://example.com' })).error).toMatchObject({ code: -32601 });
    const some = await ready({ on: { openLink: (u) => u.endsWith('/ok') } });
    expect((await ask(some.p, 'ui/open-link', { url: 'javascript:alert(1)' }, 1)).error).toMatchObject({ code: -32602 });
    expect((await ask(some.p, 'ui/open-link', { url: 'https://example.com/ok' }, 2)).result).toEqual({});
    expect((await ask(some.p, 'ui/open-link', { url: 'https://example.com/no' }, 3)).result).toEqual({ isError: true });
  });

  it('ui/request-display-mode returns the resulting mode, never one the view did not list', async () => {
    const { p, b } = await ready({ hostContext: { displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen', 'pip'] } });
    expect((await ask(p, 'ui/request-display-mode', { mode: 'pip' }, 1)).result).toEqual({ mode: 'inline' }); // the view listed inline, fullscreen
    expect((await ask(p, 'ui/request-display-mode', { mode: 'fullscreen' }, 2)).result).toEqual({ mode: 'fullscreen' });
    expect(b.hostContext.displayMode).toBe('fullscreen');
  });

  it('ui/update-model-context keeps only the last', async () => {
    const { p, b } = await ready({ on: { updateModelContext: () => {} } });
    await ask(p, 'ui/update-model-context', { content: [{ type: 'text', text: '1' }] }, 1);
    await ask(p, 'ui/update-model-context', { structuredContent: { n: 2 } }, 2);
    expect(b.modelContext).toEqual({ structuredContent: { n: 2 } });
  });

  it('tools/call goes to the link; a refusal is a JSON-RPC error', async () => {
    const { p } = await ready({
      server: link({
        callTool: async (name) => {
          if (name === 'model_only') throw new ViewRequestError('may not be called by an app view');
          return { content: [{ type: 'text', text: 'ok' }], isError: false };
        },
      }),
    });
    expect((await ask(p, 'tools/call', { name: 'refresh', arguments: {} }, 1)).result).toMatchObject({ content: [{ text: 'ok' }] });
    expect((await ask(p, 'tools/call', { name: 'model_only' }, 2)).error).toEqual({ code: -32000, message: 'may not be called by an app view' });
    expect((await ask(p, 'sampling/createMessage', {}, 3)).error).toMatchObject({ code: -32601 });
  });

  it('ui/resource-teardown is a request with params {}, answered before close', async () => {
    const { p, b } = await ready();
    const done = b.teardown();
    const req = p.toView.at(-1)!;
    expect(req).toMatchObject({ method: 'ui/resource-teardown', params: {} });
    p.fromView({ jsonrpc: '2.0', id: req.id, result: {} });
    await done;
    expect(b.isClosed).toBe(true);
  });
});

describe('bounds on a view', () => {
  it('drops an oversized message and cuts off a view that keeps flooding', async () => {
    let now = 0;
    const problems: string[] = [];
    const { p, b } = bridge({ now: () => now, limits: { maxMessageBytes: 100, perSecond: 10, burst: 5, maxDropped: 20 }, on: { problem: (x) => problems.push(x.code) } });
    p.fromView({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(200) } });
    expect(problems).toEqual(['oversized']);
    for (let i = 0; i < 30; i++) p.fromView({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: i } });
    expect(problems).toEqual(['oversized', 'rate', 'flood']);
    expect(b.isClosed).toBe(true);
    now += 10_000;
    expect(p.listening).toBe(false);
  });

  it('the observer sees every message both ways', async () => {
    const seen: string[] = [];
    const { p, b } = bridge({ observer: { message: (d, _m, i) => seen.push(`${d} ${i.kind} ${i.method ?? ''}`), event: () => {} } });
    p.fromView(init);
    p.fromView(initialized);
    await b.initialized;
    expect(seen).toEqual(['in request ui/initialize', 'out result ', 'in notification ui/notifications/initialized']);
  });
});

describe('CSP and allow (apps spec: built from declared domains, never an undeclared one)', () => {
  it('the restrictive default when no csp is declared', () => {
    expect(buildCsp(undefined).policy).toBe(DEFAULT_VIEW_CSP);
    expect(DEFAULT_VIEW_CSP).toContain("connect-src 'none'");
  });

  it('maps declared origins and drops what is not an origin', () => {
    const b = buildCsp({ connectDomains: ['https://api.example.com', "'unsafe-eval'", 'https://x.com; script-src *'], resourceDomains: ['https://*.cdn.example.com'] });
    expect(b.policy).toContain('connect-src https://api.example.com;');
    expect(b.policy).toContain("script-src 'self' 'unsafe-inline' https://*.cdn.example.com");
    expect(b.policy).toContain("frame-src 'none'");
    expect(b.policy).toContain("base-uri 'self'");
    expect(b.policy).not.toContain('unsafe-eval');
    expect(b.rejected).toHaveLength(2);
    expect(b.granted).toEqual({ connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] });
    expect(isCspOrigin('https://a.b:8443')).toBe(true);
    expect(isCspOrigin('https://a.b/path')).toBe(false);
  });

  it('allow holds only permissions both requested and granted', () => {
    expect(buildAllow({ camera: {}, clipboardWrite: {} }, ['clipboardWrite', 'geolocation'])).toEqual({ allow: 'clipboard-write', granted: { clipboardWrite: {} } });
    expect(buildAllow({ camera: {} }).allow).toBe('');
  });
});

describe('readView', () => {
  const html = '<!doctype html><html><body>v</body></html>';
  it('text or base64 blob; refuses another MIME type; listing _meta as the fallback', async () => {
    const src = (c: Record<string, unknown>) => ({
      readResource: async (uri: string) => ({ contents: [{ uri, ...c }] as never }),
      listResources: async () => [{ uri: 'ui://a/v', name: 'v', _meta: { ui: { prefersBorder: true } } }],
    });
    const t = await readView('a', src({ mimeType: 'text/html;profile=mcp-app', text: html }), 'ui://a/v');
    expect(t).toMatchObject({ html, meta: { prefersBorder: true }, metaFrom: 'listing' });
    const b = await readView('a', src({ mimeType: 'text/html;profile=mcp-app', blob: Buffer.from(html).toString('base64'), _meta: { ui: { domain: 'd' } } }), 'ui://a/v');
    expect(b).toMatchObject({ html, meta: { domain: 'd' }, metaFrom: 'content' });
    await expect(readView('a', src({ mimeType: 'text/html', text: html }), 'ui://a/v')).rejects.toThrow(/server "a".*MIME type "text\/html"; a view must be "text\/html;profile=mcp-app"/);
    await expect(readView('a', src({}), 'https://x')).rejects.toThrow(/not a ui:\/\/ URI/);
  });
});
