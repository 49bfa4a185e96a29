/**
 * The host supervisor over fake clients (fake timers for backoff) and, at the end, over the
 * real stdio mock server: parallel start, isolation of failing servers, reconnect with backoff
 * and jitter, auth_required, list_changed refresh, tool calls with permissions and bounded
 * results, host tools for resources/prompts, status view, close.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthRequiredError, ConnectionClosedError, TimeoutError } from '../../src/errors.js';
import type { CallToolResult, ServerCapabilities, Tool } from '../../src/mcp/types.js';
import {
  backoffDelay,
  createHost,
  publicToolName,
  type ConnectFn,
  type HostClient,
  type McpHost,
  type ResolvedServer,
} from '../../src/host/index.js';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';

const tool = (name: string): Tool => ({ name, description: `${name} tool`, inputSchema: { type: 'object', properties: { x: { type: 'string' } } } });

class FakeClient extends EventEmitter implements HostClient {
  closed = false;
  calls: { name: string; args: Record<string, unknown>; options: unknown }[] = [];
  callImpl: (name: string, args: Record<string, unknown>) => Promise<CallToolResult> = async (name, args) => ({ content: [{ type: 'text', text: `${name}:${JSON.stringify(args)}` }] });
  serverInfo = { name: 'fake', version: '1.0.0' };
  instructions = 'Use me\u0007 wisely';
  transportKind = 'stdio';
  constructor(
    public tools: Tool[],
    public serverCapabilities: ServerCapabilities = { tools: {} },
  ) {
    super();
  }
  async listTools() {
    return this.tools;
  }
  async callTool(name: string, args: Record<string, unknown>, options: unknown) {
    this.calls.push({ name, args, options });
    return this.callImpl(name, args);
  }
  async listResources() {
    return [{ uri: 'file:///a', name: 'a' }];
  }
  async listResourceTemplates() {
    return [];
  }
  async readResource(uri: string) {
    return { contents: [{ uri, text: 'content of a' }] };
  }
  async listPrompts() {
    return [{ name: 'p' }];
  }
  async getPrompt(name: string) {
    return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `prompt ${name}` } }] };
  }
  async close() {
    this.closed = true;
  }
  drop(err = new ConnectionClosedError('server exited')) {
    this.emit('close', err);
  }
}

function server(id: string, extra: Partial<ResolvedServer> = {}, config: Partial<ResolvedServer['config']> = {}): ResolvedServer {
  return { id, source: 'project', file: '/p/.mcpwire/config.json', enabled: true, transport: 'stdio', config: { ...emptyNormalizedConfig(), command: 'node', ...config }, ...extra };
}

/** A connect() whose behaviour per server id is a queue: a client, an error, or a pending promise. */
function fakeConnect() {
  const queues = new Map<string, (FakeClient | Error | Promise<FakeClient>)[]>();
  const attempts: string[] = [];
  const fn: ConnectFn = async (config) => {
    const id = config.id!;
    attempts.push(id);
    const q = queues.get(id) ?? [];
    const next = q.length > 1 ? q.shift()! : q[0];
    if (next === undefined) throw new Error(`no behaviour for ${id}`);
    if (next instanceof Error) throw next;
    return next;
  };
  return { fn, attempts, set: (id: string, ...b: (FakeClient | Error | Promise<FakeClient>)[]) => queues.set(id, b) };
}

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
  vi.useRealTimers();
});

