// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Multi round-trip requests (basic/patterns/mrtr; src/mcp/mrtr.ts): an `input_required` result
 * answered by the client's handlers, the request sent again with a new id, `inputResponses` and
 * the server's `requestState` unchanged. Against the modern stdio mock in a child process, whose
 * recordings (received and sent) are the proof.
 */
import { describe, expect, it } from 'vitest';
import { CapabilityError, ProtocolError, TimeoutError } from '../../src/index.js';
import { ModernCodec } from '../../src/mcp/eras/modern.js';
import { recordedMocks } from '../support/recorded-mock.js';

const { mock, open } = recordedMocks('era-mrtr-', { protocolVersion: '2026-07-28' });

/** The modern mock: its config, the tools/call requests it received, the answers it sent. */
function modern(scenario?: object) {
  const m = mock({ scenario, id: 'mrtr', recordSent: true });
  return {
    config: m.config,
    calls: () => m.received().filter((r) => r.method === 'tools/call'),
    answers: () => m.sent().filter((a) => a.id !== undefined && a.method === undefined),
  };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

/** A server whose every tools/call asks for input (a scripted `input_required`). */
const alwaysAsking = (result: object) => ({ extends: 'default', behavior: { methods: { 'tools/call': { result: { resultType: 'input_required', ...result } } } } });

describe('multi round-trip requests', () => {
  it('basic.patterns.mrtr#16/#17/#20, server.tools#8: the elicitation is answered, the retry has a new id, the inputResponses and the exact requestState', async () => {
    const s = modern();
    const asked: unknown[] = [];
    const c = await open(s.config, {
      onElicitation: async (params) => {
        asked.push(params);
        return { action: 'accept', content: { ok: true } };
      },
    });
    const r = await c.callTool('confirm', { message: 'Deploy?' });
    expect(text(r)).toBe('accept: {"ok":true} after 1 round(s)');
    expect(asked).toMatchObject([{ mode: 'form', message: 'Deploy?' }]);
    const [first, retry] = s.calls();
    expect(s.calls()).toHaveLength(2);
    expect(retry!.id).not.toBe(first!.id);
    const interim = s.answers().find((a) => a.id === first!.id)!.result;
    expect(interim.resultType).toBe('input_required');
    expect(retry!.params.requestState).toBe(interim.requestState);
    expect(retry!.params.inputResponses).toEqual({ confirm: { action: 'accept', content: { ok: true } } });
    expect(retry!.params.arguments).toEqual({ message: 'Deploy?' });
    expect(retry!.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    // the retry is the caller's params and the round's answers, the era's _meta after them, as the
    // first request (its params are given _meta in place: the retry does not start from those)
    expect(Object.keys(first!.params)).toEqual(['name', 'arguments', '_meta']);
    expect(Object.keys(retry!.params)).toEqual(['name', 'arguments', 'inputResponses', 'requestState', '_meta']);
  });

  it('sampling and roots input requests are answered by the onSampling handler and the roots option', async () => {
    const s = modern();
    const c = await open(s.config, {
      onSampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }),
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
    expect(text(await c.callTool('sample', { message: 'capital?' }))).toBe('model said: Paris');
    expect(text(await c.callTool('roots', {}))).toBe('roots: file:///work');
  });

  it('basic.patterns.mrtr#19: no requestState in the interim result, none in the retry; the rounds are bounded (maxInputRounds)', async () => {
    const s = modern(alwaysAsking({ inputRequests: { where: { method: 'roots/list', params: {} } } }));
    const c = await open(s.config, { roots: [{ uri: 'file:///r', name: 'r' }], maxInputRounds: 2 });
    const err = await c.callTool('echo', { text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('MCPWIRE_INPUT_ROUNDS');
    const calls = s.calls();
    expect(calls).toHaveLength(3);
    for (const retry of calls.slice(1)) {
      expect('requestState' in retry.params).toBe(false);
      expect(retry.params.inputResponses).toEqual({ where: { roots: [{ uri: 'file:///r', name: 'r' }] } });
    }
    expect(new Set(calls.map((x) => x.id)).size).toBe(3);
  });

  it('an input request the client has no handler for fails the call naming it, and the request is not sent again', async () => {
    const s = modern(alwaysAsking({ inputRequests: { llm: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }, requestState: 's1' }));
    const c = await open(s.config);
    const err = await c.callTool('echo', { text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CapabilityError);
    expect((err as Error).message).toMatch(/"llm": sampling\/createMessage \(no `onSampling` option\)/);
    expect(s.calls()).toHaveLength(1);
  });

  it("the caller's timeout spans every round: a handler still waiting when it passes ends the call, with no retry", async () => {
    const s = modern();
    const c = await open(s.config, { onElicitation: (_p, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))) });
    const err = await c.callTool('confirm', { message: 'never answered' }, { timeoutMs: 800 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(s.calls()).toHaveLength(1);
  });

  it("the caller's signal spans every round: aborting while the user is asked ends the call", async () => {
    const s = modern();
    const ac = new AbortController();
    const c = await open(s.config, {
      onElicitation: () => {
        ac.abort(new Error('user closed the dialog'));
        return new Promise(() => {});
      },
    });
    const err = await c.callTool('confirm', { message: 'x' }, { signal: ac.signal }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/aborted/);
    expect(s.calls()).toHaveLength(1);
  });

  it('basic#44, client.elicitation#4, client.sampling#6: a request given its own clientCapabilities declares them in its _meta, on its retry too; other requests declare the client\'s own', async () => {
    const s = modern();
    const c = await open(s.config, { onElicitation: async () => ({ action: 'accept', content: { ok: true } }) });
    const theirs = { sampling: {}, elicitation: { form: {} } };
    await c.callTool('confirm', { message: 'Deploy?' }, { clientCapabilities: theirs });
    await c.callTool('echo', { text: 'plain' });
    const calls = s.calls();
    expect(calls).toHaveLength(3);
    const caps = (x: (typeof calls)[number]) => x.params._meta['io.modelcontextprotocol/clientCapabilities'];
    expect(caps(calls[0]!)).toEqual(theirs);
    expect(caps(calls[1]!)).toEqual(theirs);
    expect(caps(calls[2]!)).not.toEqual(theirs);
    expect(caps(calls[2]!)).toHaveProperty('elicitation');
  });

  it('basic.patterns.mrtr#16/#17/#21: onInputRequests gets a round\'s input requests together under the server\'s keys, and the retry carries exactly its answers (the client\'s handlers are not asked)', async () => {
    const inputRequests = {
      user_name: { method: 'elicitation/create', params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } } },
      'llm-7': { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
    };
    const s = modern(alwaysAsking({ inputRequests, requestState: 'opaque-1' }));
    const c = await open(s.config, { maxInputRounds: 1 });
    const rounds: unknown[] = [];
    const answers = { user_name: { action: 'accept', content: { name: 'Ada' } }, 'llm-7': { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } };
    const err = await c
      .callTool('echo', { text: 'x' }, { onInputRequests: async (requests) => (rounds.push(requests), answers) })
      .catch((e: unknown) => e);
    expect((err as ProtocolError).code).toBe('MCPWIRE_INPUT_ROUNDS');
    expect(rounds).toEqual([inputRequests]);
    const [first, retry] = s.calls();
    expect(retry!.id).not.toBe(first!.id);
    expect(retry!.params.inputResponses).toEqual(answers);
    expect(retry!.params.requestState).toBe('opaque-1');
  });
});

describe('which requests round-trip (basic/patterns/mrtr "Supported Requests")', () => {
  const codec = new ModernCodec({ serverId: 's', protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
  const asking = { resultType: 'input_required', inputRequests: {}, requestState: 'st' };

  it('tools/call, prompts/get and resources/read may be answered with input_required; their interim result is read', () => {
    for (const method of ['tools/call', 'prompts/get', 'resources/read']) {
      expect(codec.roundTrips(method)).toBe(true);
      expect(codec.interim(method, asking)).toEqual({ inputRequests: {}, requestState: 'st' });
      expect(codec.interim(method, { content: [] })).toBeUndefined();
    }
  });

  it('any other request is not: input_required on it is an unknown resultType (basic#10)', () => {
    for (const method of ['tools/list', 'resources/list', 'prompts/list', 'completion/complete', 'server/discover', 'tools/call/x', 'Tools/call']) {
      expect(codec.roundTrips(method)).toBe(false);
      expect(() => codec.interim(method, asking)).toThrow(expect.objectContaining({ code: 'MCPWIRE_BAD_RESULT_TYPE' }));
    }
  });
});
