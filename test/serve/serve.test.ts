/**
 * `mcpwire serve` over stdio, driven line by line as a real process (the built CLI) with the
 * scripted stdio mock behind it: the server side of the lifecycle, aggregated lists and their
 * pagination, routing of prompts/resources/completions, logging fan-out, cancellation and
 * progress passed through, client features forwarded only when the client declared them, the
 * host's permissions and redaction applied to what the gateway returns.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, root } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const mock = path.join(root, 'mock-servers/stdio-server.mjs');
const SECRET = 'sk_live_gatewaySecret_7Qm2x9';
const dir = tempDirs('mcpwire-serve-')();
let seq = 0;

type Msg = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: any; result?: any; error?: { code: number; message: string; data?: unknown } };

/** One `mcpwire serve` process and a line-level client of it. */
class Peer {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly notes: Msg[] = [];
  stderr = '';
  private nextId = 1;
  private readonly waiting = new Map<number | string, (m: Msg) => void>();
  private buf = '';
  onRequest: (m: Msg) => Record<string, unknown> | undefined = () => undefined;

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [cli, 'serve', ...args], { cwd: dir, env: { ...process.env, MCPWIRE_TRACE: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.child.stdout!.on('data', (c: Buffer) => {
      this.buf += c.toString();
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        this.lines.push(line);
        this.receive(JSON.parse(line) as Msg);
      }
    });
  }

  private receive(m: Msg): void {
    if (m.method !== undefined && m.id !== undefined) {
      const result = this.onRequest(m);
      this.write(result === undefined ? { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'not here' } } : { jsonrpc: '2.0', id: m.id, result });
    } else if (m.method !== undefined) this.notes.push(m);
    else this.waiting.get(m.id!)?.(m);
  }

  write(m: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(m)}\n`);
  }

  send(method: string, params?: Record<string, unknown>, id: number | string = this.nextId++): Promise<Msg> {
    const p = new Promise<Msg>((resolve) => this.waiting.set(id, resolve));
    this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return p;
  }

  async init(capabilities: Record<string, unknown> = {}, protocolVersion = '2025-11-25'): Promise<Msg> {
    const r = await this.send('initialize', { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1' } });
    this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null) await new Promise((r) => this.child.once('exit', r));
  }
}

const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close().catch(() => {});
});

function configWith(alpha: Record<string, unknown> = {}): string {
  const file = path.join(dir, `config-${++seq}.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [mock], ...alpha } } } }));
  return file;
}

function start(args: string[], env?: NodeJS.ProcessEnv): Peer {
  const p = new Peer(args, env);
  peers.push(p);
  return p;
}

const recorded = (file: string): Msg[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Msg) : []);

