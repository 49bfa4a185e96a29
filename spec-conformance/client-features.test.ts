/**
 * client/sampling, client/elicitation, client/roots: the client's side of server-initiated
 * requests, against the scripted stdio mock (scenario `client-features`: `ask` sends any
 * request to the client and returns its answer or error, `roots` reports list_changed and the
 * roots it re-fetched, `needsBrowser` fails with -32042). Each test names the clause it proves.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  connect,
  isUrlElicitationRequiredError,
  directoryRoot,
  authorizedDirectoryRoots,
  type ClientOptions,
  type CreateMessageRequestParams,
  type ElicitRequestParams,
  type McpClient,
  type TextContent,
} from '../src/index.js';
import { JsonRpcError } from '../src/errors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mock = path.join(root, 'mock-servers/stdio-server.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-client-features-'));
const clients: McpClient[] = [];

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
/** A client on the mock; `record` is the file of every message the server received. */
async function open(options: ClientOptions): Promise<{ client: McpClient; record: string }> {
  const record = path.join(tmp, `received-${++n}.jsonl`);
  const client = await connect(
    { transport: 'stdio', id: 'mock', command: process.execPath, args: [mock, 'client-features'], env: { MOCK_RECORD: record } },
    { timeoutMs: 20_000, ...options },
  );
  clients.push(client);
  return { client, record };
}

function received(record: string): { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { code: number; message: string } }[] {
  return fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}
const declared = (record: string) => received(record).find((m) => m.method === 'initialize')!.params!.capabilities as Record<string, unknown>;

/** The server asks the client (`ask` tool): the client's result, or `{error}`. */
async function ask(client: McpClient, method: string, params?: Record<string, unknown>): Promise<{ error?: { code: number; message: string } } & Record<string, unknown>> {
  const r = await client.callTool('ask', { method, ...(params !== undefined ? { params } : {}) });
  return JSON.parse((r.content[0] as TextContent).text) as { error?: { code: number; message: string } };
}

