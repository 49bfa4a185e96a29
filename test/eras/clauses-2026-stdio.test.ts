// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Client sentences of MCP 2026-07-28 proven over stdio against the scripted modern mock
 * (mock-servers/modern/stdio-server.mjs) in real child processes: what the client writes (the
 * mock's MOCK_RECORD holds every line it read, a line that is not JSON recorded as
 * `__malformed`), the `_meta` of every request, progress tokens, cancellation, the multi
 * round-trip retry, the legacy error codes and the client capabilities declared.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonRpcError, ProtocolError } from '../../src/index.js';
import { CAPS, INFO, jsonLines, recordedMocks, V, type Msg } from '../support/recorded-mock.js';
import { until } from '../support/until.js';

const { dir, file, mock: recorded, open } = recordedMocks('clauses-2026-', { protocolVersion: '2026-07-28' });

/** The modern mock: its config, every message it received, every message it sent. */
const mock = (scenario?: object) => recorded({ scenario, recordSent: true });

const isId = (id: unknown) => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
const calls = (m: { received(): Msg[] }, name: string) => m.received().filter((r) => r.method === 'tools/call' && r.params.name === name);

describe('what the client writes to the server (2026-07-28, stdio)', () => {
  it('basic#2/#3/#4/#5/#22, basic.transports#1, basic.transports.stdio#1/#4/#6: each line is one UTF-8 JSON-RPC 2.0 request (string or integer id, never null, unique) or notification (no id); never a response', async () => {
    const m = mock();
    const c = await open(m.config);
    const text = 'line one\nline two\r\n\u00e9 \u2713 \u{1F600} "quoted" \\ end';
    const answers = await Promise.all([1, 2, 3, 4].map((k) => c.callTool('echo', { text: `${k} ${text}` })));
    expect(answers.map((a) => (a.content[0] as { text: string }).text)).toEqual([1, 2, 3, 4].map((k) => `${k} ${text}`));
    // the server sends notifications on this one: the client answers none of them (basic#21)
    const seen: number[] = [];
    await c.callTool('progress', { steps: 3, intervalMs: 5 }, { onProgress: (p) => seen.push(p.progress) });
    expect(seen.length).toBeGreaterThanOrEqual(1);
    const ac = new AbortController();
    const slow = c.callTool('slow', { ms: 60_000 }, { signal: ac.signal });
    await until('the slow call', () => calls(m, 'slow').length === 1);
    ac.abort();
    await expect(slow).rejects.toThrow();
    await until('the cancellation', () => m.received().some((r) => r.method === 'notifications/cancelled'));

    const got = m.received();
    expect(got.filter((r) => '__malformed' in r)).toEqual([]);
    const echoed = calls(m, 'echo').map((r) => r.params.arguments.text);
    expect(echoed.sort()).toEqual([1, 2, 3, 4].map((k) => `${k} ${text}`));
    for (const r of got) {
      expect(r.jsonrpc).toBe('2.0');
      expect(typeof r.method, JSON.stringify(r)).toBe('string');
      expect('result' in r || 'error' in r).toBe(false);
      if (r.method.startsWith('notifications/')) expect('id' in r, JSON.stringify(r)).toBe(false);
      else expect(isId(r.id), JSON.stringify(r)).toBe(true);
    }
    const ids = got.filter((r) => 'id' in r).map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(got.filter((r) => r.method === 'notifications/cancelled')).toHaveLength(1);
  });

  it('basic#21: a notification from the server gets no response', async () => {
    // The mock's progress notifications are the server's notifications: nothing the client wrote
    // after them is anything but a request of its own or its own notification.
    const m = mock();
    const c = await open(m.config);
    await c.callTool('progress', { steps: 4, intervalMs: 5 }, { onProgress: () => {} });
    await c.callTool('echo', { text: 'after' });
    const after = m.received().slice(m.received().findIndex((r) => r.method === 'tools/call'));
    expect(after.map((r) => r.method)).toEqual(['tools/call', 'tools/call']);
  });

  it('basic#40/#41/#43: every _meta key the client sets is a prefix of dot-separated labels and a slash, then a name that begins and ends alphanumeric', async () => {
    const m = mock();
    const c = await open(m.config, { onElicitation: async () => ({ action: 'decline' }), onSampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }) });
    await c.listTools();
    await c.callTool('progress', { steps: 2, intervalMs: 5 }, { onProgress: () => {} });
    await c.callTool('confirm', { message: 'ok?' });
    const label = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
    const key = new RegExp(`^(?:${label}(?:\\.${label})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`);
    const keys = new Set(m.received().flatMap((r) => Object.keys(r.params?._meta ?? {})));
    expect([...keys]).toEqual(expect.arrayContaining([V, CAPS, INFO, 'progressToken']));
    for (const k of keys) expect(k, k).toMatch(key);
  });
});

