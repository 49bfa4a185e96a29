/**
 * Servers managed at run time, against real mock processes (mock-servers/stdio-server.mjs, the
 * Streamable HTTP mock on 127.0.0.1): servers added, stopped, started and removed at run time,
 * `reload(config)` applying only the differences (an unchanged server keeps its process and its
 * session: same pid, no second initialize), state change events, the status view (pid, protocol
 * version, capabilities, short instructions, redacted last error), and fail-closed client
 * features (an unhandled sampling/elicitation/roots request is refused and raises a diagnostic).
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { ConfigError } from '../../src/errors.js';
import { capabilitySummary, createHost, diffServers, instructionsSummary, sameServer, type HostDiagnostic, type HostStateChange, type McpHost, type ResolvedServer } from '../../src/host/index.js';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import { alive } from '../support/cli-process.js';
import { stdioServer } from '../support/host-servers.js';
import { jsonLines, LEGACY_SERVER } from '../support/recorded-mock.js';
import { tempDirs } from '../support/temp-dirs.js';
import { until } from '../support/until.js';

const tmp = tempDirs('mcpwire-runtime-');
const tmpFile = (name: string): string => path.join(tmp(), name);
const received = jsonLines;

function stdio(id: string, scenario: object = { tools: ['echo'] }, env: Record<string, string> = {}): ResolvedServer {
  return stdioServer(id, [LEGACY_SERVER], { env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario), ...env }, requestTimeoutMs: 15_000 });
}


let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function watch(h: McpHost) {
  const changes: string[] = [];
  const events: string[] = [];
  const diagnostics: HostDiagnostic[] = [];
  h.on('stateChange', (c: HostStateChange) => changes.push(`${c.server}:${c.from ?? '-'}>${c.to}`));
  h.on('serverAdded', (e: { server: string }) => events.push(`added:${e.server}`));
  h.on('serverRemoved', (e: { server: string }) => events.push(`removed:${e.server}`));
  h.on('diagnostic', (d: HostDiagnostic) => diagnostics.push(d));
  return { changes, events, diagnostics };
}

describe('servers managed at run time', { timeout: 60_000 }, () => {
  it('addServer(id, native entry) connects the server on a started host; status has pid, protocol version, capabilities; events added + connecting>ready', async () => {
    host = createHost([], { permission: 'allow' });
    await host.start();
    const w = watch(host);
    const st = await host.addServer('late', { command: process.execPath, args: [LEGACY_SERVER], env: { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['echo'], instructions: 'Late server.' }) } });
    expect(st).toMatchObject({ id: 'late', state: 'ready', transport: 'stdio', transportKind: 'stdio', protocolVersion: '2025-11-25', tools: 1, instructions: 'Late server.', file: '<addServer>' });
    expect(st.pid).toEqual(expect.any(Number));
    expect(alive(st.pid!)).toBe(true);
    expect(st.capabilities).toBe('logging tools');
    expect(st.serverCapabilities).toMatchObject({ tools: { listChanged: true } });
    expect(w.events).toEqual(['added:late']);
    expect(w.changes).toEqual(['late:->connecting', 'late:connecting>ready']);
    const echo = host.tools().find((t) => t.server === 'late' && t.tool === 'echo')!;
    expect((await host.callTool(echo.name, { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('addServer refuses an invalid entry (ConfigError naming server and field, no value), an existing id and a bad id', async () => {
    host = createHost([stdio('a')], { permission: 'allow' });
    await host.start();
    const bad = await host.addServer('b', { transport: 'http', url: 'ftp://secret-host/x' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConfigError);
    expect((bad as ConfigError).serverId).toBe('b');
    expect((bad as Error).message).toMatch(/server "b": invalid configuration: url: must be an absolute http\(s\) URL/);
    expect((bad as Error).message).not.toContain('secret-host');
    await expect(host.addServer('a', { command: 'node' })).rejects.toThrow(/server "a" already exists/);
    await expect(host.addServer('no spaces', { command: 'node' })).rejects.toThrow(/invalid server id/);
    await expect(host.addServer('c', { command: 'node', bogus: 1 } as never)).rejects.toThrow(/unknown field\(s\) "bogus"/);
    expect(host.status().map((s) => s.id)).toEqual(['a']);
  });

  it('stopServer closes the process (state stopped, no reconnect, tools gone); startServer connects again with a new process', async () => {
    host = createHost([stdio('a'), stdio('b')], { permission: 'allow', backoff: { initialDelayMs: 10, jitter: 0 } });
    await host.start();
    const w = watch(host);
    const pid = host.serverStatus('a')!.pid!;
    const stopped = await host.stopServer('a');
    expect(stopped).toMatchObject({ state: 'stopped', tools: 0 });
    expect(stopped.pid).toBeUndefined();
    await until('the stopped server process to exit', () => !alive(pid), 15_000);
    expect(host.tools().map((t) => t.server)).toEqual(['b']);
    await new Promise((r) => setTimeout(r, 100)); // a reconnect would have been scheduled after 10 ms
    expect(host.serverStatus('a')!.state).toBe('stopped');
    const echoA = host.tools().find((t) => t.server === 'a');
    expect(echoA).toBeUndefined();
    const started = await host.startServer('a');
    expect(started.state).toBe('ready');
    expect(started.pid).not.toBe(pid);
    expect(host.tools().map((t) => t.server).sort()).toEqual(['a', 'b']);
    expect(w.changes).toEqual(['a:ready>stopped', 'a:stopped>connecting', 'a:connecting>ready']);
    // starting a ready server is a no-op: same process
    expect((await host.startServer('a')).pid).toBe(started.pid);
  });

  it('startServer starts a config-disabled server; refuses an invalid or untrusted one with the reason', async () => {
    const untrusted: ResolvedServer = { ...stdio('u'), source: 'project', project: '/p', untrusted: { project: '/p', changed: false } };
    const invalid: ResolvedServer = { ...stdio('i'), enabled: false, error: 'command: required' };
    host = createHost([{ ...stdio('off'), enabled: false }, untrusted, invalid], { permission: 'allow' });
    await host.start();
    expect(host.serverStatus('off')!.state).toBe('disabled');
    expect((await host.startServer('off')).state).toBe('ready');
    await expect(host.startServer('u')).rejects.toThrow(/server "u" cannot start: .*trust/);
    await expect(host.startServer('i')).rejects.toThrow(/server "i" cannot start: invalid configuration: command: required/);
    await expect(host.startServer('nope')).rejects.toThrow(/unknown server "nope"/);
  });

  it('removeServer closes the process and forgets the server: closed + removed events, its tools unknown', async () => {
    host = createHost([stdio('a'), stdio('b')], { permission: 'allow' });
    await host.start();
    const w = watch(host);
    const pid = host.serverStatus('a')!.pid!;
    const echo = host.tools().find((t) => t.server === 'a')!;
    expect(await host.removeServer('a')).toBe(true);
    expect(await host.removeServer('a')).toBe(false);
    await until('the removed server process to exit', () => !alive(pid), 15_000);
    expect(host.status().map((s) => s.id)).toEqual(['b']);
    expect(w.changes).toEqual(['a:ready>closed']);
    expect(w.events).toEqual(['removed:a']);
    const r = await host.callTool(echo.name, { text: 'x' });
    expect(r.isError).toBe(true);
  });

  it('reload(config) applies only the differences: unchanged keeps its process and session (same pid, one initialize), changed restarts, removed closes, added connects', async () => {
    const recKeep = tmpFile('keep.jsonl');
    const keep = stdio('keep', { tools: ['echo'] }, { MOCK_RECORD: recKeep });
    const change = stdio('change', { tools: ['echo'] });
    const gone = stdio('gone');
    host = createHost([keep, change, gone], { permission: 'allow' });
    await host.start();
    const w = watch(host);
    const before = Object.fromEntries(host.status().map((s) => [s.id, s]));
    const reloaded: unknown[] = [];
    host.on('reloaded', (r) => reloaded.push(r));

    const changed = stdio('change', { tools: ['echo', 'add'] });
    const result = await host.reload({ servers: [stdio('keep', { tools: ['echo'] }, { MOCK_RECORD: recKeep }), changed, stdio('fresh')], diagnostics: [] });
    expect(result).toEqual({ added: ['fresh'], removed: ['gone'], restarted: ['change'], unchanged: ['keep'] });
    expect(reloaded).toEqual([result]);

    const after = Object.fromEntries(host.status().map((s) => [s.id, s]));
    expect(Object.keys(after)).toEqual(['change', 'fresh', 'keep']);
    // unchanged: the same process, the same session (the server saw one initialize), untouched events
    expect(after.keep.pid).toBe(before.keep.pid);
    expect(after.keep.lastConnectedAt).toBe(before.keep.lastConnectedAt);
    expect(received(recKeep).filter((m) => m.method === 'initialize')).toHaveLength(1);
    expect(w.changes.filter((c) => c.startsWith('keep:'))).toEqual([]);
    // changed: a new process with the new entry
    expect(after.change.state).toBe('ready');
    expect(after.change.pid).not.toBe(before.change.pid);
    expect(after.change.tools).toBe(2);
    await until('the old process of the changed server to exit', () => !alive(before.change.pid!), 15_000);
    // removed
    await until('the removed server process to exit', () => !alive(before.gone.pid!), 15_000);
    expect(after.fresh.state).toBe('ready');
    expect(w.changes).toEqual(expect.arrayContaining(['gone:ready>closed', 'change:ready>closed', 'change:closed>connecting', 'change:connecting>ready', 'fresh:->connecting', 'fresh:connecting>ready']));
    expect(w.events).toEqual(['removed:gone', 'added:fresh']);
  });

  it('reload leaves a stopped server stopped, with the new entry when it changed; startServer then runs the new entry', async () => {
    host = createHost([stdio('a'), stdio('b')], { permission: 'allow' });
    await host.start();
    await host.stopServer('a');
    await host.stopServer('b');
    const r = await host.reload([stdio('a'), stdio('b', { tools: ['echo', 'add'] })]);
    expect(r).toEqual({ added: [], removed: [], restarted: ['b'], unchanged: ['a'] });
    expect(host.status().map((s) => [s.id, s.state])).toEqual([['a', 'stopped'], ['b', 'stopped']]);
    expect(await host.startServer('b')).toMatchObject({ state: 'ready', tools: 2 });
  });

  it('reload keeps an unchanged HTTP server on its session (no new initialize, no DELETE) and restarts one whose headers changed', async () => {
    const mock = (await startHttpMock({ mode: 'json', sessions: true })) as {
      url: string;
      record: { messages: { method?: string }[]; requests?: { method: string }[] };
      close(): Promise<void>;
    };
    try {
      const web = (headers: Record<string, string>): ResolvedServer => ({
        id: 'web',
        source: 'global',
        file: '/u/config.json',
        enabled: true,
        transport: 'http',
        config: { ...emptyNormalizedConfig(), url: mock.url, headers, requestTimeoutMs: 10_000 },
      });
      host = createHost([web({ 'X-Team': 'a' })], { permission: 'allow', auth: false });
      await host.start();
      expect(host.serverStatus('web')).toMatchObject({ state: 'ready', transportKind: 'streamable-http' });
      const inits = () => mock.record.messages.filter((m) => m.method === 'initialize').length;
      expect(inits()).toBe(1);
      expect(await host.reload([web({ 'X-Team': 'a' })])).toMatchObject({ unchanged: ['web'] });
      const echo = host.tools().find((t) => t.tool === 'echo')!;
      expect((await host.callTool(echo.name, { text: 'still' })).isError).toBe(false);
      expect(inits()).toBe(1);
      expect(await host.reload([web({ 'X-Team': 'b' })])).toMatchObject({ restarted: ['web'] });
      expect(host.serverStatus('web')!.state).toBe('ready');
      expect(inits()).toBe(2);
    } finally {
      await host?.close();
      host = undefined;
      await mock.close();
    }
  });
});

describe('run-time changes one at a time', { timeout: 60_000 }, () => {
  it('concurrent reloads and adds apply in call order, each on what the previous left', async () => {
    host = createHost([stdio('a')], { permission: 'allow' });
    await host.start();
    const [r1, r2] = await Promise.all([host.reload([stdio('a'), stdio('b')]), host.reload([stdio('a')])]);
    expect(r1).toEqual({ added: ['b'], removed: [], restarted: [], unchanged: ['a'] });
    expect(r2).toEqual({ added: [], removed: ['b'], restarted: [], unchanged: ['a'] });
    expect(host.status().map((s) => s.id)).toEqual(['a']);
    const added = await Promise.allSettled([host.addServer('c', { command: process.execPath, args: [LEGACY_SERVER] }), host.addServer('c', { command: process.execPath, args: [LEGACY_SERVER] })]);
    expect(added.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(host.status().map((s) => [s.id, s.state])).toEqual([['a', 'ready'], ['c', 'ready']]);
  });
});

describe('status view', { timeout: 60_000 }, () => {
  it('status() is the table view (instructions: first line, ≤ 60 chars; capabilities in one line); serverStatus(id) and status({ detail: true }) keep the whole', async () => {
    const long = `First line of the instructions that goes on and on and on and on and on and on for a while.\nSecond line.`;
    host = createHost([stdio('a', { tools: ['echo'], instructions: long })], { permission: 'allow' });
    await host.start();
    const row = host.status()[0];
    expect(row.instructions!.length).toBeLessThanOrEqual(60);
    expect(row.capabilities).toBe('logging tools');
    expect(row.instructions).toMatch(/^First line of the instructions .*…$/);
    expect(row.serverCapabilities).toBeUndefined();
    expect(Object.values(row).every((v) => v === undefined || typeof v !== 'object' || v === null || 'name' in (v as object))).toBe(true); // flat but serverInfo
    expect(host.serverStatus('a')!.instructions).toBe(long);
    expect(host.status({ detail: true })[0].instructions).toBe(long);
  });

  it('lastError of a failed server is redacted (a configured secret in its stderr never shows)', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const crash = stdio('c', { behavior: { onStart: { exit: { code: 3, stderr: `cannot start with key ${secret}\n` } } } }, { API_TOKEN: secret });
    host = createHost([crash], { permission: 'allow', backoff: { maxRetries: 0 } });
    await host.start();
    const st = host.serverStatus('c')!;
    expect(st.state).toBe('error');
    expect(st.lastError).toBeTruthy();
    expect(st.lastError).not.toContain(secret);
    expect(JSON.stringify(host.status())).not.toContain(secret);
  });

  it('a crash shows in stateChange events (ready>error>connecting>ready) with the redacted error', async () => {
    host = createHost([stdio('a', { tools: ['echo', 'crash'] })], { permission: 'allow', backoff: { initialDelayMs: 20, jitter: 0 } });
    await host.start();
    const w = watch(host);
    const errors: string[] = [];
    host.on('stateChange', (c: HostStateChange) => c.to === 'error' && errors.push(c.status.lastError ?? ''));
    const crash = host.tools().find((t) => t.tool === 'crash')!;
    await host.callTool(crash.name, { code: 5 });
    await until('the server to be ready again', () => w.changes.includes('a:connecting>ready'), 15_000);
    expect(w.changes).toEqual(['a:ready>error', 'a:error>connecting', 'a:connecting>ready']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).not.toBe('');
  });
});

describe('fail closed, visibly', { timeout: 60_000 }, () => {
  it.each([
    ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }],
    ['elicitation/create', { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } }],
    ['roots/list', {}],
  ])('a server asking %s of a host that does not handle it gets -32601, and the host raises a diagnostic naming server and method', async (method, params) => {
    host = createHost([stdio('cf', { extends: 'client-features' })], { permission: 'allow' });
    const w = watch(host);
    await host.start();
    const ask = host.tools().find((t) => t.tool === 'ask')!;
    const r = await host.callTool(ask.name, { method, params });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('-32601');
    const d = w.diagnostics.filter((x) => x.method !== undefined);
    expect(d).toEqual([{ server: 'cf', method, message: expect.stringMatching(new RegExp(`^server "cf" sent ${method.replace('/', '\\/')}, but this host does not handle .*: refused \\(-32601\\)$`)) }]);
  });

  it('a task-required tool is offered where tasks work, and not on a server that negotiated a revision without tasks (even one declaring tasks.requests.tools.call)', async () => {
    const research = { name: 'research', builtin: 'slow', execution: { taskSupport: 'required' } };
    host = createHost(
      [stdio('now', { tasks: { pollInterval: 50 }, tools: [research, 'echo'] }), stdio('old', { protocolVersions: ['2025-06-18'], tasks: { pollInterval: 50 }, tools: [research, 'echo'] })],
      { permission: 'allow' },
    );
    const w = watch(host);
    await host.start();
    expect(host.serverStatus('old')!.protocolVersion).toBe('2025-06-18');
    expect(host.tools().map((t) => `${t.server}/${t.tool}`)).toEqual(['now/echo', 'now/research', 'old/echo']);
    expect(host.unavailableTools()).toEqual([{ server: 'old', tool: 'research', reason: expect.stringMatching(/requires task execution .*the negotiated protocol version has no tasks; not offered$/) }]);
    expect(host.status().map((s) => [s.id, s.toolsUnavailable])).toEqual([['now', undefined], ['old', 1]]);
    expect(w.diagnostics).toContainEqual({ server: 'old', message: expect.stringMatching(/^tool "research" requires task execution/) });
    const r = await host.callTool(host.tools().find((t) => t.server === 'now' && t.tool === 'research')!.name, { ms: 50 });
    expect(r.isError).toBe(false);
  });

  it('a host that handles sampling answers it and raises no diagnostic', async () => {
    host = createHost([stdio('cf', { extends: 'client-features' })], {
      permission: 'allow',
      clientOptions: { onSampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' }) },
    });
    const w = watch(host);
    await host.start();
    const ask = host.tools().find((t) => t.tool === 'ask')!;
    const r = await host.callTool(ask.name, { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } });
    expect(r.isError).toBe(false);
    expect(JSON.stringify(r.content)).toContain('sampled');
    expect(w.diagnostics.filter((x) => x.method !== undefined)).toEqual([]);
  });
});

describe('runtime helpers (pure)', () => {
  it('capabilitySummary: names in the server order, notable flags, task requests; listChanged left out; server text sanitized', () => {
    const caps: Record<string, unknown> = {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    };
    caps['evil\u001b[2J'] = {};
    expect(
      capabilitySummary(caps as Parameters<typeof capabilitySummary>[0]),
    ).toBe('logging tools resources(subscribe) tasks(list,cancel,tools.call) evil[2J');
    expect(capabilitySummary(undefined)).toBeUndefined();
  });

  it('instructionsSummary: the first non-empty line, cut with … when longer or when more lines follow', () => {
    expect(instructionsSummary('Short.')).toBe('Short.');
    expect(instructionsSummary('\n  First.\nSecond.')).toBe('First.…');
    expect(instructionsSummary('x'.repeat(200))!.length).toBe(60);
    expect(instructionsSummary('   ')).toBeUndefined();
  });

  it('sameServer ignores key order but not args order; diffServers refuses an id given twice', () => {
    const a = stdio('a');
    const reordered = { config: { ...a.config }, transport: a.transport, enabled: a.enabled, file: a.file, source: a.source, id: a.id } as ResolvedServer;
    expect(sameServer(a, reordered)).toBe(true);
    expect(sameServer({ ...a, config: { ...a.config, args: ['x', 'y'] } }, { ...a, config: { ...a.config, args: ['y', 'x'] } })).toBe(false);
    expect(sameServer(a, { ...a, config: { ...a.config, permissions: { allow: ['echo'], deny: [] } } })).toBe(false);
    expect(() => diffServers(new Map(), [a, a])).toThrow(/server id "a" given twice/);
  });
});