const text = (t: string) => ({ type: 'text', text: t });
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const toolUse = (id: string, city: string) => ({ type: 'tool_use', id, name: 'get_weather', input: { city } });
const toolResult = (id: string, t: string) => ({ type: 'tool_result', toolUseId: id, content: [text(t)] });
const weatherTool = { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const answer = { role: 'assistant' as const, content: text('Paris is sunny'), model: 'test-model', stopReason: 'endTurn' };

// ---------------------------------------------------------------------------------------------
describe('client/sampling', () => {
  it('client.sampling#5: a client with a sampling handler declares `sampling` (without tools or context unless supported); one without does not', async () => {
    const a = await open({ onSampling: async () => answer });
    expect(declared(a.record).sampling).toEqual({});
    const b = await open({});
    expect(declared(b.record).sampling).toBeUndefined();
    expect(await ask(b.client, 'sampling/createMessage', { messages: [user(text('hi'))], maxTokens: 5 })).toMatchObject({ error: { code: -32601 } });
  });

  it('client.sampling#3: `sampling.tools` is declared only when the handler supports tools, and then tools, toolChoice, tool_use and tool_result round-trip through the handler', async () => {
    const seen: CreateMessageRequestParams[] = [];
    const { client, record } = await open({
      samplingSupport: { tools: true },
      onSampling: async (p) => {
        seen.push(p);
        return seen.length === 1
          ? { role: 'assistant', content: [toolUse('call_1', 'Paris'), toolUse('call_2', 'London')], model: 'm', stopReason: 'toolUse' }
          : { role: 'assistant', content: text('Paris 18°C, London 15°C'), model: 'm', stopReason: 'endTurn' };
      },
    });
    expect(declared(record).sampling).toEqual({ tools: {} });
    const first = await ask(client, 'sampling/createMessage', {
      messages: [user(text('Weather in Paris and London?'))],
      tools: [weatherTool],
      toolChoice: { mode: 'auto' },
      maxTokens: 100,
    });
    expect(first).toEqual({ role: 'assistant', content: [toolUse('call_1', 'Paris'), toolUse('call_2', 'London')], model: 'm', stopReason: 'toolUse' });
    expect(seen[0].tools).toEqual([weatherTool]);
    expect(seen[0].toolChoice).toEqual({ mode: 'auto' });
    const history = [
      user(text('Weather in Paris and London?')),
      assistant([toolUse('call_1', 'Paris'), toolUse('call_2', 'London')]),
      user([toolResult('call_1', '18°C'), toolResult('call_2', '15°C')]),
    ];
    const second = await ask(client, 'sampling/createMessage', { messages: history, tools: [weatherTool], maxTokens: 100 });
    expect(second).toMatchObject({ content: text('Paris 18°C, London 15°C'), stopReason: 'endTurn' });
    expect(seen[1].messages).toEqual(history);
  });

  it('client.sampling#3: without `sampling.tools`, a tool-enabled request (tools, toolChoice or tool content) is refused with -32602 before the handler sees it', async () => {
    const handler = vi.fn(async () => answer);
    const { client } = await open({ onSampling: handler });
    const withTools = await ask(client, 'sampling/createMessage', { messages: [user(text('hi'))], tools: [weatherTool], maxTokens: 10 });
    expect(withTools.error).toMatchObject({ code: -32602, message: expect.stringMatching(/sampling\.tools/) });
    const withChoice = await ask(client, 'sampling/createMessage', { messages: [user(text('hi'))], toolChoice: { mode: 'none' }, maxTokens: 10 });
    expect(withChoice.error?.code).toBe(-32602);
    const withContent = await ask(client, 'sampling/createMessage', {
      messages: [user(text('hi')), assistant([toolUse('c', 'Paris')]), user([toolResult('c', 'x')])],
      maxTokens: 10,
    });
    expect(withContent.error?.code).toBe(-32602);
    expect(handler).not.toHaveBeenCalled();
  });

  it('client.sampling#8: a user message with tool results that also carries text is refused with -32602 (tool results mixed with other content)', async () => {
    const handler = vi.fn(async () => answer);
    const { client } = await open({ onSampling: handler, samplingSupport: { tools: true } });
    const r = await ask(client, 'sampling/createMessage', {
      messages: [user(text('Weather?')), assistant([toolUse('call_1', 'Paris')]), user([text('Here are the results:'), toolResult('call_1', '18°C')])],
      tools: [weatherTool],
      maxTokens: 10,
    });
    expect(r.error).toMatchObject({ code: -32602, message: expect.stringMatching(/mixed/) });
    expect(handler).not.toHaveBeenCalled();
  });

  it('client.sampling#9: every tool use must be answered by a tool result in the next user message: a missing result, a result for an unknown id, or another message in between are -32602', async () => {
    const handler = vi.fn(async () => answer);
    const { client } = await open({ onSampling: handler, samplingSupport: { tools: true } });
    const send = (messages: unknown[]) => ask(client, 'sampling/createMessage', { messages, tools: [weatherTool], maxTokens: 10 });
    const uses = assistant([toolUse('call_abc123', 'Paris'), toolUse('call_def456', 'London')]);
    const missing = await send([user(text('Weather?')), uses, user([toolResult('call_abc123', '18°C')])]);
    expect(missing.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Tool result missing.*call_def456/) });
    const unanswered = await send([user(text('Weather?')), uses]);
    expect(unanswered.error?.code).toBe(-32602);
    const between = await send([user(text('Weather?')), uses, user(text('wait')), user([toolResult('call_abc123', 'a'), toolResult('call_def456', 'b')])]);
    expect(between.error?.code).toBe(-32602);
    const stray = await send([user(text('Weather?')), assistant(text('ok')), user([toolResult('nope', 'x')])]);
    expect(stray.error?.code).toBe(-32602);
    expect(handler).not.toHaveBeenCalled();
    // The same conversation, complete, reaches the handler.
    await send([user(text('Weather?')), uses, user([toolResult('call_abc123', 'a'), toolResult('call_def456', 'b')])]);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('client.sampling#10 / #11: a handler result that breaks toolChoice ("required" without a tool use, "none" with one) never reaches the server: -32603 instead', async () => {
    let reply: unknown = answer;
    const { client } = await open({ onSampling: async () => reply as typeof answer, samplingSupport: { tools: true } });
    const req = (mode: string) => ({ messages: [user(text('Weather?'))], tools: [weatherTool], toolChoice: { mode }, maxTokens: 10 });
    const required = await ask(client, 'sampling/createMessage', req('required'));
    expect(required.error).toMatchObject({ code: -32603, message: expect.stringMatching(/required/) });
    reply = { role: 'assistant', content: [toolUse('c1', 'Paris')], model: 'm', stopReason: 'toolUse' };
    expect(await ask(client, 'sampling/createMessage', req('required'))).toMatchObject({ stopReason: 'toolUse' });
    const none = await ask(client, 'sampling/createMessage', req('none'));
    expect(none.error).toMatchObject({ code: -32603, message: expect.stringMatching(/none/) });
  });

  it('client.sampling#7: includeContext reaches the handler only when `sampling.context` is declared; otherwise the client ignores it', async () => {
    const seen: CreateMessageRequestParams[] = [];
    const handler = async (p: CreateMessageRequestParams) => (seen.push(p), answer);
    const plain = await open({ onSampling: handler });
    await ask(plain.client, 'sampling/createMessage', { messages: [user(text('hi'))], includeContext: 'allServers', maxTokens: 5 });
    expect(seen[0]).not.toHaveProperty('includeContext');
    const ctx = await open({ onSampling: handler, samplingSupport: { context: true } });
    expect(declared(ctx.record).sampling).toEqual({ context: {} });
    await ask(ctx.client, 'sampling/createMessage', { messages: [user(text('hi'))], includeContext: 'thisServer', maxTokens: 5 });
    expect(seen[1].includeContext).toBe('thisServer');
  });

  it('client.sampling#12: a user rejection thrown by the handler reaches the server as the handler\'s JSON-RPC error (-1)', async () => {
    const { client } = await open({
      onSampling: async () => {
        throw new JsonRpcError(-1, 'User rejected sampling request');
      },
    });
    const r = await ask(client, 'sampling/createMessage', { messages: [user(text('hi'))], maxTokens: 5 });
    expect(r.error).toEqual({ code: -1, message: 'User rejected sampling request' });
  });
});

// ---------------------------------------------------------------------------------------------
const formSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 18, default: 30 },
    color: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }, { const: '#0f0', title: 'Green' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
    ok: { type: 'boolean' },
  },
  required: ['name', 'email'],
};