describe('listings and pages (2026-07-28, stdio)', () => {
  it('server.tools#1, server.resources#1, server.prompts#1, server.utilities.completion#1, server.utilities.pagination#1/#2/#5: every request of every feature carries the required _meta; pages of any size are followed, each cursor sent back exactly as given', async () => {
    const m = mock({ extends: 'default', pageSize: 1 });
    const c = await open(m.config);
    expect((await c.listTools()).length).toBeGreaterThan(5);
    expect(await c.listResources()).toHaveLength(2);
    await c.listResourceTemplates();
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['greet']);
    await c.getPrompt('greet', { name: 'Ada' });
    await c.readResource('mem://readme');
    // a server declaring completions (the mock serves none: the request is refused, but it went out)
    const withCompletions = mock({ extends: 'default', capabilities: { completions: {} } });
    const c2 = await open(withCompletions.config);
    await c2.request('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } }).catch(() => undefined);
    const requests = [...m.received(), ...withCompletions.received()].filter((r) => r.id !== undefined);
    expect(new Set(requests.map((r) => r.method))).toEqual(new Set(['server/discover', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'prompts/get', 'resources/read', 'completion/complete']));
    for (const r of requests) {
      expect(r.params._meta[V], r.method).toBe('2026-07-28');
      expect(r.params._meta[CAPS], r.method).toBeDefined();
      expect(r.params._meta[INFO], r.method).toMatchObject({ name: expect.any(String) });
    }
    const answers = new Map(m.sent().filter((a) => a.id !== undefined).map((a) => [a.id, a.result]));
    const pages = m.received().filter((r) => r.method === 'tools/list');
    expect(pages.length).toBeGreaterThan(5);
    for (let k = 1; k < pages.length; k++) expect(pages[k]!.params.cursor).toBe(answers.get(pages[k - 1]!.id).nextCursor);
  });

  it('server.utilities.pagination#6: an empty-string nextCursor is a cursor, not the end of the results', async () => {
    const m = mock({ extends: 'default', behavior: { methods: { 'prompts/list': { result: { prompts: [{ name: 'p' }], nextCursor: '' } } } } });
    const c = await open(m.config);
    await c.listPrompts().catch(() => []);
    const lists = m.received().filter((r) => r.method === 'prompts/list');
    expect(lists.length).toBeGreaterThanOrEqual(2);
    expect(lists[1]!.params.cursor).toBe('');
  });
});