describe('mcpwire serve over stdio', { timeout: 60_000 }, () => {
  // cites basic.lifecycle#9: mcpwire serve is the server here: the gateway's own behaviour
  // cites basic.lifecycle#10: mcpwire serve is the server here: the gateway's own behaviour
  it('basic.lifecycle#9 / basic.lifecycle#10: answers the requested version when it supports it, else the one it supports; before initialize only ping is served', async () => {
    const p = start(['--config', configWith()]);
    expect((await p.send('ping')).result).toEqual({});
    expect((await p.send('tools/list')).error).toMatchObject({ code: -32600 });
    const init = await p.init({}, '2025-11-25');
    expect(init.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'mcpwire-gateway' }, capabilities: { tools: { listChanged: true }, logging: {}, completions: {} } });
    const other = start(['--config', configWith()]);
    expect((await other.init({}, '2099-01-01')).result.protocolVersion).toBe('2025-11-25');
    expect((await p.send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } })).error).toMatchObject({ code: -32600 });
    // basic.transports#5: nothing but MCP messages on stdout
    for (const line of p.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('a request written right behind initialize (before its answer) waits for it and is served', async () => {
    const p = start(['--config', configWith()]);
    const init = p.send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } });
    const list = p.send('tools/list');
    expect((await init).result.protocolVersion).toBe('2025-11-25');
    const tools = (await list).result?.tools as { name: string }[] | undefined;
    expect(tools?.map((t) => t.name)).toContain('mcpwire_status');
  });

  it('--trace writes each downstream connection to the trace file, with the gateway as the client', async () => {
    const trace = path.join(dir, `trace-${++seq}.jsonl`);
    const p = start(['--config', configWith(), '--trace', trace]);
    await p.init();
    await p.send('tools/list');
    await p.close();
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).toContain('"method":"initialize"');
    expect(text).toContain('"name":"mcpwire-gateway"');
  });

  it('SIGTERM to the gateway ends the stdio servers it started', async () => {
    const p = start(['--config', configWith()]);
    await p.init();
    const rows = (await p.send('tools/call', { name: 'mcpwire_status', arguments: {} })).result.structuredContent.servers;
    const pid = rows[0].pid as number;
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).not.toThrow();
    p.child.kill('SIGTERM');
    await new Promise((r) => p.child.once('exit', r));
    await expect
      .poll(() => {
        try {
          process.kill(pid, 0);
          return 'alive';
        } catch {
          return 'gone';
        }
      }, { timeout: 10_000 })
      .toBe('gone');
  });

  it('server.utilities.pagination#5: the aggregate list pages with opaque cursors; a made-up cursor is -32602', async () => {
    const p = start(['--config', configWith(), '--page-size', '3']);
    await p.init();
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await p.send('tools/list', cursor ? { cursor } : {});
      expect(r.result.tools.length).toBeLessThanOrEqual(3);
      names.push(...r.result.tools.map((t: { name: string }) => t.name));
      cursor = r.result.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 50);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('mcpwire_status');
    expect(names.some((n) => n.startsWith('mcp_alpha_echo'))).toBe(true);
    expect((await p.send('tools/list', { cursor: 'not-a-cursor' })).error).toMatchObject({ code: -32602 });
    expect((await p.send('prompts/list', { cursor: Buffer.from('g999').toString('base64url') })).error).toMatchObject({ code: -32602 });
  });

  it('routes prompts, resources and completions to their server under the gateway names; the status resource lists each server', async () => {
    const p = start(['--config', configWith()]);
    await p.init();
    const prompts = (await p.send('prompts/list')).result.prompts.map((x: { name: string }) => x.name);
    expect(prompts).toContain('mcp_alpha_greet');
    const got = await p.send('prompts/get', { name: 'mcp_alpha_greet', arguments: { name: 'Bob' } });
    expect(JSON.stringify(got.result.messages)).toContain('Bob');
    expect((await p.send('prompts/get', { name: 'nope' })).error).toMatchObject({ code: -32602 });
    const resources = (await p.send('resources/list')).result.resources.map((r: { uri: string }) => r.uri);
    expect(resources).toEqual(expect.arrayContaining(['mcpwire://status', 'mem://readme']));
    expect((await p.send('resources/read', { uri: 'mem://readme' })).result.contents[0].text).toBe('Hello from the mock server.');
    const status = JSON.parse((await p.send('resources/read', { uri: 'mcpwire://status' })).result.contents[0].text);
    expect(status.servers).toEqual([expect.objectContaining({ id: 'alpha', state: 'ready', server: { name: 'mcpwire-mock', version: '1.0.0' } })]);
    const done = await p.send('completion/complete', { ref: { type: 'ref/prompt', name: 'mcp_alpha_greet' }, argument: { name: 'name', value: 'Al' } });
    expect(done.result.completion.values).toEqual(expect.arrayContaining(['Alice', 'Alan']));
    expect(done.result.completion.values).not.toContain('Bob');
  });

  it('logging/setLevel reaches every server with logging; an unknown level is -32602', async () => {
    const record = path.join(dir, `rec-${++seq}.jsonl`);
    const p = start(['--config', configWith({ env: { MOCK_RECORD: record } })]);
    await p.init();
    expect((await p.send('logging/setLevel', { level: 'warning' })).result).toEqual({});
    expect(recorded(record).filter((m) => m.method === 'logging/setLevel').map((m) => m.params.level)).toEqual(['warning']);
    expect((await p.send('logging/setLevel', { level: 'loud' })).error).toMatchObject({ code: -32602 });
  });

  it("basic.utilities.cancellation#4: the caller's cancel stops the downstream call and the gateway sends no response; progress goes up under the caller's token", async () => {
    const record = path.join(dir, `rec-${++seq}.jsonl`);
    const p = start(['--config', configWith({ env: { MOCK_RECORD: record } })]);
    await p.init();
    const tools = (await p.send('tools/list')).result.tools.map((t: { name: string }) => t.name) as string[];
    const slow = tools.find((n) => n.startsWith('mcp_alpha_slow'))!;
    const progress = tools.find((n) => n.startsWith('mcp_alpha_progress'))!;

    const r = await p.send('tools/call', { name: progress, arguments: { steps: 3, intervalMs: 10 }, _meta: { progressToken: 'tok-1' } });
    expect(r.result.isError).not.toBe(true);
    const ups = p.notes.filter((n) => n.method === 'notifications/progress');
    expect(ups.length).toBeGreaterThan(0);
    for (const n of ups) expect(n.params.progressToken).toBe('tok-1');

    let answered = false;
    void p.send('tools/call', { name: slow, arguments: { ms: 20_000 } }, 'call-slow').then(() => (answered = true));
    await expect.poll(() => recorded(record).some((m) => m.method === 'tools/call' && m.params?.name === 'slow'), { timeout: 10_000 }).toBe(true);
    p.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'call-slow', reason: 'user stopped it' } });
    await expect.poll(() => recorded(record).some((m) => m.method === 'notifications/cancelled'), { timeout: 10_000 }).toBe(true);
    expect((await p.send('ping')).result).toEqual({});
    await new Promise((res) => setTimeout(res, 300));
    expect(answered).toBe(false);
  });

  it('client.elicitation#4: a downstream elicitation is forwarded to a client that declared it, and the downstream server is offered elicitation only then', async () => {
    const record = path.join(dir, `rec-${++seq}.jsonl`);
    const p = start(['--config', configWith({ env: { MOCK_RECORD: record } })]);
    p.onRequest = (m) => (m.method === 'elicitation/create' ? { action: 'accept', content: { name: `Ada (asked: ${m.params.message})` } } : undefined);
    await p.init({ elicitation: {} });
    expect(recorded(record).find((m) => m.method === 'initialize')!.params.capabilities).toHaveProperty('elicitation');
    const ask = ((await p.send('tools/list')).result.tools as { name: string }[]).find((t) => t.name.startsWith('mcp_alpha_ask'))!.name;
    const r = await p.send('tools/call', { name: ask, arguments: { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } });
    expect(r.result.isError).not.toBe(true);
    expect(r.result.content[0].text).toContain('Ada (asked: Your name?)');

    const record2 = path.join(dir, `rec-${++seq}.jsonl`);
    const q = start(['--config', configWith({ env: { MOCK_RECORD: record2 } })]);
    await q.init({});
    const caps = recorded(record2).find((m) => m.method === 'initialize')!.params.capabilities;
    expect(caps).not.toHaveProperty('elicitation');
    expect(caps).not.toHaveProperty('sampling');
    expect(caps).not.toHaveProperty('roots');
  });

  it('client.sampling#5 / client.roots#1: sampling and roots requests of a downstream server are forwarded to the client that declared them and answered back', async () => {
    const p = start(['--config', configWith()]);
    p.onRequest = (m) =>
      m.method === 'sampling/createMessage'
        ? { role: 'assistant', content: { type: 'text', text: `sampled: ${m.params.messages[0].content.text}` }, model: 'test-model' }
        : m.method === 'roots/list'
          ? { roots: [{ uri: 'file:///work/project', name: 'project' }] }
          : undefined;
    await p.init({ sampling: {}, roots: { listChanged: true } });
    const ask = ((await p.send('tools/list')).result.tools as { name: string }[]).find((t) => t.name.startsWith('mcp_alpha_ask'))!.name;
    const sampled = await p.send('tools/call', { name: ask, arguments: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 10 } } });
    expect(sampled.result.content[0].text).toContain('sampled: hello');
    const roots = await p.send('tools/call', { name: ask, arguments: { method: 'roots/list', params: {} } });
    expect(roots.result.content[0].text).toContain('file:///work/project');
  });

  it("the server's max_parallel holds through the gateway; its log messages come up under its id; tool titles are listed", async () => {
    const scenario = { extends: 'default', tools: [{ name: 'echo', builtin: 'echo', title: 'Echo it back' }, 'log', 'concurrent', 'inflight'] };
    const p = start(['--config', configWith({ max_parallel: 1, env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } })]);
    await p.init();
    const listed = (await p.send('tools/list')).result.tools as { name: string; title?: string }[];
    expect(listed.find((t) => t.name.startsWith('mcp_alpha_echo'))?.title).toBe('Echo it back');
    const tools = listed.map((t) => t.name);
    const name = (part: string) => tools.find((n) => n.startsWith(`mcp_alpha_${part}`))!;
    const calls = await Promise.all([1, 2, 3].map(() => p.send('tools/call', { name: name('concurrent'), arguments: { ms: 150 } })));
    for (const c of calls) expect(c.result.isError).not.toBe(true);
    const seen = JSON.parse((await p.send('tools/call', { name: name('inflight'), arguments: {} })).result.content[0].text);
    expect(seen).toMatchObject({ calls: 3, maxInFlight: 1 });
    await p.send('tools/call', { name: name('log'), arguments: { level: 'warning', data: 'disk almost full', logger: 'disk' } });
    await expect.poll(() => p.notes.find((n) => n.method === 'notifications/message')?.params, { timeout: 5000 }).toEqual({ level: 'warning', logger: 'alpha/disk', data: 'disk almost full' });
  });

  it("the host's permissions and redaction apply: a denied tool is not listed and cannot be called; a configured secret never leaves the gateway", async () => {
    const scenario = { extends: 'default', resources: [{ uri: 'mem://leak', name: 'leak', mimeType: 'text/plain', text: `key=${SECRET}` }] };
    const p = start(['--config', configWith({ env: { API_TOKEN: SECRET, MOCK_SCENARIO_JSON: JSON.stringify(scenario) }, permissions: { deny: ['crash'] } })]);
    await p.init();
    const tools = ((await p.send('tools/list')).result.tools as { name: string }[]).map((t) => t.name);
    expect(tools.some((n) => n.startsWith('mcp_alpha_crash'))).toBe(false);
    const echo = tools.find((n) => n.startsWith('mcp_alpha_echo'))!;
    // No name reaches it: the unsuffixed guess is an unknown tool (server.tools: unknown tools are -32602).
    expect((await p.send('tools/call', { name: 'mcp_alpha_crash', arguments: {} })).error).toMatchObject({ code: -32602, message: expect.stringContaining('unknown tool') });
    const out = await p.send('tools/call', { name: echo, arguments: { text: `the token is ${SECRET}` } });
    expect(out.result.content[0].text).toContain('the token is');
    expect(out.result.content[0].text).not.toContain(SECRET);
    // resources/read goes to the server's client directly: the gateway redacts it itself
    const leak = await p.send('resources/read', { uri: 'mem://leak' });
    expect(leak.result.contents[0].text).toMatch(/^key=/);
    expect(leak.result.contents[0].text).not.toContain(SECRET);
    expect(p.lines.join('\n')).not.toContain(SECRET);
  });
});
