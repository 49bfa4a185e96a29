// clauses: 2026-07-28
/**
 * Tasks in 2026-07-28: the `io.modelcontextprotocol/tasks` extension (SEP-2663, changelog item
 * "Move experimental tasks out of the core protocol"), from the client's side. The modern mock's
 * engine (mock-servers/modern/lib) runs in-process over a memory transport pair, so every wait
 * is driven by fake timers and nothing depends on machine speed. Titles name "the tasks
 * extension" for the extension's own rules (its page has no clause ids).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, CapabilityError, JsonRpcError, ProtocolError, TimeoutError } from '../src/errors.js';
import { McpClient, type ClientOptions } from '../src/mcp/client.js';
import type { Task } from '../src/mcp/types.js';
import { createMemoryPair } from '../src/transport/memory.js';
import { createModernEngine, DEFAULT_MODERN_SCENARIO } from '../mock-servers/modern/lib/engine.mjs';

type Msg = { id?: string | number; method?: string; params?: any; at: number };
const EXT = 'io.modelcontextprotocol/tasks';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const DECLARED: ClientOptions = { capabilities: { extensions: { [EXT]: {} } } };

const TOOLS = [
  'echo',
  { name: 'research', builtin: 'slow', task: true },
  { name: 'approve', builtin: 'confirm', task: true },
  { name: 'ponder', builtin: 'sample', task: true },
  { name: 'where', builtin: 'roots', task: true },
  { name: 'maybe', builtin: 'echo', task: 'optional' },
  { name: 'vetted', builtin: 'confirm', task: 'after-input' },
  { name: 'doomed', task: true, error: { code: -32603, message: 'the job crashed', data: { step: 3 } } },
  { name: 'flaky', task: true, result: { content: [{ type: 'text', text: 'the tool failed' }], isError: true } },
];

let clients: McpClient[] = [];
// the follower is loaded on first use (a real-time import): loaded before the clock is faked
beforeAll(async () => {
  await import('../src/mcp/eras/modern-tasks.js');
});
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
  vi.useRealTimers();
});

/** A client pinned to 2026-07-28 on the in-process modern mock; `sent(method)` is what the mock got. */
async function setup(scenario: Record<string, unknown>, options: ClientOptions = DECLARED) {
  const [c, s] = createMemoryPair();
  const received: Msg[] = [];
  const engine = createModernEngine({ ...DEFAULT_MODERN_SCENARIO, tools: TOOLS, tasks: { pollIntervalMs: 500 }, ...scenario }, { stderr: () => {} });
  const send = (m: unknown) => void s.send(m).catch(() => {});
  s.onmessage = (m: any) => {
    received.push({ ...m, at: Date.now() });
    if (m.id === undefined) return void engine.handleNotification(m, 'stdio');
    void engine.handleRequest(m, { send }).then((out: any) => out.response && send(out.response));
  };
  const client = new McpClient({ transport: 'stdio', command: 'mock', id: 'mock' }, { transport: c, protocolVersion: '2026-07-28', taskPolling: { minPollIntervalMs: 10 }, ...options });
  clients.push(client);
  const diagnostics: { code: string; message: string }[] = [];
  client.on('diagnostic', (d) => diagnostics.push(d));
  await client.connect();
  const sent = (method: string) => received.filter((m) => m.method === method);
  return { client, received, sent, diagnostics, engine };
}

/** Runs `p` to its end while the fake clock moves. */
async function drive<T>(p: Promise<T>, ms = 20_000): Promise<T> {
  const settled = p.then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );
  await vi.advanceTimersByTimeAsync(ms);
  const r = (await settled) as { v?: T; e?: unknown };
  if ('e' in r) throw r.e;
  return r.v as T;
}