describe('start and status', () => {
  it('connects enabled servers; disabled and invalid ones are not connected; status has the status view columns', async () => {
    const c = fakeConnect();
    const a = new FakeClient([tool('t1'), tool('t2')]);
    c.set('a', a);
    host = createHost({ servers: [server('a'), server('off', { enabled: false }), server('bad', { enabled: false, error: 'field "url": required', transport: 'http' })], diagnostics: [] }, { connect: c.fn, now: () => 1234 });
    await host.start();
    expect(c.attempts).toEqual(['a']);
    const st = host.status();
    expect(st.map((s) => [s.id, s.state, s.tools, s.enabled, s.source])).toEqual([
      ['a', 'ready', 2, true, 'project'],
      ['bad', 'error', 0, false, 'project'],
      ['off', 'disabled', 0, false, 'project'],
    ]);
    expect(host.serverStatus('a')).toMatchObject({ lastConnectedAt: 1234, serverInfo: { name: 'fake', version: '1.0.0' }, transportKind: 'stdio', instructions: 'Use me wisely', retries: 0 });
    expect(host.serverStatus('bad')!.lastError).toContain('invalid configuration');
    expect(host.tools().map((t) => t.name)).toEqual([publicToolName('a', 't1'), publicToolName('a', 't2')]);
  });

  it('a server without the tools capability exposes no tools (and is not asked for them)', async () => {
    const c = fakeConnect();
    const a = new FakeClient([tool('t')], {});
    const spy = vi.spyOn(a, 'listTools');
    c.set('a', a);
    host = createHost([server('a')], { connect: c.fn });
    await host.start();
    expect(host.serverStatus('a')!.state).toBe('ready');
    expect(host.tools()).toEqual([]);
    expect(spy).not.toHaveBeenCalled();
  });

  it('one hanging or failing server does not hold up the others', async () => {
    const c = fakeConnect();
    c.set('ok', new FakeClient([tool('t')]));
    c.set('broken', new Error('spawn ENOENT'));
    c.set('hang', new Promise<FakeClient>(() => {}));
    host = createHost([server('ok'), server('broken'), server('hang')], { connect: c.fn, backoff: { maxRetries: 0 } });
    const started = host.start();
    await vi.waitFor(() => expect(host!.serverStatus('ok')!.state).toBe('ready'));
    expect(host.serverStatus('broken')).toMatchObject({ state: 'error', lastError: 'spawn ENOENT' });
    expect(host.serverStatus('hang')!.state).toBe('connecting');
    expect(host.tools()).toHaveLength(1);
    void started;
  });
});

