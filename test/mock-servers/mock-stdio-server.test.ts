/**
 * The scripted stdio mock MCP server (mock-servers/stdio-server.mjs), spawned as a real child
 * process and spoken to in raw NDJSON. Imports nothing from src/: this proves the mock itself,
 * so that the client tests built on it can trust it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIO } from '../../mock-servers/lib/default-scenario.mjs';
import { until } from '../support/until.js';

const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SERVER = path.join(root, 'mock-servers', 'stdio-server.mjs');
const SCENARIOS = path.join(root, 'mock-servers', 'scenarios');
const WAIT = 10_000; // generous: CI is a loaded 2-core machine

type Msg = Record<string, any>;

interface Mock {
  child: ChildProcessWithoutNullStreams;
  /** Every parsed stdout line (arrays kept as arrays), in order. */
  messages: any[];
  /** Raw stdout lines, in order. */
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  send: (m: unknown) => void;
  waitFor: (pred: (m: any) => boolean, ms?: number) => Promise<any>;
  request: (method: string, params?: unknown) => Promise<Msg>;
  initialize: (version?: string) => Promise<Msg>;
}

const children: ChildProcessWithoutNullStreams[] = [];
const tmpDirs: string[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmpFile(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mock-stdio-'));
  tmpDirs.push(dir);
  return path.join(dir, name);
}

let nextId = 1;

function startMock(opts: { scenario?: unknown; args?: string[]; env?: Record<string, string> } = {}): Mock {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...opts.env };
  if (opts.scenario !== undefined) env.MOCK_SCENARIO_JSON = JSON.stringify(opts.scenario);
  const child = spawn(process.execPath, [SERVER, ...(opts.args ?? [])], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const messages: any[] = [];
  const lines: string[] = [];
  const waiters: { pred: (m: any) => boolean; resolve: (m: any) => void; reject: (e: Error) => void }[] = [];
  let err = '';
  let buf = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(line);
      let m: unknown;
      try {
        m = JSON.parse(line);
      } catch {
        continue;
      }
      messages.push(m);
      for (const w of [...waiters]) {
        if (w.pred(m)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }
  });
  child.stdin.on('error', () => {}); // the server may exit on purpose
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      // give stdout a moment to drain, then fail whoever still waits: no 10 s timeouts on a crash
      setTimeout(() => {
        for (const w of waiters.splice(0)) w.reject(new Error(`server exited (${code ?? signal}); stderr: ${err}`));
      }, 50);
    }),
  );
  const send = (m: unknown) => child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  const waitFor = (pred: (m: any) => boolean, ms = WAIT) => {
    const already = messages.find(pred);
    if (already) return Promise.resolve(already);
    return new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; got:\n${lines.join('\n').slice(0, 2000)}\nstderr: ${err}`)), ms);
      const done = () => clearTimeout(timer);
      waiters.push({ pred, resolve: (m) => (done(), resolve(m)), reject: (e) => (done(), reject(e)) });
    });
  };
  const request = (method: string, params?: unknown) => {
    const id = nextId++;
    send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return waitFor((m) => m?.id === id && !m.method);
  };
  const initialize = async (version = '2025-11-25') => {
    const res = await request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test', version: '0' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return res;
  };
  return { child, messages, lines, stderr: () => err, exited, send, waitFor, request, initialize };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const textOf = (res: Msg) => res.result.content[0].text as string;
const call = (m: Mock, name: string, args: unknown = {}) => m.request('tools/call', { name, arguments: args });

/** Proves `id` got no answer: a later ping is answered first, then a further grace period passes. */
async function expectNoAnswer(m: Mock, id: number, graceMs = 300) {
  await m.request('ping');
  await sleep(graceMs);
  expect(m.messages.filter((x) => x?.id === id && !x.method)).toEqual([]);
}

describe('lifecycle (basic/lifecycle)', () => {
  it('answers initialize with the requested version, serverInfo, derived capabilities and instructions', async () => {
    const m = startMock();
    const res = await m.initialize('2025-06-18');
    expect(res.jsonrpc).toBe('2.0');
    expect(res.result.protocolVersion).toBe('2025-06-18');
    expect(res.result.serverInfo).toEqual(DEFAULT_SCENARIO.serverInfo);
    expect(res.result.instructions).toMatch(/scripted mock/);
    expect(res.result.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    expect(await m.request('ping')).toMatchObject({ result: {} });
  });

  it('answers an unsupported requested version with its latest, from a configurable set', async () => {
    const a = startMock();
    expect((await a.initialize('2000-01-01')).result.protocolVersion).toBe('2025-11-25');
    const b = startMock({ scenario: { tools: ['echo'], protocolVersions: ['2025-03-26', '2024-11-05'] } });
    expect((await b.initialize('2025-11-25')).result.protocolVersion).toBe('2025-03-26');
    const c = startMock({ scenario: { tools: ['echo'], protocolVersions: ['2025-03-26', '2024-11-05'] } });
    expect((await c.initialize('2024-11-05')).result.protocolVersion).toBe('2024-11-05');
  });

  it('derives capabilities from what is served, unless given explicitly', async () => {
    const a = startMock({ scenario: { tools: ['echo'], logging: false } });
    expect((await a.initialize()).result.capabilities).toEqual({ tools: { listChanged: true } });
    const b = startMock({ scenario: { tools: ['echo'], capabilities: { tools: {}, experimental: { x: {} } } } });
    expect((await b.initialize()).result.capabilities).toEqual({ tools: {}, experimental: { x: {} } });
  });

  it('answers ping before initialize but rejects other requests, and rejects a second initialize', async () => {
    const m = startMock();
    expect((await m.request('ping')).result).toEqual({});
    expect((await m.request('tools/list')).error.code).toBe(-32600);
    await m.initialize();
    expect((await m.request('tools/list')).result.tools.length).toBeGreaterThan(0);
    const again = await m.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
    expect(again.error.code).toBe(-32600);
  });

  it('can require notifications/initialized before serving (lifecycle.requireInitialized)', async () => {
    const m = startMock({ scenario: { tools: ['echo'], lifecycle: { requireInitialized: true } } });
    await m.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
    expect((await m.request('tools/list')).error.code).toBe(-32600);
    m.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await m.request('tools/list')).result.tools).toHaveLength(1);
  });

  it('reports a client that sends notifications/initialized before the initialize response', async () => {
    const m = startMock({ scenario: { tools: ['echo'], behavior: { onInitialize: { delayMs: 100 } } } });
    const res = m.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
    m.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await res;
    await m.request('ping');
    expect(m.stderr()).toMatch(/client violation: notifications\/initialized before the initialize response/);
  });

  it('answers unknown methods with -32601 and bad params with -32602', async () => {
    const m = startMock();
    const bad = await m.request('initialize', { protocolVersion: '2025-11-25' });
    expect(bad.error.code).toBe(-32602);
    await m.initialize();
    expect((await m.request('no/such/method')).error.code).toBe(-32601);
    expect((await m.request('tools/call', { name: 'nope' })).error.code).toBe(-32602);
    expect((await m.request('tools/call', {})).error.code).toBe(-32602);
    expect((await m.request('tools/call', { name: 'echo', arguments: [1] })).error.code).toBe(-32602);
    expect((await m.request('tools/list', [1, 2])).error.code).toBe(-32602);
    expect((await m.request('logging/setLevel', { level: 'loud' })).error.code).toBe(-32602);
    expect((await m.request('tools/list', { cursor: 'not-a-cursor' })).error.code).toBe(-32602);
    expect((await m.request('prompts/get', { name: 'nope' })).error.code).toBe(-32602);
  });

  it('answers a malformed line with -32700 (id null) and a request without jsonrpc with -32600, then carries on', async () => {
    const m = startMock();
    m.send('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(await m.waitFor((x) => x.error?.code === -32700)).toMatchObject({ jsonrpc: '2.0', id: null });
    m.send({ id: 'no-version', method: 'ping' });
    expect(await m.waitFor((x) => x.id === 'no-version')).toMatchObject({ error: { code: -32600 } });
    m.send({ jsonrpc: '2.0', foo: 1 });
    expect(await m.waitFor((x) => x.id === null && x.error?.code === -32600)).toBeTruthy();
    expect((await m.initialize()).result.protocolVersion).toBe('2025-11-25');
  });
});

describe('tools (server/tools) and built-ins', () => {
  it('serves echo, add, structured (with outputSchema), fail, blob and scripted results', async () => {
    const m = startMock({
      scenario: {
        tools: ['echo', 'add', 'structured', 'fail', 'blob', { name: 'canned', result: { content: [{ type: 'text', text: 'canned!' }] } }],
      },
    });
    await m.initialize();
    const { tools } = (await m.request('tools/list')).result;
    expect(tools.map((t: Msg) => t.name)).toEqual(['echo', 'add', 'structured', 'fail', 'blob', 'canned']);
    expect(tools[2].outputSchema.required).toEqual(['text', 'length', 'upper']);
    expect(tools[5].inputSchema).toEqual({ type: 'object' });
    expect(textOf(await call(m, 'echo', { text: 'hi' }))).toBe('hi');
    expect(textOf(await call(m, 'add', { a: 2, b: 40 }))).toBe('42');
    const s = (await call(m, 'structured', { text: 'abc' })).result;
    expect(s.structuredContent).toEqual({ text: 'abc', length: 3, upper: 'ABC' });
    expect(JSON.parse(s.content[0].text)).toEqual(s.structuredContent);
    expect((await call(m, 'fail')).result.isError).toBe(true);
    expect(textOf(await call(m, 'blob', { bytes: 100_000 }))).toHaveLength(100_000);
    expect(textOf(await call(m, 'canned'))).toBe('canned!');
  });

  it('notify emits any notification; log obeys logging/setLevel', async () => {
    const m = startMock();
    await m.initialize();
    await call(m, 'notify', { method: 'notifications/tools/list_changed' });
    expect(await m.waitFor((x) => x.method === 'notifications/tools/list_changed')).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect((await m.request('logging/setLevel', { level: 'warning' })).result).toEqual({});
    expect(textOf(await call(m, 'log', { level: 'info', data: 'quiet' }))).toBe('filtered');
    expect(textOf(await call(m, 'log', { level: 'error', data: { a: 1 }, logger: 'db' }))).toBe('logged');
    const logs = m.messages.filter((x) => x.method === 'notifications/message');
    expect(logs).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', logger: 'db', data: { a: 1 } } }]);
  });

  it('progress sends increasing notifications with the request token, total and message, then answers', async () => {
    const m = startMock();
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'progress', arguments: { steps: 4, intervalMs: 5 }, _meta: { progressToken: 'tok-1' } } });
    const res = await m.waitFor((x) => x.id === id);
    expect(textOf(res)).toBe('done 4 steps');
    const progress = m.messages.filter((x) => x.method === 'notifications/progress').map((x) => x.params);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    for (const p of progress) expect(p).toMatchObject({ progressToken: 'tok-1', total: 4, message: expect.stringMatching(/step \d of 4/) });
    expect(m.messages.indexOf(res)).toBeGreaterThan(m.messages.findLastIndex((x) => x.method === 'notifications/progress'));
  });

  it('progress without a token sends no progress notifications', async () => {
    const m = startMock();
    await m.initialize();
    expect(textOf(await call(m, 'progress', { steps: 2, intervalMs: 1 }))).toBe('done 2 steps');
    expect(m.messages.some((x) => x.method === 'notifications/progress')).toBe(false);
  });

  it('ask sends a request to the client and returns its result, or its error with isError', async () => {
    const m = startMock();
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: { method: 'roots/list' } } });
    const req = await m.waitFor((x) => x.method === 'roots/list');
    expect(req).toMatchObject({ jsonrpc: '2.0', id: expect.anything() });
    m.send({ jsonrpc: '2.0', id: req.id, result: { roots: [{ uri: 'file:///tmp' }] } });
    expect(JSON.parse(textOf(await m.waitFor((x) => x.id === id)))).toEqual({ roots: [{ uri: 'file:///tmp' }] });

    const id2 = nextId++;
    m.send({ jsonrpc: '2.0', id: id2, method: 'tools/call', params: { name: 'ask', arguments: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } } });
    const req2 = await m.waitFor((x) => x.method === 'sampling/createMessage');
    expect(req2.id).not.toEqual(req.id);
    m.send({ jsonrpc: '2.0', id: req2.id, error: { code: -1, message: 'User rejected sampling request' } });
    const res2 = await m.waitFor((x) => x.id === id2);
    expect(res2.result.isError).toBe(true);
    expect(JSON.parse(textOf(res2))).toEqual({ error: { code: -1, message: 'User rejected sampling request' } });
  });

  it('crash writes stderr and exits with the code mid-call', async () => {
    const m = startMock();
    await m.initialize();
    m.send({ jsonrpc: '2.0', id: 999, method: 'tools/call', params: { name: 'crash', arguments: { code: 9, stderr: 'kaboom\n' } } });
    expect(await m.exited).toEqual({ code: 9, signal: null });
    expect(m.stderr()).toContain('kaboom');
    expect(m.messages.some((x) => x.id === 999)).toBe(false);
  });
});

describe('resources, prompts, completion', () => {
  it('lists and reads resources and templates; unknown URI is -32002', async () => {
    const m = startMock();
    await m.initialize();
    expect((await m.request('resources/list')).result.resources.map((r: Msg) => r.uri)).toEqual(['mem://readme', 'mem://config.json', 'mem://pixel.png']);
    const templates = (await m.request('resources/templates/list')).result.resourceTemplates;
    expect(templates).toEqual([{ uriTemplate: 'mem://notes/{id}', name: 'note', mimeType: 'text/plain' }]);
    expect((await m.request('resources/read', { uri: 'mem://readme' })).result.contents).toEqual([
      { uri: 'mem://readme', mimeType: 'text/plain', text: 'Hello from the mock server.' },
    ]);
    expect((await m.request('resources/read', { uri: 'mem://pixel.png' })).result.contents[0].blob).toBe('iVBORw0KGgo=');
    expect((await m.request('resources/read', { uri: 'mem://notes/42' })).result.contents[0].text).toBe('Note 42');
    const missing = await m.request('resources/read', { uri: 'mem://nope' });
    expect(missing.error).toMatchObject({ code: -32002, data: { uri: 'mem://nope' } });
  });

  it('subscribe/unsubscribe decide whether notifications/resources/updated is sent', async () => {
    const m = startMock();
    await m.initialize();
    expect(textOf(await call(m, 'update', { uri: 'mem://readme' }))).toBe('not subscribed');
    expect((await m.request('resources/subscribe', { uri: 'mem://readme' })).result).toEqual({});
    expect(textOf(await call(m, 'update', { uri: 'mem://readme' }))).toBe('sent');
    expect(await m.waitFor((x) => x.method === 'notifications/resources/updated')).toMatchObject({ params: { uri: 'mem://readme' } });
    await m.request('resources/unsubscribe', { uri: 'mem://readme' });
    expect(textOf(await call(m, 'update', { uri: 'mem://readme' }))).toBe('not subscribed');
  });

  it('prompts/get substitutes arguments and rejects missing required ones', async () => {
    const m = startMock();
    await m.initialize();
    expect((await m.request('prompts/list')).result.prompts[0].arguments[0]).toEqual({ name: 'name', description: 'Who to greet', required: true });
    const got = await m.request('prompts/get', { name: 'greet', arguments: { name: 'Ada', style: 'formal' } });
    expect(got.result.messages[0].content.text).toBe('Say hello to Ada in a formal way.');
    expect((await m.request('prompts/get', { name: 'greet', arguments: {} })).error.code).toBe(-32602);
  });

  it('completion/complete filters by prefix for prompt arguments and template variables', async () => {
    const m = startMock();
    await m.initialize();
    const a = await m.request('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'Al' } });
    expect(a.result.completion).toEqual({ values: ['Alice', 'Alan'], total: 2, hasMore: false });
    const b = await m.request('completion/complete', { ref: { type: 'ref/resource', uri: 'mem://notes/{id}' }, argument: { name: 'id', value: '1' } });
    expect(b.result.completion.values).toEqual(['1', '10']);
    expect((await m.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } })).error.code).toBe(-32602);
  });
});

describe('pagination (server/utilities/pagination)', () => {
  async function collect(m: Mock, method: string, key: string) {
    const pages: Msg[][] = [];
    let cursor: string | undefined;
    do {
      const res = await m.request(method, cursor === undefined ? {} : { cursor });
      pages.push(res.result[key]);
      cursor = res.result.nextCursor;
    } while (cursor !== undefined && pages.length < 20);
    return pages;
  }

  it('pages every list by pageSize with opaque cursors until nextCursor is absent', async () => {
    const m = startMock({ args: [path.join(SCENARIOS, 'paginated.json')] });
    await m.initialize();
    const tools = await collect(m, 'tools/list', 'tools');
    expect(tools.map((p) => p.length)).toEqual([2, 2, 2, 1]);
    expect(tools.flat().map((t) => t.name)).toEqual(['echo', 'add', 'slow', 'progress', 'structured', 'fail', 'blob']);
    expect((await collect(m, 'resources/list', 'resources')).map((p) => p.length)).toEqual([2, 1]);
    expect((await collect(m, 'resources/templates/list', 'resourceTemplates')).map((p) => p.length)).toEqual([2, 1]);
    expect((await collect(m, 'prompts/list', 'prompts')).flat().map((p) => p.name)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    const first = await m.request('tools/list');
    expect(first.result.nextCursor).toEqual(expect.any(String));
    // a cursor from one list is not valid for another
    expect((await m.request('prompts/list', { cursor: first.result.nextCursor })).error.code).toBe(-32602);
  });

  it('per-list page sizes; no pageSize means one page', async () => {
    const m = startMock({ scenario: { tools: ['echo', 'add', 'slow'], prompts: [{ name: 'a' }, { name: 'b' }], pageSize: { tools: 1 } } });
    await m.initialize();
    expect((await collect(m, 'tools/list', 'tools')).map((p) => p.length)).toEqual([1, 1, 1]);
    const prompts = await m.request('prompts/list');
    expect(prompts.result.prompts).toHaveLength(2);
    expect(prompts.result.nextCursor).toBeUndefined();
  });

  it('misbehaves with cursors that wrap, repeat or never end (cursor-loop.json)', async () => {
    const m = startMock({ args: ['cursor-loop'] });
    await m.initialize();
    const wrap = await collect(m, 'tools/list', 'tools'); // capped at 20 pages by collect
    expect(wrap).toHaveLength(20);
    expect(wrap[4].map((t) => t.name)).toEqual(wrap[0].map((t) => t.name));
    const r1 = await m.request('resources/list');
    const r2 = await m.request('resources/list', { cursor: r1.result.nextCursor });
    const r3 = await m.request('resources/list', { cursor: r2.result.nextCursor });
    expect(r2.result.nextCursor).toBe(r1.result.nextCursor);
    expect(r3.result.resources).toEqual(r2.result.resources);
    const endless = await collect(m, 'prompts/list', 'prompts');
    expect(endless).toHaveLength(20);
    expect(endless[19]).toEqual([]);
  });
});

describe('cancellation (basic/utilities/cancellation)', () => {
  it('never answers a cancelled request, and stays responsive', async () => {
    const rec = tmpFile('rec.ndjson');
    const m = startMock({ env: { MOCK_RECORD: rec } });
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms: 300 } } });
    m.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'user pressed stop' } });
    await expectNoAnswer(m, id, 700);
    const seen = fs.readFileSync(rec, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(seen.find((x) => x.method === 'notifications/cancelled')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'user pressed stop' },
    });
  });

  it('a cancel for a different id type or an unknown id changes nothing', async () => {
    const m = startMock();
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms: 50 } } });
    m.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: String(id) } });
    m.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 123456 } });
    expect(textOf(await m.waitFor((x) => x.id === id))).toBe('slept 50 ms');
  });

  it('ignores cancellation when told to: globally, per tool, and the ignoreCancel built-in', async () => {
    const m = startMock({ scenario: { tools: ['slow', 'ignoreCancel'], behavior: { ignoreCancel: true } } });
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { ms: 50 } } });
    m.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    expect(textOf(await m.waitFor((x) => x.id === id))).toBe('slept 50 ms');

    const n = startMock({ scenario: { tools: ['ignoreCancel', { name: 'stubborn', builtin: 'slow', behavior: { ignoreCancel: true } }] } });
    await n.initialize();
    for (const name of ['ignoreCancel', 'stubborn']) {
      const id2 = nextId++;
      n.send({ jsonrpc: '2.0', id: id2, method: 'tools/call', params: { name, arguments: { ms: 50 } } });
      n.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id2 } });
      expect(await n.waitFor((x) => x.id === id2)).toMatchObject({ result: { content: [{ type: 'text' }] } });
    }
  });

  it('cancelling a tool call that is waiting on the client cancels the server request too', async () => {
    const m = startMock();
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: { method: 'roots/list' } } });
    const req = await m.waitFor((x) => x.method === 'roots/list');
    m.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    const c = await m.waitFor((x) => x.method === 'notifications/cancelled');
    expect(c.params.requestId).toBe(req.id);
    await expectNoAnswer(m, id, 100);
  });
});

describe('misbehaviour knobs', () => {
  const tool = (behavior: Msg, extra: Msg = {}) => ({ tools: [{ name: 't', builtin: 'echo', behavior, ...extra }, 'echo'] });

  it('delayMs answers late', async () => {
    const m = startMock({ scenario: tool({ delayMs: 150 }) });
    await m.initialize();
    const t0 = performance.now();
    expect(textOf(await call(m, 't', { text: 'late' }))).toBe('late');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('never answers, per tool and per method', async () => {
    const m = startMock({ scenario: { ...tool({ never: true }), behavior: { methods: { 'prompts/list': { never: true } } } } });
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: { text: 'x' } } });
    const id2 = nextId++;
    m.send({ jsonrpc: '2.0', id: id2, method: 'prompts/list' });
    await expectNoAnswer(m, id);
    await expectNoAnswer(m, id2, 0);
    expect(textOf(await call(m, 'echo', { text: 'still here' }))).toBe('still here');
  });

  it('crashes mid-call with exit code and stderr', async () => {
    const m = startMock({ scenario: tool({ delayMs: 20, crash: { code: 7, stderr: 'segfault (not really)\n' } }) });
    await m.initialize();
    m.send({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 't', arguments: {} } });
    expect(await m.exited).toEqual({ code: 7, signal: null });
    expect(m.stderr()).toContain('segfault (not really)');
    expect(m.messages.some((x) => x.id === 77)).toBe(false);
  });

  it('exits at start before reading anything (crash-on-start.json)', async () => {
    const m = startMock({ args: [path.join(SCENARIOS, 'crash-on-start.json')] });
    m.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await m.exited).toEqual({ code: 3, signal: null });
    expect(m.stderr()).toContain('could not open the database');
    expect(m.lines).toEqual([]);
  });

  it('writes a garbage line, then the answer', async () => {
    const m = startMock({ scenario: tool({ garbage: 'Segmentation fault? no, just text' }) });
    await m.initialize();
    const res = await call(m, 't', { text: 'after garbage' });
    expect(textOf(res)).toBe('after garbage');
    const i = m.lines.indexOf('Segmentation fault? no, just text');
    expect(i).toBeGreaterThanOrEqual(0);
    expect(m.lines.indexOf(JSON.stringify(res))).toBe(i + 1);
  });

  it('writes a huge (valid JSON) line of exactly N bytes', async () => {
    const m = startMock({ scenario: tool({ hugeLine: 3_000_000 }) });
    await m.initialize();
    await call(m, 't', { text: 'x' });
    const huge = m.lines.find((l) => l.length > 1_000_000)!;
    expect(Buffer.byteLength(huge)).toBe(3_000_000);
    expect(JSON.parse(huge).method).toBe('notifications/message');
  });

  it('answers with a wrong id, or a given one', async () => {
    const m = startMock({ scenario: { tools: [{ name: 'a', builtin: 'echo', behavior: { wrongId: true } }, { name: 'b', builtin: 'echo', behavior: { wrongId: 'zzz' } }] } });
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'a', arguments: { text: '1' } } });
    expect(await m.waitFor((x) => x.id === id + 1000)).toMatchObject({ result: { content: [{ text: '1' }] } });
    m.send({ jsonrpc: '2.0', id: id + 1, method: 'tools/call', params: { name: 'b', arguments: { text: '2' } } });
    expect(await m.waitFor((x) => x.id === 'zzz')).toMatchObject({ result: { content: [{ text: '2' }] } });
  });

  it('answers twice with the same id', async () => {
    const m = startMock({ scenario: tool({ duplicate: true }) });
    await m.initialize();
    const res = await call(m, 't', { text: 'twice' });
    await m.request('ping');
    expect(m.messages.filter((x) => x.id === res.id)).toHaveLength(2);
  });

  it('omits "jsonrpc": "2.0", per tool or on every message', async () => {
    const m = startMock({ scenario: tool({ omitJsonrpc: true }) });
    await m.initialize();
    const res = await call(m, 't', { text: 'x' });
    expect(res).not.toHaveProperty('jsonrpc');
    expect(await m.request('ping')).toHaveProperty('jsonrpc', '2.0');
    const g = startMock({ scenario: { tools: ['echo'], behavior: { omitJsonrpc: true } } });
    expect(await g.initialize()).not.toHaveProperty('jsonrpc');
  });

  it('sends the answer inside a JSON-RPC batch array, with its notifications', async () => {
    const m = startMock({ scenario: tool({ batch: true, notifications: [{ method: 'notifications/tools/list_changed' }] }) });
    await m.initialize();
    const id = nextId++;
    m.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: { text: 'b' } } });
    const batch = await m.waitFor((x) => Array.isArray(x));
    expect(batch).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'b' }] } },
    ]);
  });

  it('answers initialize with an unsupported version (bad-version.json) or a custom result', async () => {
    const m = startMock({ args: ['bad-version'] });
    expect((await m.initialize()).result.protocolVersion).toBe('1999-01-01');
    const custom = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'odd' }, extra: true };
    const n = startMock({ scenario: { behavior: { onInitialize: { result: custom } } } });
    expect((await n.initialize()).result).toEqual(custom);
    const e = startMock({ scenario: { behavior: { onInitialize: { error: { code: -32000, message: 'nope' } } } } });
    expect((await e.initialize()).error).toEqual({ code: -32000, message: 'nope' });
  });

  it('answers unknown methods with success when unknownMethodResult is set', async () => {
    const m = startMock({ scenario: { tools: ['echo'], behavior: { unknownMethodResult: { ok: true } } } });
    await m.initialize();
    expect((await m.request('made/up')).result).toEqual({ ok: true });
  });

  it('writes stderr noise at start and per behaviour', async () => {
    const m = startMock({ scenario: { tools: [{ name: 't', builtin: 'echo', behavior: { stderr: 'WARN tool t\n' } }], behavior: { stderrNoise: { text: 'DEBUG noise', lines: 4 } } } });
    await m.initialize();
    await call(m, 't', { text: 'x' });
    // stderr is a pipe of its own: the tool's line may come after the answer on stdout
    await until("the tool's stderr line", () => m.stderr().includes('WARN tool t'));
    expect(m.stderr().match(/DEBUG noise/g)).toHaveLength(4);
    expect(m.stderr()).toContain('WARN tool t');
  });

  it('sends notifications on start of a request and after notifications/initialized', async () => {
    const m = startMock({
      scenario: {
        tools: ['echo'],
        behavior: {
          onInitialized: { notifications: [{ method: 'notifications/message', params: { level: 'info', data: 'ready' } }] },
          methods: { ping: { notifications: [{ method: 'notifications/prompts/list_changed' }] } },
        },
      },
    });
    await m.initialize();
    expect(await m.waitFor((x) => x.method === 'notifications/message')).toMatchObject({ params: { data: 'ready' } });
    const pong = await m.request('ping');
    expect(m.messages.findIndex((x) => x.method === 'notifications/prompts/list_changed')).toBeLessThan(m.messages.indexOf(pong));
  });
});

describe('recording, stdin close, signals, scenario loading', () => {
  it('records every received message in order, malformed lines included', async () => {
    const rec = tmpFile('rec.ndjson');
    const m = startMock({ env: { MOCK_RECORD: rec } });
    await m.initialize();
    m.send('oops not json');
    await m.waitFor((x) => x.error?.code === -32700);
    await call(m, 'echo', { text: 'r' });
    const seen = fs.readFileSync(rec, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(seen.map((x) => x.method ?? x.__malformed)).toEqual(['initialize', 'notifications/initialized', 'oops not json', 'tools/call']);
  });

  it('records what it sent with MOCK_RECORD_SENT', async () => {
    const sent = tmpFile('sent.ndjson');
    const m = startMock({ env: { MOCK_RECORD_SENT: sent } });
    const res = await m.initialize();
    expect(JSON.parse(fs.readFileSync(sent, 'utf8').trim())).toEqual(res);
  });

  it('exits 0 when stdin closes', async () => {
    const m = startMock();
    await m.initialize();
    m.child.stdin.end();
    expect(await m.exited).toEqual({ code: 0, signal: null });
  });

  it('ignores stdin close when told to, but SIGTERM still ends it', async () => {
    const m = startMock({ scenario: { tools: ['echo'], ignoreStdinClose: true } });
    await m.initialize();
    m.child.stdin.end();
    await sleep(300);
    expect(m.child.exitCode).toBeNull();
    m.child.kill('SIGTERM');
    expect((await m.exited).signal).toBe('SIGTERM');
  });

  it('ignores SIGTERM and stdin close when told to (stubborn.json); SIGKILL ends it', async () => {
    const m = startMock({ args: ['stubborn'] });
    await m.initialize();
    m.child.stdin.end();
    m.child.kill('SIGTERM');
    await sleep(300);
    expect(m.child.exitCode).toBeNull();
    expect(m.child.signalCode).toBeNull();
    m.child.kill('SIGKILL');
    expect((await m.exited).signal).toBe('SIGKILL');
  });

  it('takes MOCK_SCENARIO_JSON over the argv path, and supports extends', async () => {
    const m = startMock({
      args: [path.join(SCENARIOS, 'demo.json')],
      scenario: { extends: 'default', serverInfo: { name: 'from-env', version: '2' } },
    });
    const res = await m.initialize();
    expect(res.result.serverInfo).toEqual({ name: 'from-env', version: '2' });
    expect((await m.request('tools/list')).result.tools).toHaveLength(DEFAULT_SCENARIO.tools.length);
  });

  it('demo.json serves echo and progress for npm start', async () => {
    const m = startMock({ args: [path.join(SCENARIOS, 'demo.json')] });
    expect((await m.initialize()).result.serverInfo.name).toBe('mcpwire-demo-server');
    const names = (await m.request('tools/list')).result.tools.map((t: Msg) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'progress']));
    expect(textOf(await call(m, 'weather', { city: 'Oslo' }))).toMatch(/Sunny/);
  });

  it('exits 2 with a message on a bad scenario', async () => {
    const m = startMock({ args: ['no-such-scenario'] });
    expect((await m.exited).code).toBe(2);
    expect(m.stderr()).toMatch(/scenario not found/);
  });

  it('scenarios/default.json is the built-in default', () => {
    expect(JSON.parse(fs.readFileSync(path.join(SCENARIOS, 'default.json'), 'utf8'))).toEqual(DEFAULT_SCENARIO);
  });

  it('every bundled scenario starts and initializes (except the one that must crash)', async () => {
    const files = fs.readdirSync(SCENARIOS).filter((f) => f.endsWith('.json') && f !== 'crash-on-start.json');
    const mocks = files.map((f) => startMock({ args: [path.join(SCENARIOS, f)] }));
    for (const m of mocks) expect((await m.initialize()).result.serverInfo.name).toEqual(expect.any(String));
  });
});

describe('the transport-independent core (lib/mcp-scenario.mjs), in process', () => {
  it('handles messages through io callbacks and routes a request’s output through ctx.send', async () => {
    const { createScenarioServer } = await import('../../mock-servers/lib/mcp-scenario.mjs');
    const global: unknown[] = [];
    const routed: unknown[] = [];
    const server = createScenarioServer(
      { tools: ['echo', 'progress'] },
      { send: (m) => global.push(m), sendRaw: () => {}, exit: () => {}, stderr: () => {} },
    );
    expect(await server.start()).toBe(true);
    await server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
    await server.handleMessage({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(server.state.phase).toBe('ready');
    const ctx = { send: (m: unknown) => routed.push(m) };
    await server.handleMessage({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'progress', arguments: { steps: 2, intervalMs: 1 }, _meta: { progressToken: 7 } } }, ctx);
    expect(global).toHaveLength(1);
    expect(routed.map((m: any) => m.method ?? m.id)).toEqual(['notifications/progress', 'notifications/progress', 2]);
    await server.handleText('{bad', ctx);
    expect(routed.at(-1)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(server.state.violations).toEqual([]);
  });
});