describe('negotiation', () => {
  it('the tasks extension: declared in every request\'s per-request clientCapabilities when the host enables it, recognised in server/discover (has("tasks"))', async () => {
    const { client, received } = await setup({});
    expect(client.era).toBe('modern');
    expect(client.has('tasks')).toBe(true);
    await client.callTool('echo', { text: 'x' });
    const requests = received.filter((m) => m.id !== undefined);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const r of requests) expect(r.params._meta[CAPS].extensions).toEqual({ [EXT]: {} });
  });

  it('the tasks extension: has("tasks") is false when only one side declares it; a plain call stays plain', async () => {
    const notServer = await setup({ tasks: undefined, tools: ['echo'] });
    expect(notServer.client.has('tasks')).toBe(false);
    expect((await notServer.client.callTool('echo', { text: 'plain' })).content).toEqual([{ type: 'text', text: 'plain' }]);
    const notClient = await setup({}, {});
    expect(notClient.client.has('tasks')).toBe(false);
    expect(notClient.sent('server/discover')[0]!.params._meta[CAPS].extensions).toBeUndefined();
  });

  it('the tasks extension: a server that needs a task from a client that did not declare it answers -32021; nothing is polled', async () => {
    const { client, sent } = await setup({}, {});
    await expect(client.callTool('research', { ms: 10 })).rejects.toMatchObject({ rpcCode: -32021 });
    expect(sent('tasks/get')).toHaveLength(0);
  });

  it('basic#10: a task handle the client did not ask for by declaring the extension is an invalid result', async () => {
    const { client } = await setup({ behavior: { methods: { 'tools/call': { resultType: 'task' } } } }, {});
    await expect(client.callTool('echo', { text: 'x' })).rejects.toBeInstanceOf(ProtocolError);
  });

  it('the tasks extension: a task handle in answer to a request other than tools/call is invalid', async () => {
    const { client } = await setup({ behavior: { methods: { 'prompts/get': { resultType: 'task' } } } });
    await expect(client.getPrompt('greet', { name: 'x' })).rejects.toBeInstanceOf(ProtocolError);
  });
});

