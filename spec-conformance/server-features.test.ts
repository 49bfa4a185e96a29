/**
 * server/tools, server/resources, server/prompts, server/utilities/{pagination,logging,completion}
 * and basic/utilities/{cancellation,progress,ping} from the client's side, against the scripted
 * mock server over real child processes.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AbortError, JsonRpcError, TimeoutError, ValidationError, type McpClientDiagnostic } from '../src/index.js';
import { closeAll, removeMockDirs, connectMock, mock, until } from './support/mock.js';

afterEach(closeAll);
afterAll(removeMockDirs);

function diagnosticsOf(client: { on(e: 'diagnostic', f: (d: McpClientDiagnostic) => void): unknown }) {
  const list: McpClientDiagnostic[] = [];
  client.on('diagnostic', (d) => list.push(d));
  return list;
}

describe('server/tools', () => {
  it('tools/call returns the whole CallToolResult; isError stays a result, distinct from a JSON-RPC error', async () => {
    const client = await connectMock(mock());
    const ok = await client.callTool('echo', { text: 'hé 日本' });
    expect(ok).toEqual({ content: [{ type: 'text', text: 'hé 日本' }] });
    const failed = await client.callTool('fail', { message: 'no luck' });
    expect(failed.isError).toBe(true);
    expect(failed.content[0]).toEqual({ type: 'text', text: 'no luck' });
    const unknown = await client.callTool('no-such-tool').catch((e) => e);
    expect(unknown).toBeInstanceOf(JsonRpcError);
  });

  it('server.tools#15: structuredContent is validated against the outputSchema', async () => {
    const client = await connectMock(mock());
    await client.listTools();
    const r = await client.callTool('structured', { text: 'abc' });
    expect(r.structuredContent).toEqual({ text: 'abc', length: 3, upper: 'ABC' });
  });

  it('server.tools#15: structuredContent that violates the outputSchema is an error (or a warning when asked)', async () => {
    const scenario = {
      tools: [
        {
          name: 'liar',
          builtin: 'structured',
          outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
        },
      ],
    };
    const client = await connectMock(mock(scenario));
    await client.listTools();
    const err = await client.callTool('liar').catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/count/);

    const lenient = await connectMock(mock(scenario), { validateStructuredContent: 'warn' });
    const diags = diagnosticsOf(lenient);
    await lenient.listTools();
    const r = await lenient.callTool('liar');
    expect(r.structuredContent).toBeDefined();
    expect(diags.map((d) => d.code)).toContain('MCPWIRE_OUTPUT_SCHEMA');
  });

  it('server/utilities/pagination: listTools follows nextCursor to the end', async () => {
    const m = mock('paginated');
    const client = await connectMock(m);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add', 'slow', 'progress', 'structured', 'fail', 'blob']);
    expect(m.received().filter((x) => x.method === 'tools/list')).toHaveLength(4);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['mem://r1', 'mem://r2', 'mem://r3']);
    expect((await client.listResourceTemplates()).map((r) => r.name)).toEqual(['a', 'b', 'c']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('server/utilities/pagination: a cursor loop is detected and stopped, with a diagnostic', async () => {
    const client = await connectMock(mock('cursor-loop'));
    const diags = diagnosticsOf(client);
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const loops = diags.filter((d) => d.code === 'MCPWIRE_PAGINATION_LOOP' || d.code === 'MCPWIRE_PAGINATION_LIMIT');
    expect(loops.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('notifications/tools/list_changed becomes a toolsListChanged event', async () => {
    const client = await connectMock(mock());
    const changed = new Promise((r) => client.once('toolsListChanged', r));
    await client.callTool('notify', { method: 'notifications/tools/list_changed' });
    await changed;
  });
});

describe('basic/utilities: cancellation, progress, ping', () => {
  it('basic.utilities.cancellation#1/#5: aborting sends notifications/cancelled for the in-flight request with the reason', async () => {
    const m = mock();
    const client = await connectMock(m);
    const ac = new AbortController();
    const p = client.callTool('slow', { ms: 10_000 }, { signal: ac.signal }).catch((e) => e);
    await until(() => m.received().some((x) => x.method === 'tools/call'), 'the call to reach the server');
    ac.abort('user changed their mind');
    const err = await p;
    expect(err).toBeInstanceOf(AbortError);
    await until(() => m.received().some((x) => x.method === 'notifications/cancelled'), 'notifications/cancelled');
    const call = m.received().find((x) => x.method === 'tools/call')!;
    const cancel = m.received().find((x) => x.method === 'notifications/cancelled')!;
    expect(cancel.params).toEqual({ requestId: call.id, reason: 'user changed their mind' });
    // The connection is still usable.
    expect((await client.callTool('echo', { text: 'still here' })).content[0]).toEqual({ type: 'text', text: 'still here' });
  });

  it('basic.utilities.cancellation#5/#6: a response that arrives after cancellation is ignored and reported; the connection carries on', async () => {
    const client = await connectMock(mock());
    const diags = diagnosticsOf(client);
    const err = await client.callTool('ignoreCancel', { ms: 300 }, { timeoutMs: 50 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    // A call in flight while the late answer comes in gets its own answer, not the late one.
    const next = client.callTool('slow', { ms: 1000 });
    await until(() => diags.some((d) => d.code === 'MCPWIRE_LATE_RESPONSE'), 'the late response to be reported');
    expect((await next).content[0]).toEqual({ type: 'text', text: 'slept 1000 ms' });
    expect(client.state).toBe('ready');
    expect(client.pendingCount).toBe(0);
    expect(diags.filter((d) => d.code === 'MCPWIRE_LATE_RESPONSE')).toHaveLength(1);
  });

  it('basic.utilities.progress#1–#4: progress notifications reach onProgress, increasing, with messages', async () => {
    const m = mock();
    const client = await connectMock(m);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    // progressIntervalMs: 0 — every notification, not coalesced (see basic.utilities.progress#10)
    const r = await client.callTool('progress', { steps: 4, intervalMs: 5 }, { onProgress: (p) => seen.push(p), progressIntervalMs: 0 });
    expect(r.content[0]).toEqual({ type: 'text', text: 'done 4 steps' });
    expect(seen.map((s) => s.progress)).toEqual([1, 2, 3, 4]);
    expect(seen[3]).toMatchObject({ total: 4, message: 'step 4 of 4' });
    const calls = m.received().filter((x) => x.method === 'tools/call');
    const token = calls[0]!.params._meta.progressToken;
    // basic.utilities.progress#1/#2: a string or integer token, unique across active requests —
    // ours live in their own string space, so they can never equal a request id.
    expect(typeof token).toBe('string');
    expect(token).not.toBe(String(calls[0]!.id));
  });

  it('basic.utilities.progress#10: a fast progress stream is coalesced by default; the first and the last value always arrive', async () => {
    const client = await connectMock(mock());
    const seen: number[] = [];
    const r = await client.callTool('progress', { steps: 40, intervalMs: 0 }, { onProgress: (p) => seen.push(p.progress) });
    expect(r.content[0]).toEqual({ type: 'text', text: 'done 40 steps' });
    expect(seen[0]).toBe(1);
    expect(seen.at(-1)).toBe(40);
    expect(seen.length).toBeLessThanOrEqual(40);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
  });

  it('basic.lifecycle#19: resetTimeoutOnProgress keeps a long but progressing call alive, and the total ceiling still ends one that progresses for ever', async () => {
    const client = await connectMock(mock());
    const r = await client.callTool('progress', { steps: 6, intervalMs: 100 }, { timeoutMs: 400, resetTimeoutOnProgress: true, onProgress: () => {} });
    expect(r.isError).toBeFalsy();
    // Progress every 100 ms for 20 s: each gap is well within timeoutMs, the whole is not.
    const seen: number[] = [];
    const err = await client
      .callTool('progress', { steps: 200, intervalMs: 100 }, { timeoutMs: 1000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 1500, onProgress: (p) => seen.push(p.progress) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(/1500/);
    expect(seen.length).toBeGreaterThan(0);
    expect(client.pendingCount).toBe(0);
  });

  it('basic.utilities.ping#1: the client answers the server ping with an empty result', async () => {
    const client = await connectMock(mock());
    const r = await client.callTool('ask', { method: 'ping' });
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({});
  });

  it('an unknown server→client request gets -32601', async () => {
    const client = await connectMock(mock());
    const r = await client.callTool('ask', { method: 'frobnicate/now' });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content[0] as { text: string }).text).error.code).toBe(-32601);
  });
});

describe('server/resources, server/prompts, completion, logging', () => {
  it('server/resources: list, templates, read text and blob, subscribe and updated events', async () => {
    const m = mock();
    const client = await connectMock(m);
    const resources = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['mem://readme', 'mem://config.json', 'mem://pixel.png']);
    expect((await client.readResource('mem://readme')).contents[0]).toMatchObject({ uri: 'mem://readme', text: 'Hello from the mock server.' });
    expect((await client.readResource('mem://pixel.png')).contents[0]).toMatchObject({ blob: 'iVBORw0KGgo=' });
    const missing = await client.readResource('mem://nope').catch((e) => e);
    expect(missing).toBeInstanceOf(JsonRpcError);
    expect(missing.rpcCode).toBe(-32002);
    await client.subscribeResource('mem://readme');
    const updated = new Promise<{ uri: string }>((r) => client.once('resourceUpdated', r));
    await client.callTool('update', { uri: 'mem://readme' });
    expect(await updated).toEqual({ uri: 'mem://readme' });
    await client.unsubscribeResource('mem://readme');
  });

  it('server/prompts: list and get with argument substitution', async () => {
    const client = await connectMock(mock());
    const prompts = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet', 'plain']);
    const got = await client.getPrompt('greet', { name: 'Ada', style: 'formal' });
    expect(got.messages[0].content).toEqual({ type: 'text', text: 'Say hello to Ada in a formal way.' });
  });

  it('server/utilities/completion: completion/complete for a prompt argument', async () => {
    const client = await connectMock(mock());
    const r = await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'Al' });
    expect(r.completion.values).toEqual(['Alice', 'Alan']);
  });

  it('server/utilities/logging: setLevel filters, notifications/message become log events', async () => {
    const client = await connectMock(mock());
    const logs: { level: string; data: unknown }[] = [];
    client.on('log', (l) => logs.push(l));
    await client.setLoggingLevel('warning');
    const filtered = await client.callTool('log', { level: 'info', data: 'quiet' });
    expect(filtered.content[0]).toEqual({ type: 'text', text: 'filtered' });
    await client.callTool('log', { level: 'error', data: { disk: 'full' } });
    await until(() => logs.length === 1, 'the log notification');
    expect(logs[0]).toMatchObject({ level: 'error', data: { disk: 'full' } });
  });
});

describe('client/roots, client/sampling, client/elicitation', () => {
  it('answers roots/list, sampling/createMessage and elicitation/create through the given handlers', async () => {
    const client = await connectMock(mock(), {
      roots: [{ uri: 'file:///project', name: 'project' }],
      onSampling: async (p) => ({ role: 'assistant', content: { type: 'text', text: `you said ${p.messages.length}` }, model: 'test-model' }),
      onElicitation: async () => ({ action: 'accept', content: { name: 'Ada' } }),
    });
    const text = async (method: string, params?: object) =>
      JSON.parse(((await client.callTool('ask', { method, params })).content[0] as { text: string }).text);
    expect(await text('roots/list')).toEqual({ roots: [{ uri: 'file:///project', name: 'project' }] });
    expect(await text('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 })).toMatchObject({
      model: 'test-model',
    });
    expect(await text('elicitation/create', { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })).toEqual({
      action: 'accept',
      content: { name: 'Ada' },
    });
  });
});

describe('misbehaving servers: bad input never kills the connection', () => {
  it('a garbage line on stdout is reported and skipped; the call still completes', async () => {
    const client = await connectMock(mock('misbehaving-tools'));
    const diags = diagnosticsOf(client);
    const r = await client.callTool('garbled');
    expect(r.content.length).toBeGreaterThan(0);
    expect(diags.map((d) => d.code)).toContain('MCPWIRE_FRAME_MALFORMED');
  });

  it('an oversized line is refused with a clear diagnostic and the connection carries on', async () => {
    const client = await connectMock(mock('misbehaving-tools'), { maxMessageBytes: 1024 * 1024 });
    const diags = diagnosticsOf(client);
    const r = await client.callTool('huge');
    expect(r.content.length).toBeGreaterThan(0);
    const d = diags.find((x) => x.code === 'MCPWIRE_FRAME_OVERSIZED');
    expect(d?.message).toMatch(/exceeds the maximum of 1048576 bytes/);
  });

  it('a response with a wrong id is dropped and reported; the real request times out cleanly', async () => {
    const client = await connectMock(mock('misbehaving-tools'));
    const diags = diagnosticsOf(client);
    const err = await client.callTool('misaddressed', {}, { timeoutMs: 500 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(diags.map((d) => d.code)).toContain('MCPWIRE_UNKNOWN_RESPONSE');
  });

  it('a duplicate response: the first wins, the second is reported', async () => {
    const client = await connectMock(mock('misbehaving-tools'));
    const diags = diagnosticsOf(client);
    await client.callTool('twice');
    await until(() => diags.some((d) => d.code === 'MCPWIRE_UNKNOWN_RESPONSE'), 'the duplicate to be reported');
  });

  it('a message without "jsonrpc":"2.0" is reported as invalid', async () => {
    const client = await connectMock(mock('misbehaving-tools'));
    const diags = diagnosticsOf(client);
    await client.callTool('sloppy', {}, { timeoutMs: 500 }).catch(() => undefined);
    expect(diags.some((d) => d.code === 'MCPWIRE_INVALID_MESSAGE' && /jsonrpc/.test(d.message))).toBe(true);
  });

  it('a JSON-RPC batch is rejected under 2025-11-25 but accepted from a server that negotiated 2025-03-26', async () => {
    const strict = await connectMock(mock('misbehaving-tools'));
    const diags = diagnosticsOf(strict);
    const err = await strict.callTool('batched', {}, { timeoutMs: 500 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(diags.map((d) => d.code)).toContain('MCPWIRE_BATCH_REJECTED');

    const old = await connectMock(mock('misbehaving-tools'), { protocolVersion: '2025-03-26' });
    expect(old.protocolVersion).toBe('2025-03-26');
    const r = await old.callTool('batched');
    expect(r.content.length).toBeGreaterThan(0);
  });
});
