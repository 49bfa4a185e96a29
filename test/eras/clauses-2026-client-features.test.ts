// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Sampling, elicitation and roots in MCP 2026-07-28: the client declares them in the
 * `clientCapabilities` of each request, and answers them as the input requests of a multi
 * round-trip request (basic/patterns/mrtr). Against the scripted modern stdio mock: a tool
 * scripted to answer `input_required` with a given input request (the mock verifies no state),
 * the client held to one round, so a request it answers is retried once and one it refuses is
 * not retried at all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ClientOptions, McpClient } from '../../src/index.js';
import { CAPS, recordedMocks, type Msg } from '../support/recorded-mock.js';

const { mock, open } = recordedMocks('clauses-2026-features-', { protocolVersion: '2026-07-28', maxInputRounds: 1 });

/** The mock with tool `ask` answering input_required with `inputRequests`; `calls()` its tools/call requests. */
function asking(inputRequests: Record<string, { method: string; params: unknown }>) {
  const m = mock({ scenario: { extends: 'default', tools: ['echo', { name: 'ask', behavior: { result: { resultType: 'input_required', inputRequests, requestState: 's' } } }] } });
  return {
    config: m.config,
    received: m.received,
    calls: () => m.received().filter((r) => r.method === 'tools/call' && r.params.name === 'ask'),
  };
}

/** Calls `ask`; how many times it was sent, and the error the call ended with. */
async function ask(c: McpClient, m: ReturnType<typeof asking>): Promise<{ sent: number; retry: Msg | undefined; error: Error }> {
  const error = (await c.callTool('ask', {}).then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  )) as Error;
  const calls = m.calls();
  return { sent: calls.length, retry: calls[1], error };
}

const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
const text = (t: string) => ({ type: 'text', text: t });
const reply = { role: 'assistant' as const, content: { type: 'text' as const, text: 'fine' }, model: 'm' };

describe('client capabilities on each request (2026-07-28)', () => {
  it('client.elicitation#4/#5, client.sampling#4/#6, client.roots#2: each request declares elicitation (its modes), sampling (tools when supported) and roots in clientCapabilities; a client without handlers declares none', async () => {
    const m = asking({});
    const full = await open(m.config, {
      onElicitation: async () => ({ action: 'decline' }),
      elicitationModes: ['form', 'url'],
      onSampling: async () => reply,
      samplingSupport: { tools: true },
      roots: [{ uri: 'file:///r', name: 'r' }],
    });
    await full.listTools();
    await full.callTool('echo', { text: 'x' });
    const other = asking({});
    const bare = await open(other.config);
    await bare.callTool('echo', { text: 'y' });
    const fullCaps = m.received().filter((r) => r.id !== undefined).map((r) => r.params._meta[CAPS]);
    expect(fullCaps.length).toBeGreaterThanOrEqual(3);
    for (const caps of fullCaps) {
      expect(caps.elicitation).toEqual({ form: {}, url: {} });
      expect(caps.sampling).toEqual({ tools: {} });
      expect(caps.roots).toBeDefined();
    }
    const bareRequests = other.received().filter((r) => r.id !== undefined);
    expect(bareRequests.length).toBeGreaterThanOrEqual(2);
    for (const r of bareRequests) expect(r.params._meta[CAPS]).toEqual({});
  });
});