describe('one callTool, whatever the server decides', () => {
  it('the tasks extension: a tool the server may run as a task gives the same result as a task (extension declared) and plainly (not declared)', async () => {
    const declared = await setup({});
    const plain = await setup({}, {});
    const asTask = await drive(declared.client.callTool('maybe', { text: 'same' }));
    const asPlain = await drive(plain.client.callTool('maybe', { text: 'same' }));
    expect(asTask.content).toEqual([{ type: 'text', text: 'same' }]);
    expect(asPlain.content).toEqual(asTask.content);
    expect(declared.sent('tasks/get').length).toBeGreaterThanOrEqual(1);
    expect(plain.sent('tasks/get')).toHaveLength(0);
  });

  it('the tasks extension: multi round-trip input on tools/call first, then the final answer as a task handle, followed to the result', async () => {
    const { client, sent } = await setup({}, { ...DECLARED, onElicitation: async () => ({ action: 'accept', content: { ok: true } }) });
    const r = await drive(client.callTool('vetted', { message: 'sure?' }));
    expect(r.content).toEqual([{ type: 'text', text: 'accept: {"ok":true} after 1 round(s)' }]);
    const calls = sent('tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.params.inputResponses).toEqual({ confirm: { action: 'accept', content: { ok: true } } });
    expect(sent('tasks/get').length).toBeGreaterThanOrEqual(1);
    expect(sent('tasks/update')).toHaveLength(0);
  });
});

describe('following a task handle', () => {
  it('the tasks extension: an unsolicited handle is polled with tasks/get no sooner than its pollIntervalMs until completed; the result comes inline (no tasks/result)', async () => {
    const { client, sent, received } = await setup({});
    const statuses: string[] = [];
    const r = await drive(client.callTool('research', { ms: 2000 }, { onTaskStatus: (t: Task) => statuses.push(t.status) }));
    expect(r).toMatchObject({ content: [{ type: 'text', text: 'slept 2000 ms' }] });
    expect(r.isError ?? false).toBe(false);
    expect(statuses).toEqual(['working', 'completed']);
    const call = sent('tools/call')[0]!;
    expect(call.params.task).toBeUndefined(); // server-directed: nothing asked for on the request
    const gets = sent('tasks/get');
    expect(gets.length).toBeGreaterThanOrEqual(3);
    expect(gets.length).toBeLessThanOrEqual(6);
    let prev = call.at;
    for (const g of gets) {
      expect(g.at - prev).toBeGreaterThanOrEqual(500);
      prev = g.at;
    }
    expect(received.some((m) => m.method === 'tasks/result' || m.method === 'tasks/list')).toBe(false);
  });

  it('the tasks extension: input_required is answered once through tasks/update by the ordinary elicitation handler, then polled to completion', async () => {
    const asked: unknown[] = [];
    const { client, sent } = await setup({}, {
      ...DECLARED,
      onElicitation: async (p) => {
        asked.push(p);
        return { action: 'accept', content: { ok: true } };
      },
    });
    const r = await drive(client.callTool('approve', { message: 'ship it?' }));
    expect(r.content).toEqual([{ type: 'text', text: 'accept: {"ok":true} after 1 round(s)' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: 'ship it?' });
    const updates = sent('tasks/update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.params).toMatchObject({ taskId: expect.any(String), inputResponses: { 'confirm-1': { action: 'accept', content: { ok: true } } } });
  });

  it('the tasks extension: a task\'s sampling and roots requests are answered by the ordinary onSampling handler and roots, through tasks/update', async () => {
    const sampled: unknown[] = [];
    const { client, sent } = await setup({}, {
      ...DECLARED,
      roots: [{ uri: 'file:///work/project', name: 'project' }],
      onSampling: async (p) => {
        sampled.push(p);
        return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
      },
    });
    const pondered = await drive(client.callTool('ponder', { message: 'the answer?' }));
    expect(pondered.content).toEqual([{ type: 'text', text: 'model said: forty-two' }]);
    expect(sampled).toHaveLength(1);
    const where = await drive(client.callTool('where', {}));
    expect(where.content).toEqual([{ type: 'text', text: 'roots: file:///work/project' }]);
    expect(sent('tasks/update').map((u) => Object.keys(u.params.inputResponses))).toEqual([['sample-1'], ['roots-1']]);
    expect(sent('sampling/createMessage')).toHaveLength(0); // nothing outside the task's own channel
  });

  it('the tasks extension: an input request the client has no handler for fails the call (CapabilityError) and cancels the task', async () => {
    // elicitation declared (the server's tool checks it) but no onElicitation to answer with
    const { client, sent } = await setup({}, { capabilities: { elicitation: { form: {} }, extensions: { [EXT]: {} } } });
    await expect(drive(client.callTool('approve', {}))).rejects.toBeInstanceOf(CapabilityError);
    expect(sent('tasks/update')).toHaveLength(0);
    expect(sent('tasks/cancel')).toHaveLength(1);
  });

  it('the tasks extension: a failed task rejects with its JSON-RPC error; a tool error is a completed task whose result has isError', async () => {
    const { client, sent } = await setup({});
    const err = await drive(client.callTool('doomed', {})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err).toMatchObject({ rpcCode: -32603, data: { step: 3 } });
    expect((err as Error).message).toMatch(/the job crashed/);
    const r = await drive(client.callTool('flaky', {}));
    expect(r).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the tool failed' }] });
    expect(sent('tasks/cancel')).toHaveLength(0);
  });
});

describe('cancellation', () => {
  it('the tasks extension: aborting the call sends tasks/cancel (not notifications/cancelled) and rejects with AbortError', async () => {
    const { client, sent, engine } = await setup({});
    const ac = new AbortController();
    const p = client.callTool('research', { ms: 60_000 }, { signal: ac.signal });
    const settled = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1200);
    expect(sent('tasks/get').length).toBeGreaterThanOrEqual(1);
    ac.abort(new Error('user pressed stop'));
    expect(await settled).toBeInstanceOf(AbortError);
    await vi.advanceTimersByTimeAsync(10);
    const cancels = sent('tasks/cancel');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.params.taskId).toBe(engine.tasks.created[0].taskId);
    expect(sent('notifications/cancelled')).toHaveLength(0);
    expect(client.pendingCount).toBe(0);
  });

  it('the tasks extension: the call\'s total deadline passing is a TimeoutError and sends tasks/cancel', async () => {
    const { client, sent } = await setup({});
    const settled = client.callTool('research', { ms: 60_000 }, { maxTotalTimeoutMs: 3000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3100);
    expect(await settled).toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(10);
    expect(sent('tasks/cancel')).toHaveLength(1);
  });

  it('the tasks extension: a server that cancels the task itself ends the call with AbortError', async () => {
    const { client, engine } = await setup({});
    const settled = client.callTool('research', { ms: 60_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(600);
    const taskId = engine.tasks.created[0].taskId;
    await engine.handleRequest({ jsonrpc: '2.0', id: 'x', method: 'tasks/cancel', params: { taskId, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', [CAPS]: { extensions: { [EXT]: {} } } } } }, { send: () => {} });
    await vi.advanceTimersByTimeAsync(1000);
    const err = await settled;
    expect(err).toBeInstanceOf(AbortError);
    expect((err as Error).message).toMatch(/cancelled/);
  });
});