describe('client/elicitation', () => {
  it('client.elicitation#4: a client with an elicitation handler declares `elicitation` with the modes it handles (form by default; applyDefaults when set)', async () => {
    const a = await open({ onElicitation: async () => ({ action: 'decline' }) });
    expect(declared(a.record).elicitation).toEqual({ form: {} });
    const b = await open({ onElicitation: async () => ({ action: 'decline' }), elicitationModes: ['form', 'url'], elicitationApplyDefaults: true });
    expect(declared(b.record).elicitation).toEqual({ form: { applyDefaults: true }, url: {} });
    const c = await open({});
    expect(declared(c.record).elicitation).toBeUndefined();
  });

  it('client.elicitation#5: declaring elicitation with no mode is refused before anything is sent', async () => {
    await expect(open({ onElicitation: async () => ({ action: 'decline' }), elicitationModes: [] })).rejects.toMatchObject({ code: 'MCPWIRE_CONFIG' });
  });

  it('client.elicitation#30: a request in a mode the client did not declare is refused with -32602 and never reaches the handler', async () => {
    const handler = vi.fn(async () => ({ action: 'accept' as const }));
    const { client } = await open({ onElicitation: handler });
    const r = await ask(client, 'elicitation/create', { mode: 'url', message: 'Open', url: 'https://example.com/x', elicitationId: 'e1' });
    expect(r.error).toMatchObject({ code: -32602, message: expect.stringMatching(/mode "url" is not supported/) });
    expect(handler).not.toHaveBeenCalled();
  });

  it('client.elicitation#7 / #8: a request without `message` is -32602; one without `mode` is handled as form mode', async () => {
    const seen: ElicitRequestParams[] = [];
    const { client } = await open({ onElicitation: async (p) => (seen.push(p), { action: 'accept', content: { name: 'Ann', email: 'ann@example.com' } }) });
    expect((await ask(client, 'elicitation/create', { requestedSchema: formSchema })).error?.code).toBe(-32602);
    const r = await ask(client, 'elicitation/create', { message: 'Who are you?', requestedSchema: formSchema });
    expect(r).toEqual({ action: 'accept', content: { name: 'Ann', email: 'ann@example.com' } });
    expect(seen).toHaveLength(1);
    expect(seen[0].mode).toBe('form');
  });

  it('client.elicitation#9: form mode needs requestedSchema in the restricted subset (a flat object of primitives): nested objects, arrays of objects, unknown keywords are -32602', async () => {
    const handler = vi.fn(async () => ({ action: 'decline' as const }));
    const { client } = await open({ onElicitation: handler });
    const bad = [
      undefined,
      { type: 'array', items: {} },
      { type: 'object', properties: { address: { type: 'object', properties: { street: { type: 'string' } } } } },
      { type: 'object', properties: { people: { type: 'array', items: { type: 'object' } } } },
      { type: 'object', properties: { n: { type: 'string', format: 'ipv4' } } },
      { type: 'object', properties: { n: { type: 'string', allOf: [] } } },
      { type: 'object', properties: { n: { type: 'string' } }, additionalProperties: true },
    ];
    for (const requestedSchema of bad) {
      const r = await ask(client, 'elicitation/create', { mode: 'form', message: 'm', ...(requestedSchema ? { requestedSchema } : {}) });
      expect(r.error?.code, JSON.stringify(requestedSchema)).toBe(-32602);
    }
    expect(handler).not.toHaveBeenCalled();
    await ask(client, 'elicitation/create', { mode: 'form', message: 'm', requestedSchema: formSchema });
    // What schema generators emit for a flat object is still the subset.
    const generated = { $schema: 'http://json-schema.org/draft-07/schema#', ...formSchema, additionalProperties: false };
    expect((await ask(client, 'elicitation/create', { mode: 'form', message: 'm', requestedSchema: generated })).error).toBeUndefined();
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('client.elicitation#52 / #10: the accepted answer is validated against the requested schema before sending (invalid → -32603, nothing sent); defaults fill missing fields when applyDefaults is declared', async () => {
    let content: Record<string, unknown> = {};
    const handler = async () => ({ action: 'accept' as const, content });
    const strict = await open({ onElicitation: handler });
    const req = { mode: 'form', message: 'm', requestedSchema: formSchema };
    for (const wrong of [{ email: 'a@b.co' }, { name: 'Ann', email: 'not-an-email' }, { name: 'Ann', email: 'a@b.co', age: 12 }, { name: 'Ann', email: 'a@b.co', color: 'Red' }, { name: 'Ann', email: 'a@b.co', extra: 1 }, { name: 'Ann', email: 'a@b.co', tags: ['a', 'c'] }]) {
      content = wrong;
      const r = await ask(strict.client, 'elicitation/create', req);
      expect(r.error?.code, JSON.stringify(wrong)).toBe(-32603);
    }
    content = { name: 'Ann', email: 'a@b.co', color: '#0f0', tags: ['a', 'b'], ok: true };
    expect(await ask(strict.client, 'elicitation/create', req)).toEqual({ action: 'accept', content });
    const withDefaults = await open({ onElicitation: handler, elicitationApplyDefaults: true });
    content = { name: 'Ann', email: 'a@b.co' };
    expect(await ask(withDefaults.client, 'elicitation/create', req)).toEqual({ action: 'accept', content: { name: 'Ann', email: 'a@b.co', age: 30 } });
  });

  it('client.elicitation#3: decline and cancel reach the server as such, without content', async () => {
    let action: 'decline' | 'cancel' = 'decline';
    const { client } = await open({ onElicitation: async () => ({ action, content: { name: 'leak' } }) });
    const req = { message: 'm', requestedSchema: formSchema };
    expect(await ask(client, 'elicitation/create', req)).toEqual({ action: 'decline' });
    action = 'cancel';
    expect(await ask(client, 'elicitation/create', req)).toEqual({ action: 'cancel' });
  });

  it('client.elicitation#32: the handler is told which server asks', async () => {
    const seen: (string | undefined)[] = [];
    const { client } = await open({ onElicitation: async (_p, ctx) => (seen.push(ctx.serverId), { action: 'decline' }) });
    await ask(client, 'elicitation/create', { message: 'm', requestedSchema: formSchema });
    expect(seen).toEqual(['mock']);
  });

  it('client.elicitation#11 / #12 / #41: URL mode needs a valid http(s) `url` and an `elicitationId`; javascript:, data: and file: URLs are refused with -32602', async () => {
    const handler = vi.fn(async () => ({ action: 'accept' as const }));
    const { client } = await open({ onElicitation: handler, elicitationModes: ['url'] });
    const base = { mode: 'url', message: 'Open it', elicitationId: 'e1', url: 'https://example.com/connect' };
    for (const change of [{ url: undefined }, { elicitationId: undefined }, { url: 'not a url' }, { url: 'javascript:alert(1)' }, { url: 'data:text/html,hi' }, { url: 'file:///etc/passwd' }]) {
      const r = await ask(client, 'elicitation/create', { ...base, ...change });
      expect(r.error?.code, JSON.stringify(change)).toBe(-32602);
    }
    expect(handler).not.toHaveBeenCalled();
    expect(await ask(client, 'elicitation/create', base)).toEqual({ action: 'accept' });
  });

  it('client.elicitation#42 / #25 / #27: a URL elicitation is handed to the host untouched and never fetched by the client; an accept carries no content back', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('secret page');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/connect?elicitationId=e42`;
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const seen: ElicitRequestParams[] = [];
      const { client } = await open({
        elicitationModes: ['url'],
        onElicitation: async (p) => (seen.push(p), { action: 'accept', content: { token: 'third-party-secret' } }),
      });
      expect(await ask(client, 'elicitation/create', { mode: 'url', message: 'Connect', url, elicitationId: 'e42' })).toEqual({ action: 'accept' });
      expect(seen[0]).toMatchObject({ mode: 'url', url, elicitationId: 'e42' });
      expect(hits).toBe(0);
      expect(fetchSpy.mock.calls.filter((c) => String(c[0]).includes(url))).toEqual([]);
    } finally {
      fetchSpy.mockRestore();
      server.close();
    }
  });

  it('client.elicitation#15: notifications/elicitation/complete is passed on once for an id the user accepted; unknown, already completed or id-less notifications are ignored', async () => {
    const { client } = await open({ elicitationModes: ['url'], onElicitation: async () => ({ action: 'accept' }) });
    const events: unknown[] = [];
    client.on('elicitationComplete', (p) => events.push(p));
    await ask(client, 'elicitation/create', { mode: 'url', message: 'm', url: 'https://example.com/a', elicitationId: 'known' });
    const notify = (params: unknown) => client.callTool('notify', { method: 'notifications/elicitation/complete', params });
    await notify({ elicitationId: 'unknown' });
    await notify({});
    await notify({ elicitationId: 'known' });
    await notify({ elicitationId: 'known' });
    await client.callTool('ask', { method: 'ping' }); // everything before it has been handled
    expect(events).toEqual([{ elicitationId: 'known' }]);
  });

  it('client.elicitation#18 / #19: -32042 on a tool call is a typed UrlElicitationRequiredError carrying the URL elicitations; their completion notification is then passed on', async () => {
    const { client } = await open({ elicitationModes: ['url'], onElicitation: async () => ({ action: 'accept' }) });
    const err = await client.callTool('needsBrowser').catch((e: unknown) => e);
    expect(isUrlElicitationRequiredError(err)).toBe(true);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err).toMatchObject({ rpcCode: -32042, code: 'MCPWIRE_URL_ELICITATION_REQUIRED' });
    const elicitations = (err as { elicitations: { elicitationId: string; url: string; mode: string }[] }).elicitations;
    expect(elicitations).toEqual([
      {
        mode: 'url',
        elicitationId: '550e8400-e29b-41d4-a716-446655440000',
        url: 'https://mcp.example.com/connect?elicitationId=550e8400-e29b-41d4-a716-446655440000',
        message: 'Authorization is required to access your Example Co files.',
      },
    ]);
    const events: unknown[] = [];
    client.on('elicitationComplete', (p) => events.push(p));
    await client.callTool('notify', { method: 'notifications/elicitation/complete', params: { elicitationId: elicitations[0].elicitationId } });
    await client.callTool('ask', { method: 'ping' });
    expect(events).toEqual([{ elicitationId: elicitations[0].elicitationId }]);
  });

  it('client.elicitation#19: a -32042 whose elicitations are not URL elicitations with an id is not taken for one: it stays a plain JsonRpcError', async () => {
    const { client } = await open({ elicitationModes: ['url'], onElicitation: async () => ({ action: 'accept' }) });
    const err = await client.callTool('needsBrowserMalformed').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(isUrlElicitationRequiredError(err)).toBe(false);
    expect(err).toMatchObject({ rpcCode: -32042, code: 'MCPWIRE_JSONRPC_ERROR' });
  });
});

// ---------------------------------------------------------------------------------------------
describe('client/roots', () => {
  it('client.roots#1: a client offering roots declares `roots` (with listChanged) and answers roots/list; one without has no capability and answers -32601', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'proj-'));
    const a = await open({ roots: [directoryRoot(dir, 'Project')] });
    expect(declared(a.record).roots).toEqual({ listChanged: true });
    expect(await ask(a.client, 'roots/list')).toEqual({ roots: [{ uri: `file://${dir}`, name: 'Project' }] });
    const b = await open({});
    expect(declared(b.record).roots).toBeUndefined();
    expect((await ask(b.client, 'roots/list')).error?.code).toBe(-32601);
  });

  it('client.roots#2: setRoots() sends notifications/roots/list_changed when the list changes (not when it is the same) and the server re-fetches the new list', async () => {
    const one = directoryRoot(path.join(tmp, 'one'));
    const two = directoryRoot(path.join(tmp, 'two'));
    const { client } = await open({ roots: [one] });
    const state = async () => JSON.parse(((await client.callTool('roots')).content[0] as TextContent).text) as { listChanged: number; roots: unknown };
    expect(await state()).toEqual({ listChanged: 0, roots: null });
    await client.setRoots([one, two]);
    await vi.waitFor(async () => expect(await state()).toEqual({ listChanged: 1, roots: [one, two] }), { timeout: 10_000 });
    await client.setRoots([one, two]);
    await client.callTool('ask', { method: 'ping' });
    expect((await state()).listChanged).toBe(1);
    const bare = await open({});
    await expect(bare.client.setRoots([one])).rejects.toMatchObject({ code: 'MCPWIRE_STATE' });
  });

  it('client.roots#3: roots are file:// URIs, percent-encoded (spaces, #, %, ?, non-ASCII); other schemes are refused', async () => {
    const dir = path.join(tmp, 'a dir #1 100% ?é');
    const r = directoryRoot(dir);
    expect(r.uri).toMatch(/^file:\/\//);
    expect(r.uri).toContain('a%20dir%20%231%20100%25%20%3F%C3%A9');
    expect(fileURLToPath(r.uri)).toBe(dir);
    const { client } = await open({ roots: [r] });
    expect(await ask(client, 'roots/list')).toEqual({ roots: [r] });
    await expect(client.setRoots([{ uri: 'https://example.com/repo' }])).rejects.toMatchObject({ code: 'MCPWIRE_CONFIG' });
    await expect(client.setRoots([{ uri: '/no/scheme' }])).rejects.toMatchObject({ code: 'MCPWIRE_CONFIG' });
  });

  it('client.roots#5 / #4: root URIs with dot segments (path traversal) are refused, and only directories that exist and are readable are exposed; a root that cannot be listed is -32603', async () => {
    const real = fs.mkdtempSync(path.join(tmp, 'real-'));
    const gone = path.join(tmp, 'gone');
    fs.mkdirSync(gone);
    const file = path.join(tmp, 'plain.txt');
    fs.writeFileSync(file, 'x');
    const { client } = await open({ roots: authorizedDirectoryRoots([real, gone, file, `${real}/../${path.basename(real)}`]) });
    expect(await ask(client, 'roots/list')).toEqual({ roots: [directoryRoot(real), directoryRoot(gone), directoryRoot(real)] });
    fs.rmdirSync(gone);
    expect(await ask(client, 'roots/list')).toEqual({ roots: [directoryRoot(real), directoryRoot(real)] });
    expect(directoryRoot(`${real}/../..`).uri).toBe(`file://${path.dirname(tmp)}`);
    for (const uri of ['file:///srv/app/../../etc', 'file:///srv/app/%2e%2e/%2E%2E/etc', 'file:///srv/./app']) {
      await expect(client.setRoots([{ uri }]), uri).rejects.toMatchObject({ code: 'MCPWIRE_CONFIG' });
    }
    await client.setRoots(() => [{ uri: 'http://example.com/' }]);
    expect((await ask(client, 'roots/list')).error?.code).toBe(-32603);
  });
});