describe('elicitation as an input request (2026-07-28)', () => {
  it('client.elicitation#8: an elicitation input request without mode reaches the handler as form mode, and its answer goes in the retry', async () => {
    const m = asking({ q: { method: 'elicitation/create', params: { message: 'Proceed?', requestedSchema: schema } } });
    const seen: unknown[] = [];
    const c = await open(m.config, { onElicitation: async (p) => (seen.push(p), { action: 'accept', content: { ok: true } }) });
    const { sent, retry } = await ask(c, m);
    expect(seen).toMatchObject([{ mode: 'form', message: 'Proceed?' }]);
    expect(sent).toBe(2);
    expect(retry!.params.inputResponses).toEqual({ q: { action: 'accept', content: { ok: true } } });
  });

  it('client.elicitation#18/#24/#33: the handler is told which server asks; a URL-mode request\'s URL is handed over untouched and never fetched by the client; the accept carries nothing back', async () => {
    let hits = 0;
    const site = http.createServer((_req, res) => (hits++, res.end('page')));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/authorize?state=x`;
      const m = asking({ u: { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', elicitationId: 'e9', url } } });
      const seen: { url?: string; serverId?: string }[] = [];
      const c = await open(m.config, { elicitationModes: ['url'], onElicitation: async (p, ctx) => (seen.push({ url: (p as { url?: string }).url, serverId: ctx.serverId }), { action: 'accept' }) });
      const { sent, retry } = await ask(c, m);
      expect(seen).toEqual([{ url, serverId: 'modern' }]);
      expect(sent).toBe(2);
      expect(retry!.params.inputResponses).toEqual({ u: { action: 'accept' } });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hits).toBe(0);
    } finally {
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });

  const refused: [string, object][] = [
    ['no message (#7)', { requestedSchema: schema }],
    ['form without requestedSchema (#9)', { mode: 'form', message: 'm' }],
    ['url without url (#11)', { mode: 'url', message: 'm', elicitationId: 'e1' }],
    ['url that is no valid URL (#12)', { mode: 'url', message: 'm', elicitationId: 'e2', url: 'not a url' }],
    ['url with a javascript: URL (#12)', { mode: 'url', message: 'm', elicitationId: 'e3', url: 'javascript:alert(1)' }],
  ];
  it.each(refused)('client.elicitation#7/#9/#11/#12: an elicitation input request with %s is refused: the handler is not called, the request not retried', async (_what, params) => {
    const m = asking({ q: { method: 'elicitation/create', params } });
    let called = 0;
    const c = await open(m.config, { onElicitation: async () => (called++, { action: 'decline' }), elicitationModes: ['form', 'url'] });
    const { sent, error } = await ask(c, m);
    expect(called).toBe(0);
    expect(sent).toBe(1);
    expect(error.message).toMatch(/-32602/);
  });
});

describe('sampling as an input request (2026-07-28)', () => {
  const tool = { name: 'lookup', inputSchema: { type: 'object' } };
  const refused: [string, ClientOptions['samplingSupport'], object][] = [
    ['tools while sampling.tools is not declared (#4)', {}, { messages: [{ role: 'user', content: text('hi') }], maxTokens: 10, tools: [tool] }],
    [
      'a user message mixing tool_result with text (#8)',
      { tools: true },
      {
        messages: [
          { role: 'user', content: text('hi') },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [text('42')] }, text('and more')] },
        ],
        maxTokens: 10,
        tools: [tool],
      },
    ],
    [
      'a tool use the next user message does not answer (#9)',
      { tools: true },
      {
        messages: [
          { role: 'user', content: text('hi') },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'other', content: [text('42')] }] },
        ],
        maxTokens: 10,
        tools: [tool],
      },
    ],
    ['a message without a role (#12)', {}, { messages: [{ content: text('hi') }], maxTokens: 10 }],
    ['a message whose role is neither user nor assistant (#12)', {}, { messages: [{ role: 'system', content: text('hi') }], maxTokens: 10 }],
  ];
  it.each(refused)('client.sampling#4/#8/#9/#12: a createMessage input request with %s is refused before the handler, the request not retried', async (_what, samplingSupport, params) => {
    const m = asking({ s: { method: 'sampling/createMessage', params } });
    let called = 0;
    const c = await open(m.config, { onSampling: async () => (called++, reply), ...(samplingSupport === undefined ? {} : { samplingSupport }) });
    const { sent, error } = await ask(c, m);
    expect(called).toBe(0);
    expect(sent).toBe(1);
    expect(error.message).toMatch(/-32602/);
  });

  it('client.sampling#10/#11: a handler answer that breaks toolChoice (required without a tool use, none with one) is not sent to the server', async () => {
    const base = { messages: [{ role: 'user', content: text('hi') }], maxTokens: 10, tools: [tool] };
    for (const [mode, answer] of [
      ['required', reply],
      ['none', { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'lookup', input: {} }], model: 'm', stopReason: 'toolUse' }],
    ] as const) {
      const m = asking({ s: { method: 'sampling/createMessage', params: { ...base, toolChoice: { mode } } } });
      const c = await open(m.config, { onSampling: async () => answer as never, samplingSupport: { tools: true } });
      const { sent, error } = await ask(c, m);
      expect(sent, mode).toBe(1);
      expect(error.message, mode).toMatch(/-32603|toolChoice/);
    }
  });

  it('a well-formed tool-enabled createMessage input request reaches the handler and its answer goes in the retry (the refusals above are not blanket)', async () => {
    const m = asking({ s: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: text('hi') }], maxTokens: 10, tools: [tool] } } });
    let called = 0;
    const c = await open(m.config, { onSampling: async () => (called++, reply), samplingSupport: { tools: true } });
    const { sent, retry } = await ask(c, m);
    expect(called).toBe(1);
    expect(sent).toBe(2);
    expect(retry!.params.inputResponses.s).toMatchObject({ role: 'assistant', model: 'm' });
  });
});

describe('roots as an input request (2026-07-28)', () => {
  it('client.roots#3/#4: a roots/list input request is answered with file:// roots; a root with a path-traversal segment or another scheme is never offered', async () => {
    const m = asking({ r: { method: 'roots/list', params: {} } });
    const c = await open(m.config, { roots: [{ uri: 'file:///work/project', name: 'p' }] });
    const { sent, retry } = await ask(c, m);
    expect(sent).toBe(2);
    expect(retry!.params.inputResponses).toEqual({ r: { roots: [{ uri: 'file:///work/project', name: 'p' }] } });
    for (const uri of ['file:///work/../etc', 'file:///work/%2e%2e/etc', 'https://example.com/work']) {
      const bad = asking({ r: { method: 'roots/list', params: {} } });
      const opened = await open(bad.config, { roots: () => [{ uri, name: 'x' }] });
      const r = await ask(opened, bad);
      expect(r.sent, uri).toBe(1);
      expect(r.error.message, uri).toMatch(/path traversal|not a file:\/\/ URI|root/);
    }
  });
});