describe('reconnect', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  it('retries with exponential backoff and jitter, then resets the count on success', async () => {
    const c = fakeConnect();
    const client = new FakeClient([tool('t')]);
    c.set('a', new Error('e1'), new Error('e2'), new Error('e3'), client);
    const statuses: string[] = [];
    host = createHost([server('a')], { connect: c.fn, random: () => 0.5, now: () => Date.now() });
    host.on('status', (s) => statuses.push(s.state));
    await host.start();
    expect(host.serverStatus('a')).toMatchObject({ state: 'error', retries: 1, lastError: 'e1' });
    expect(host.serverStatus('a')!.nextRetryAt).toBe(Date.now() + 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(c.attempts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.attempts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(c.attempts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(4000);
    expect(c.attempts).toHaveLength(4);
    expect(host.serverStatus('a')).toMatchObject({ state: 'ready', retries: 0, tools: 1 });
    expect(host.serverStatus('a')!.lastError).toBeUndefined();
    expect(statuses.filter((s) => s === 'ready')).toHaveLength(1);
  });

  it('backoffDelay: capped, jittered within ±jitter', () => {
    expect(backoffDelay(0, {}, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, {}, () => 0.5)).toBe(8000);
    expect(backoffDelay(10, {}, () => 0.5)).toBe(30_000);
    expect(backoffDelay(0, {}, () => 0)).toBe(800);
    expect(backoffDelay(0, {}, () => 1)).toBe(1200);
    expect(backoffDelay(2, { initialDelayMs: 10, factor: 3, jitter: 0 }, () => 0.9)).toBe(90);
  });

  it('gives up after maxRetries; restart() tries again', async () => {
    const c = fakeConnect();
    c.set('a', new Error('down'));
    host = createHost([server('a')], { connect: c.fn, backoff: { maxRetries: 2, initialDelayMs: 10 }, random: () => 0.5 });
    await host.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(c.attempts).toHaveLength(3);
    expect(host.serverStatus('a')).toMatchObject({ state: 'error', retries: 2 });
    expect(host.serverStatus('a')!.nextRetryAt).toBeUndefined();
    c.set('a', new FakeClient([tool('t')]));
    await host.restart('a');
    expect(host.serverStatus('a')).toMatchObject({ state: 'ready', retries: 0 });
  });

  it('a dropped connection removes the tools, then reconnects and restores them', async () => {
    const c = fakeConnect();
    const first = new FakeClient([tool('t')]);
    const second = new FakeClient([tool('t')]);
    c.set('a', first, second);
    c.set('b', new FakeClient([tool('u')]));
    host = createHost([server('a'), server('b')], { connect: c.fn, random: () => 0.5 });
    const changes: number[] = [];
    host.on('toolsChanged', (tools: unknown[]) => changes.push(tools.length));
    await host.start();
    const name = publicToolName('a', 't');
    first.drop();
    expect(host.serverStatus('a')).toMatchObject({ state: 'error', lastError: 'server exited (MCPWIRE_CONNECTION_CLOSED)' });
    expect(host.serverStatus('b')!.state).toBe('ready');
    expect(host.tools().map((t) => t.server)).toEqual(['b']);
    const during = await host.callTool(name, {});
    expect(during.isError).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(host.serverStatus('a')!.state).toBe('ready');
    expect(host.tools().map((t) => t.name)).toContain(name); // same public name after reconnecting
    expect(changes.at(-1)).toBe(2);
    first.drop(); // a late event from the old client is ignored
    expect(host.serverStatus('a')!.state).toBe('ready');
  });

  it('AuthRequiredError → auth_required without retries; restart() after authorizing', async () => {
    const c = fakeConnect();
    c.set('a', new AuthRequiredError('401 from server'));
    host = createHost([server('a', { transport: 'http' }, { command: undefined, url: 'https://x.example/mcp' })], { connect: c.fn });
    await host.start();
    expect(host.serverStatus('a')).toMatchObject({ state: 'auth_required' });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(c.attempts).toHaveLength(1);
    c.set('a', new FakeClient([]));
    await host.restart('a');
    expect(host.serverStatus('a')!.state).toBe('ready');
  });

  it('close() closes clients and stops pending retries', async () => {
    const c = fakeConnect();
    const a = new FakeClient([tool('t')]);
    c.set('a', a);
    c.set('b', new Error('down'));
    host = createHost([server('a'), server('b')], { connect: c.fn });
    await host.start();
    await host.close();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(c.attempts).toEqual(['a', 'b']);
    expect(a.closed).toBe(true);
    expect(host.status().map((s) => s.state)).toEqual(['closed', 'closed']);
    expect((await host.callTool(publicToolName('a', 't'), {})).isError).toBe(true);
  });
});

describe('tools/list_changed', () => {
  it('re-lists tools; unchanged tools keep their public names', async () => {
    const c = fakeConnect();
    const a = new FakeClient([tool('keep'), tool('gone')]);
    c.set('a', a);
    host = createHost([server('a')], { connect: c.fn });
    await host.start();
    expect(host.tools().map((t) => t.name)).toEqual([publicToolName('a', 'gone'), publicToolName('a', 'keep')]);
    a.tools = [tool('keep'), tool('new')];
    const changed = new Promise((r) => host!.once('toolsChanged', r));
    a.emit('toolsListChanged', {});
    await changed;
    const after = host.tools().map((t) => t.name);
    expect(after).toEqual([publicToolName('a', 'keep'), publicToolName('a', 'new')]);
  });

  it('resources/prompts list_changed are passed on as listChanged events', async () => {
    const c = fakeConnect();
    const a = new FakeClient([]);
    c.set('a', a);
    host = createHost([server('a')], { connect: c.fn });
    await host.start();
    const seen: unknown[] = [];
    host.on('listChanged', (e) => seen.push(e));
    a.emit('resourcesListChanged', {});
    a.emit('promptsListChanged', {});
    expect(seen).toEqual([{ server: 'a', kind: 'resources' }, { server: 'a', kind: 'prompts' }]);
  });
});

describe('tool calls', () => {
  async function ready(options: Parameters<typeof createHost>[1] = {}, cfg: Partial<ResolvedServer['config']> = {}) {
    const c = fakeConnect();
    const a = new FakeClient([tool('read'), tool('write'), tool('rm')], { tools: {}, resources: {}, prompts: {} });
    c.set('a', a);
    host = createHost([server('a', {}, { requestTimeoutMs: 5000, ...cfg })], { connect: c.fn, ...options });
    await host.start();
    return a;
  }

  it('calls the original tool name with the server timeout and returns a bounded result', async () => {
    const a = await ready({ permission: 'allow', bound: { maxBytes: 1000 } });
    const r = await host!.callTool(publicToolName('a', 'read'), { x: 'y' });
    expect(r).toMatchObject({ content: [{ type: 'text', text: 'read:{"x":"y"}' }], isError: false, outcome: 'ok' });
    expect(a.calls[0]).toMatchObject({ name: 'read', args: { x: 'y' }, options: { timeoutMs: 5000 } });
    a.callImpl = async () => ({ content: [{ type: 'text', text: 'z'.repeat(5000) }] });
    const big = await host!.callTool(publicToolName('a', 'read'), {}, { timeoutMs: 10 });
    expect(big.truncated).toBeDefined();
    expect(a.calls[1].options).toMatchObject({ timeoutMs: 10 });
  });

  it('isError results and thrown errors both become tool errors', async () => {
    const a = await ready({ permission: 'allow' });
    a.callImpl = async () => ({ content: [{ type: 'text', text: 'bad input' }], isError: true });
    expect(await host!.callTool(publicToolName('a', 'read'), {})).toMatchObject({ content: [{ type: 'text', text: 'bad input' }], isError: true, outcome: 'tool_error' });
    a.callImpl = async () => {
      throw new TimeoutError('tools/call', 5000, { serverId: 'a' });
    };
    const r = await host!.callTool(publicToolName('a', 'read'), {});
    expect(r.isError).toBe(true);
    expect((r.content[0] as { text: string }).text).toMatch(/MCP tool a\/read failed: .*timed out.*MCPWIRE_TIMEOUT/);
  });

  it('unknown names and non-object arguments are tool errors', async () => {
    await ready({ permission: 'allow' });
    expect((await host!.callTool('mcp_nope_x_00000000', {})).isError).toBe(true);
    expect((await host!.callTool(publicToolName('a', 'read'), [1, 2])).isError).toBe(true);
  });

  it('permissions: default deny without a hook; config deny beats the hook; config allow skips it', async () => {
    const a = await ready({}, { permissions: { allow: ['read'], deny: ['r*'] } });
    const denied = await host!.callTool(publicToolName('a', 'read'), {});
    expect(denied).toMatchObject({ isError: true });
    expect((denied.content[0] as { text: string }).text).toContain('config-deny');
    expect((await host!.callTool(publicToolName('a', 'write'), {})).content[0]).toMatchObject({ text: expect.stringContaining('no-hook') });
    expect(a.calls).toHaveLength(0);
    await host!.close();

    const asked: unknown[] = [];
    const b = await ready({ permission: (req) => (asked.push(req), req.tool === 'write' ? 'allow' : 'deny') }, { permissions: { allow: ['read'], deny: ['rm'] } });
    expect((await host!.callTool(publicToolName('a', 'read'), {})).isError).toBe(false); // config allow, hook not asked
    expect((await host!.callTool(publicToolName('a', 'write'), { x: '1' })).isError).toBe(false);
    expect((await host!.callTool(publicToolName('a', 'rm'), {})).isError).toBe(true); // config deny, hook not asked
    expect(asked).toEqual([expect.objectContaining({ server: 'a', tool: 'write', publicName: publicToolName('a', 'write'), arguments: { x: '1' } })]);
    expect(b.calls.map((c) => c.name)).toEqual(['read', 'write']);
  });

  it('a hook that throws denies', async () => {
    await ready({
      permission: () => {
        throw new Error('ui gone');
      },
    });
    expect((await host!.callTool(publicToolName('a', 'write'), {})).content[0]).toMatchObject({ text: expect.stringContaining('hook-error') });
  });
});

describe('host tools', () => {
  it('are offered only when a ready server supports resources/prompts, and run against it', async () => {
    const c = fakeConnect();
    c.set('r', new FakeClient([], { resources: {} }));
    c.set('t', new FakeClient([tool('x')]));
    host = createHost([server('r'), server('t')], { connect: c.fn });
    await host.start();
    expect(host.toolDefinitions().map((d) => d.name)).toEqual([publicToolName('t', 'x'), 'mcp_resources_list', 'mcp_resource_read', 'mcp_result_read']);
    const list = await host.callTool('mcp_resources_list', {});
    expect(list.structuredContent).toEqual({ resources: [{ server: 'r', uri: 'file:///a', name: 'a' }] });
    const read = await host.callTool('mcp_resource_read', { server: 'r', uri: 'file:///a' });
    expect(read.content.at(-1)).toEqual({ type: 'text', text: 'content of a' });
    expect((await host.callTool('mcp_resource_read', { server: 't', uri: 'file:///a' })).content[0]).toMatchObject({ text: expect.stringContaining('does not offer resources') });
    expect((await host.callTool('mcp_prompt_get', { server: 'zz', name: 'p' })).content[0]).toMatchObject({ text: expect.stringContaining('unknown MCP server') });
    expect((await host.callTool('mcp_resource_read', { server: 'r' })).isError).toBe(true);
  });

  it('a listing that fails on one server still lists the others', async () => {
    const c = fakeConnect();
    const bad = new FakeClient([], { prompts: {} });
    bad.listPrompts = async () => {
      throw new Error('boom');
    };
    c.set('good', new FakeClient([], { prompts: {} }));
    c.set('bad', bad);
    host = createHost([server('good'), server('bad')], { connect: c.fn });
    await host.start();
    const r = await host.callTool('mcp_prompts_list', {});
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({ prompts: [{ server: 'good', name: 'p' }] });
    expect((r.content.at(-1) as { text: string }).text).toContain('bad: boom');
    const g = await host.callTool('mcp_prompt_get', { server: 'good', name: 'p' });
    expect(g.content.at(-1)).toEqual({ type: 'text', text: 'user: prompt p' });
  });
});

describe('over the real stdio mock server', () => {
  it('connects, adapts tools, calls echo, reports status, closes', async () => {
    const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
    const mock = path.join(root, 'mock-servers', 'stdio-server.mjs');
    host = createHost([server('mock', {}, { command: process.execPath, args: [mock], env: { MOCK_SCENARIO_JSON: JSON.stringify({ extends: 'default' }) } })], { permission: 'allow' });
    await host.start();
    const st = host.serverStatus('mock')!;
    expect(st.state).toBe('ready');
    expect(st.tools).toBeGreaterThan(3);
    const echo = host.tools().find((t) => t.tool === 'echo')!;
    expect(echo.name).toBe(publicToolName('mock', 'echo'));
    expect(echo.description.startsWith('MCP mock/echo\n')).toBe(true);
    const r = await host.callTool(echo.name, { text: 'hello host' });
    expect(r).toMatchObject({ content: [{ type: 'text', text: 'hello host' }], isError: false, outcome: 'ok' });
    expect(host.toolDefinitions().some((d) => d.name === 'mcp_resources_list')).toBe(true);
    await host.close();
    expect(host.serverStatus('mock')!.state).toBe('closed');
  });
});