/** A 2026-07-28 stdio server that answers `late` 400 ms after it was asked, cancelled or not. */
const IGNORES_CANCEL = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const ok = (id, result) => send({ jsonrpc: '2.0', id, result: { resultType: 'complete', ...result } });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  require('node:fs').appendFileSync(process.env.RECORD, line + '\\n');
  if (m.id === undefined) return; // notifications/cancelled: ignored on purpose
  if (m.method === 'server/discover') return ok(m.id, { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'late', version: '1' } } });
  if (m.method === 'tools/call' && m.params.name === 'late') return setTimeout(() => ok(m.id, { content: [{ type: 'text', text: 'late' }] }), 400);
  if (m.method === 'tools/call') return ok(m.id, { content: [{ type: 'text', text: m.params.arguments.text }] });
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
});
`;

describe('progress and cancellation (2026-07-28, stdio)', () => {
  it('basic.patterns.cancellation#14: a server that answers a cancelled request anyway: the late answer is dropped, the aborted call stays aborted, a request sent meanwhile gets its own answer', async () => {
    const script = path.join(dir, 'ignores-cancel.cjs');
    const record = file('late');
    fs.writeFileSync(script, IGNORES_CANCEL);
    const c = await open({ transport: 'stdio', id: 'late', command: process.execPath, args: [script], env: { RECORD: record } });
    const ac = new AbortController();
    const late = c.callTool('late', {}, { signal: ac.signal });
    const lateOutcome = late.then(
      () => 'answered',
      (e: unknown) => (e as Error).name,
    );
    await until('the late call', () => fs.existsSync(record) && fs.readFileSync(record, 'utf8').includes('"late"'));
    ac.abort();
    const meanwhile = c.callTool('echo', { text: 'mine' });
    expect(await lateOutcome).not.toBe('answered');
    expect((await meanwhile).content).toEqual([{ type: 'text', text: 'mine' }]);
    await new Promise((resolve) => setTimeout(resolve, 700)); // the late answer has come and gone
    expect((await c.callTool('echo', { text: 'after' })).content).toEqual([{ type: 'text', text: 'after' }]);
    expect(c.state).toBe('ready');
    const sent = jsonLines(record);
    const lateId = sent.find((r) => r.params?.name === 'late')!.id;
    expect(sent.filter((r) => r.method === 'notifications/cancelled').map((r) => r.params.requestId)).toEqual([lateId]);
    expect(sent.filter((r) => r.id === lateId)).toHaveLength(1);
  });

  it('basic.patterns.progress#1/#2: each request asking for progress carries its own token, a string or an integer, unique across the requests in flight', async () => {
    const m = mock();
    const c = await open(m.config);
    const seen = new Map<number, number>();
    await Promise.all([1, 2, 3].map((k) => c.callTool('progress', { steps: 3, intervalMs: 20 }, { onProgress: () => seen.set(k, (seen.get(k) ?? 0) + 1) })));
    const tokens = calls(m, 'progress').map((r) => r.params._meta.progressToken);
    expect(tokens).toHaveLength(3);
    for (const t of tokens) expect(isId(t), String(t)).toBe(true);
    expect(new Set(tokens).size).toBe(3);
    expect([...seen.keys()].sort()).toEqual([1, 2, 3]);
  });

  it('basic.patterns.cancellation#10: notifications/cancelled only for a request the client issued and still believes in progress (not after its answer, not for one never sent)', async () => {
    const m = mock();
    const c = await open(m.config);
    const answered = new AbortController();
    await c.callTool('echo', { text: 'done' }, { signal: answered.signal });
    answered.abort();
    const early = new AbortController();
    early.abort();
    await expect(c.callTool('echo', { text: 'never sent' }, { signal: early.signal })).rejects.toThrow();
    const live = new AbortController();
    const slow = c.callTool('slow', { ms: 60_000 }, { signal: live.signal });
    await until('the slow call', () => calls(m, 'slow').length === 1);
    live.abort();
    await expect(slow).rejects.toThrow();
    await until('the cancellation', () => m.received().some((r) => r.method === 'notifications/cancelled'));
    await c.callTool('echo', { text: 'last' });
    const cancelled = m.received().filter((r) => r.method === 'notifications/cancelled');
    expect(cancelled.map((r) => r.params.requestId)).toEqual([calls(m, 'slow')[0]!.id]);
    expect(calls(m, 'echo').map((r) => r.params.arguments.text)).toEqual(['done', 'last']);
  });
});

/** A tool that always answers `input_required` with these input requests and this state (scripted: the mock verifies no state). */
const asking = (name: string, inputRequests: object, requestState?: string) => ({
  name,
  behavior: { result: { resultType: 'input_required', inputRequests, ...(requestState === undefined ? {} : { requestState }) } },
});

describe('multi round-trip requests (2026-07-28, stdio)', () => {
  it('basic.patterns.mrtr#2/#3/#18/#21: requestState is echoed byte for byte, whatever it looks like; each retry carries its own round only, with the required _meta; a parallel request carries none', async () => {
    const stateA = ' {"looks":"like JSON", "n": 1} ';
    const stateB = 'eyJhIjoxfQ==.\u00e9\u2028\ttrailing ';
    const m = mock({
      extends: 'default',
      tools: ['echo', 'slow', asking('askA', { a: { method: 'roots/list', params: {} } }, stateA), asking('askB', { b: { method: 'roots/list', params: {} } }, stateB)],
    });
    const c = await open(m.config, { roots: [{ uri: 'file:///r', name: 'r' }], maxInputRounds: 1 });
    const [a, b, e] = await Promise.allSettled([c.callTool('askA', { x: 1 }), c.callTool('askB', { y: 2 }), c.callTool('echo', { text: 'beside' })]);
    for (const r of [a, b]) {
      expect(r.status).toBe('rejected');
      expect(((r as PromiseRejectedResult).reason as ProtocolError).code).toBe('MCPWIRE_INPUT_ROUNDS');
    }
    expect(e.status).toBe('fulfilled');
    const roots = { roots: [{ uri: 'file:///r', name: 'r' }] };
    const [a1, a2] = calls(m, 'askA');
    const [b1, b2] = calls(m, 'askB');
    expect(calls(m, 'askA')).toHaveLength(2);
    expect(calls(m, 'askB')).toHaveLength(2);
    for (const first of [a1!, b1!]) expect('inputResponses' in first.params || 'requestState' in first.params).toBe(false);
    expect(a2!.params).toMatchObject({ arguments: { x: 1 }, inputResponses: { a: roots } });
    expect(b2!.params).toMatchObject({ arguments: { y: 2 }, inputResponses: { b: roots } });
    expect(Object.keys(a2!.params.inputResponses)).toEqual(['a']);
    expect(Object.keys(b2!.params.inputResponses)).toEqual(['b']);
    expect(a2!.params.requestState).toBe(stateA);
    expect(b2!.params.requestState).toBe(stateB);
    for (const retry of [a2!, b2!]) {
      expect(retry.params._meta[V]).toBe('2026-07-28');
      expect(retry.params._meta[CAPS]).toEqual({ roots: { listChanged: true } });
      expect(retry.params._meta[INFO]).toMatchObject({ name: expect.any(String), version: expect.any(String) });
    }
    const beside = calls(m, 'echo');
    expect(beside).toHaveLength(1);
    expect('inputResponses' in beside[0]!.params || 'requestState' in beside[0]!.params).toBe(false);
  });
});

describe('result types (2026-07-28, stdio)', () => {
  it('basic#9: the result types taken are the core\'s (complete; input_required on a request that has input rounds); an extension\'s (task) is invalid while the client has not declared that extension', async () => {
    const m = mock({
      extends: 'default',
      tools: ['echo', { name: 'handle', behavior: { result: { resultType: 'task', taskId: 't-1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttl: 60_000 } } }],
      behavior: { methods: { 'prompts/list': { result: { resultType: 'input_required', inputRequests: { r: { method: 'roots/list', params: {} } } } } } },
    });
    const c = await open(m.config, { roots: [{ uri: 'file:///r', name: 'r' }] });
    expect((await c.callTool('echo', { text: 'core' })).content).toEqual([{ type: 'text', text: 'core' }]);
    const task = await c.callTool('handle', {}).catch((e: unknown) => e);
    expect(task).toBeInstanceOf(ProtocolError);
    expect((task as Error).message).toMatch(/resultType "task"/);
    // prompts/list has no input rounds: input_required there is no result type the client takes
    const listed = await c.listPrompts().catch((e: unknown) => e);
    expect(listed).toBeInstanceOf(ProtocolError);
    expect((listed as Error).message).toMatch(/input_required/);
    expect(m.received().filter((r) => r.method === 'prompts/list')).toHaveLength(1);
  });
});

describe('reserved _meta keys (2026-07-28, stdio)', () => {
  it('basic#39: reserved keys the client has no use for, with values of any shape, are passed to the caller as the server sent them — no error, no meaning read into them', async () => {
    const meta = { 'io.modelcontextprotocol/not-yet-defined': { nested: [1, null, 'x'] }, 'modelcontextprotocol.io/other': 42, 'mcp.dev/flag': false };
    const m = mock({ extends: 'default', tools: ['echo', { name: 'odd', behavior: { result: { content: [{ type: 'text', text: 'ok' }], _meta: meta } } }] });
    const c = await open(m.config);
    const r = await c.callTool('odd', {});
    expect(r.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(r._meta).toMatchObject(meta); // (the mock adds its serverInfo beside them)
    expect(c.state).toBe('ready');
  });
});

describe('error codes (2026-07-28, stdio)', () => {
  it('basic#16: a code of the legacy sub-range (-32000 to -32019, -32002 aside) is delivered as a plain JsonRpcError with its code and message, no meaning assumed', async () => {
    const codes = [-32000, -32001, -32010, -32019];
    const m = mock({ extends: 'default', tools: codes.map((code) => ({ name: `fail${-code}`, error: { code, message: `legacy ${code}` } })) });
    const c = await open(m.config);
    for (const code of codes) {
      const err = await c.callTool(`fail${-code}`, {}).catch((x: unknown) => x);
      expect(err, String(code)).toBeInstanceOf(JsonRpcError);
      expect(Object.getPrototypeOf(err)).toBe(JsonRpcError.prototype);
      expect((err as JsonRpcError).rpcCode).toBe(code);
      expect((err as Error).message).toContain(`legacy ${code}`);
    }
    expect(c.state).toBe('ready');
  });
});
