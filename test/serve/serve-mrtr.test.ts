// clauses: 2026-07-28
/**
 * `mcpwire serve` and a 2026-07-28 client: a downstream server's elicitation, sampling or roots
 * request during the client's call reaches it as an `input_required` result (multi round-trip
 * requests), and its retry answers the downstream server. Behind the gateway a scripted stdio
 * mock (mock-servers/serve/ask-many.mjs: `ask` one request, `askMany` several at once and in a
 * row) records what it receives. In front: raw JSON lines over stdio to the built CLI, raw POSTs
 * to `serveHttp` on 127.0.0.1, and mcpwire's own client pinned to 2026-07-28.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp, type HttpGateway } from '../../src/serve-api.js';
import { cli, root } from '../support/tap-helpers.js';
import { meta, postModern, spawnLinePeer, type LinePeer, type Msg } from '../support/modern-wire.js';
import { jsonLines } from '../support/recorded-mock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-mrtr-'));
let n = 0;

/** A config with the asking mock as server `asker`, recording what it receives in the returned file. */
function setup(): { config: string; record: string } {
  n++;
  const record = path.join(dir, `received-${n}.jsonl`);
  const config = path.join(dir, `config-${n}.json`);
  const env = { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['ask', 'askMany', 'echo'] }), MOCK_RECORD: record, API_TOKEN: SECRET };
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { asker: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/serve/ask-many.mjs')], env } } } }));
  return { config, record };
}


const ALL = { elicitation: {}, sampling: {}, roots: {} };
/** A value of the server's configured env: a secret the gateway never passes on. */
const SECRET = 'sk-mrtr-0123456789abcdef';
const COLOUR = { message: 'Your colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } };
const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 20 };
const elicit = (colour: string) => ({ action: 'accept', content: { colour } });
const sampled = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };

const clients: McpClient[] = [];
const gateways: HttpGateway[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const g of gateways.splice(0)) await g.close().catch(() => {});
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The gateway's names of the mock's tools (`mcp_asker_<tool>_<hash>`), from its first listing. */
const names = new Map<string, string>();
function learn(tools: { name: string }[]): void {
  for (const t of tools) {
    const m = /^mcp_asker_(.+)_[0-9a-f]{8}$/.exec(t.name);
    if (m) names.set(m[1]!, t.name);
  }
}

/** A `tools/call` of the modern client with capabilities `caps` (and more params: the retry's). */
function call(tool: string, args: Record<string, unknown>, caps: Record<string, unknown> = ALL, more: Record<string, unknown> = {}): Msg {
  const name = names.get(tool);
  if (name === undefined) throw new Error(`no tool ${tool} listed yet`);
  return { name, arguments: args, _meta: meta({}, caps), ...more };
}

describe('mcpwire serve: downstream input requests reach a 2026-07-28 client as input_required', { timeout: 90_000 }, () => {
  /**
   * One stdio gateway, started by a `tools/list` declaring elicitation, sampling and roots (its
   * downstream server is offered what that first request declared), and its recording mock for
   * this block's tests: each follows its own calls and states, and what
   * a test asserts of everything on the wire or in the record holds for all of them.
   */
  let shared: Promise<{ gw: LinePeer; record: string }> | undefined;
  const sharedGateway = () =>
    (shared ??= (async () => {
      const { config, record } = setup();
      const p = spawnLinePeer([cli, 'serve', '--config', config], { env: { MCPWIRE_TRACE: '' } });
      learn((await p.request('tools/list', { _meta: meta({}, ALL) })).result.tools);
      return { gw: p, record };
    })());
  afterAll(async () => {
    await (await shared?.catch(() => undefined))?.gw.close().catch(() => {});
  });

  // cites basic.patterns.mrtr#1: mcpwire serve is the server here: the downstream server's request reaches the modern client only as an input_required result
  // cites basic.patterns.mrtr#5: mcpwire serve is the server here: it assigns the inputRequests keys
  // cites basic.patterns.mrtr#12: mcpwire serve is the server here: its input_required carries inputRequests and requestState
  it('basic.patterns.mrtr#1 / #5 / #12 over stdio: an elicitation during tools/call comes back as input_required; the retry with inputResponses and requestState completes the call and the server has the answer', async () => {
    const { gw, record } = await sharedGateway();
    const first = await gw.request('tools/call', call('ask', { method: 'elicitation/create', params: COLOUR }));
    const r = first.result;
    expect(r.resultType).toBe('input_required');
    const keys = Object.keys(r.inputRequests);
    expect(keys).toHaveLength(1);
    // The downstream client names the form mode the request meant (an absent mode is form).
    expect(r.inputRequests[keys[0]!]).toEqual({ method: 'elicitation/create', params: { ...COLOUR, mode: 'form' } });
    expect(typeof r.requestState).toBe('string');
    // No server-to-client request went out on the wire.
    expect(gw.messages.filter((m) => m.method === 'elicitation/create')).toEqual([]);

    const retry = await gw.request('tools/call', call('ask', { method: 'elicitation/create', params: COLOUR }, ALL, { inputResponses: { [keys[0]!]: elicit('teal') }, requestState: r.requestState }));
    expect(retry.id).not.toBe(first.id);
    expect(retry.result.resultType).toBe('complete');
    expect(retry.result.isError).not.toBe(true);
    expect(JSON.parse(retry.result.content[0].text)).toEqual(elicit('teal'));
    // The downstream server got the answer to its own request.
    const asked = jsonLines(record).filter((m) => m.result?.action === 'accept').at(-1);
    expect(asked?.result).toEqual(elicit('teal'));
  });

  // cites basic.patterns.mrtr#7: mcpwire serve is the server here: it treats the requestState it gets back as attacker-controlled
  // cites basic.patterns.mrtr#9: mcpwire serve is the server here: it rejects state that fails verification
  it('basic.patterns.mrtr#7 / #9: a tampered requestState, and one presented on another request, are refused with -32602; the real one still completes the call', async () => {
    const { gw } = await sharedGateway();
    const args = { method: 'elicitation/create', params: COLOUR };
    const r = (await gw.request('tools/call', call('ask', args))).result;
    const key = Object.keys(r.inputRequests)[0]!;
    const state = r.requestState as string;
    const flipped = state.slice(0, -2) + (state.at(-2) === 'A' ? 'B' : 'A') + state.at(-1);
    const answers = { inputResponses: { [key]: elicit('red') } };
    const tampered = await gw.request('tools/call', call('ask', args, ALL, { ...answers, requestState: flipped }));
    expect(tampered.error?.code).toBe(-32602);
    expect(tampered.error?.message).toMatch(/failed verification/);
    const madeUp = await gw.request('tools/call', call('ask', args, ALL, { ...answers, requestState: 'eyJoIjoiMSJ9.AAAA' }));
    expect(madeUp.error?.code).toBe(-32602);
    // The same state on another request (other arguments) does not verify either.
    const elsewhere = await gw.request('tools/call', call('ask', { ...args, params: { ...COLOUR, message: 'Other?' } }, ALL, { ...answers, requestState: state }));
    expect(elsewhere.error?.code).toBe(-32602);
    const done = await gw.request('tools/call', call('ask', args, ALL, { inputResponses: { [key]: elicit('green') }, requestState: state }));
    expect(JSON.parse(done.result.content[0].text)).toEqual(elicit('green'));
  });

  // cites basic.patterns.mrtr#11: mcpwire serve is the server here: a state is redeemed at most once
  it('basic.patterns.mrtr#11: a requestState is redeemed once: presented again (after the call ended, or while its round is answered) it is refused', async () => {
    const { gw } = await sharedGateway();
    const args = { parallel: [{ method: 'elicitation/create', params: COLOUR }], then: [{ method: 'elicitation/create', params: COLOUR }] };
    const r1 = (await gw.request('tools/call', call('askMany', args))).result;
    const k1 = Object.keys(r1.inputRequests)[0]!;
    const r2 = (await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [k1]: elicit('one') }, requestState: r1.requestState }))).result;
    expect(r2.resultType).toBe('input_required');
    expect(r2.requestState).not.toBe(r1.requestState);
    // The first round's state again, while the second round waits: refused, and the call goes on.
    const replay = await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [k1]: elicit('again') }, requestState: r1.requestState }));
    expect(replay.error?.code).toBe(-32602);
    const k2 = Object.keys(r2.inputRequests)[0]!;
    expect(k2).not.toBe(k1);
    const done = (await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [k2]: elicit('two') }, requestState: r2.requestState }))).result;
    expect(JSON.parse(done.content[0].text)).toEqual([{ result: elicit('one') }, { result: elicit('two') }]);
    const late = await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [k2]: elicit('two') }, requestState: r2.requestState }));
    expect(late.error?.code).toBe(-32602);
  });

  // cites basic.patterns.mrtr#6: mcpwire serve is the server here: its inputRequests values are the downstream server's elicitation, roots and sampling requests
  // cites basic.patterns.mrtr#24: mcpwire serve is the server here: it ignores answers it did not ask for
  it('basic.patterns.mrtr#6 / #25 / #24: requests sent at once share one inputRequests map; a retry missing an answer is asked again (extra keys ignored); then the next request is another round', async () => {
    const { gw, record } = await sharedGateway();
    const args = { parallel: [{ method: 'roots/list' }, { method: 'elicitation/create', params: COLOUR }], then: [{ method: 'sampling/createMessage', params: SAMPLE }] };
    const r1 = (await gw.request('tools/call', call('askMany', args))).result;
    const byMethod = (r: Msg, method: string) => Object.entries(r.inputRequests as Record<string, Msg>).find(([, v]) => v.method === method)?.[0];
    expect(Object.values(r1.inputRequests).map((v) => (v as Msg).method).sort()).toEqual(['elicitation/create', 'roots/list']);
    const roots = byMethod(r1, 'roots/list')!;
    const colour = byMethod(r1, 'elicitation/create')!;
    // Only the roots answer, and one nobody asked for.
    const r2 = (await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [roots]: { roots: [{ uri: 'file:///work', name: 'work' }] }, bogus: { x: 1 } }, requestState: r1.requestState }))).result;
    expect(r2.resultType).toBe('input_required');
    expect(Object.keys(r2.inputRequests)).toEqual([colour]);
    const r3 = (await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [colour]: elicit('blue') }, requestState: r2.requestState }))).result;
    expect(r3.resultType).toBe('input_required');
    const sample = byMethod(r3, 'sampling/createMessage')!;
    expect(r3.inputRequests[sample].params).toEqual(SAMPLE);
    const done = (await gw.request('tools/call', call('askMany', args, ALL, { inputResponses: { [sample]: sampled }, requestState: r3.requestState }))).result;
    expect(done.resultType).toBe('complete');
    expect(JSON.parse(done.content[0].text)).toEqual([{ result: { roots: [{ uri: 'file:///work', name: 'work' }] } }, { result: elicit('blue') }, { result: sampled }]);
    expect(jsonLines(record).some((m) => JSON.stringify(m).includes('bogus'))).toBe(false);
  });

  it("progress of a held call goes to the request being served, with that request's token", async () => {
    const { gw } = await sharedGateway();
    const args = { parallel: [{ method: 'elicitation/create', params: COLOUR }], progress: true };
    const params = (token: string, more: Record<string, unknown> = {}) => ({ ...call('askMany', args, ALL, more), _meta: meta({ progressToken: token }, ALL) });
    const seen = gw.messages.length;
    const r = (await gw.request('tools/call', params('first'))).result;
    expect(r.resultType).toBe('input_required');
    const key = Object.keys(r.inputRequests)[0]!;
    const done = (await gw.request('tools/call', params('retry', { inputResponses: { [key]: elicit('pink') }, requestState: r.requestState }))).result;
    expect(done.resultType).toBe('complete');
    const progress = gw.messages.slice(seen).filter((m) => m.method === 'notifications/progress').map((m) => [m.params.progressToken, m.params.progress]);
    expect(progress).toEqual([
      ['first', 1],
      ['retry', 2],
    ]);
  });

  it("a server's input request goes up through its redaction: a configured secret in it does not reach the client", async () => {
    const { gw } = await sharedGateway();
    const r = (await gw.request('tools/call', call('ask', { method: 'elicitation/create', params: { ...COLOUR, message: `Token ${SECRET}?` } }))).result;
    expect(r.resultType).toBe('input_required');
    const asked = Object.values(r.inputRequests as Record<string, Msg>)[0]!;
    expect(asked.params.message).toMatch(/^Token /);
    expect(JSON.stringify(gw.messages)).not.toContain(SECRET);
  });

  it('basic.patterns.mrtr#22: an answer that is not the result of its request is -32602 and does not use up the state', async () => {
    const { gw } = await sharedGateway();
    const args = { method: 'elicitation/create', params: COLOUR };
    const r = (await gw.request('tools/call', call('ask', args))).result;
    const key = Object.keys(r.inputRequests)[0]!;
    const bad = await gw.request('tools/call', call('ask', args, ALL, { inputResponses: { [key]: { action: 'maybe' } }, requestState: r.requestState }));
    expect(bad.error?.code).toBe(-32602);
    const notObject = await gw.request('tools/call', call('ask', args, ALL, { inputResponses: 'yes', requestState: r.requestState }));
    expect(notObject.error?.code).toBe(-32602);
    const done = await gw.request('tools/call', call('ask', args, ALL, { inputResponses: { [key]: elicit('grey') }, requestState: r.requestState }));
    expect(JSON.parse(done.result.content[0].text)).toEqual(elicit('grey'));
  });

  // cites basic.patterns.mrtr#13: mcpwire serve is the server here: it never puts a request to a client that did not declare it
  // cites basic.patterns.mrtr#14: mcpwire serve is the server here: no elicitation/create for a client without elicitation
  it('basic.patterns.mrtr#13 / #14: a modern client that did not declare elicitation gets no elicitation input request: the downstream request is refused', async () => {
    // its own gateway: on the shared one the redaction test's call is still held beside it
    const { config } = setup();
    const gw = spawnLinePeer([cli, 'serve', '--config', config], { env: { MCPWIRE_TRACE: '' } });
    onTestFinished(() => gw.close().catch(() => {}));
    learn((await gw.request('tools/list', { _meta: meta({}, ALL) })).result.tools);
    const r = (await gw.request('tools/call', call('ask', { method: 'elicitation/create', params: COLOUR }, { roots: {} }))).result;
    expect(r.resultType).toBe('complete');
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain('-32601');
  });
});

describe('mcpwire serve: input rounds over stateless HTTP, bounded in time', { timeout: 90_000 }, () => {
  async function overHttp(ttlMs = 60_000): Promise<{ gw: HttpGateway; record: string; post: (params: Msg) => Promise<Msg> }> {
    const { config, record } = setup();
    const gw = await serveHttp(await loadConfig({ globalPath: config }), { log: () => {}, inputRounds: { ttlMs } });
    gateways.push(gw);
    let id = 1;
    const send = async (method: string, params: Msg) => {
      const a = await postModern(gw.url, { jsonrpc: '2.0', id: id++, method, params });
      expect(a.response, a.text).toBeDefined();
      return a.response!;
    };
    learn((await send('tools/list', { _meta: meta({}, ALL) })).result.tools);
    const post = (params: Msg) => send('tools/call', params);
    return { gw, record, post };
  }

  it('basic.patterns.mrtr#20: each POST is its own request: the input_required answer and the retry that completes the call', async () => {
    const { gw, post, record } = await overHttp();
    const args = { method: 'elicitation/create', params: COLOUR };
    const first = await post(call('ask', args));
    expect(first.result.resultType).toBe('input_required');
    const key = Object.keys(first.result.inputRequests)[0]!;
    expect(gw.gateway.inputRounds.size).toBe(1);
    const done = await post(call('ask', args, ALL, { inputResponses: { [key]: elicit('amber') }, requestState: first.result.requestState }));
    expect(done.result.resultType).toBe('complete');
    expect(JSON.parse(done.result.content[0].text)).toEqual(elicit('amber'));
    expect(gw.gateway.inputRounds.size).toBe(0);
    expect(jsonLines(record).find((m) => m.result?.action === 'accept')?.result).toEqual(elicit('amber'));
  });

  // cites basic.patterns.mrtr#15: mcpwire serve is the server here: it does not wait forever for a retry
  it('basic.patterns.mrtr#15: a client that never retries: after the TTL no held call is left, the downstream call is cancelled, and the late state is refused', async () => {
    const { gw, post, record } = await overHttp(300);
    const args = { method: 'elicitation/create', params: COLOUR };
    const first = await post(call('ask', args));
    expect(first.result.resultType).toBe('input_required');
    expect(gw.gateway.inputRounds.size).toBe(1);
    await expect.poll(() => gw.gateway.inputRounds.size, { timeout: 10_000 }).toBe(0);
    // The downstream server heard its tool call cancelled.
    const call0 = jsonLines(record).find((m) => m.method === 'tools/call');
    await expect.poll(() => jsonLines(record).some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === call0?.id), { timeout: 10_000 }).toBe(true);
    const key = Object.keys(first.result.inputRequests)[0]!;
    const late = await post(call('ask', args, ALL, { inputResponses: { [key]: elicit('late') }, requestState: first.result.requestState }));
    expect(late.error?.code).toBe(-32602);
  });

  it('a call that needs no input is answered at once and holds nothing', async () => {
    const { gw, post } = await overHttp();
    const r = await post(call('echo', { text: 'plain' }));
    expect(r.result.resultType).toBe('complete');
    expect(r.result.content[0].text).toBe('plain');
    expect(gw.gateway.inputRounds.size).toBe(0);
  });
});

describe("mcpwire's own client through the gateway, 2026-07-28 on both legs of the client", { timeout: 90_000 }, () => {
  it('basic.patterns.mrtr#16 / #17: McpClient answers the input rounds with its handlers (elicitation, sampling, roots) and gets the tool result', async () => {
    const { config, record } = setup();
    const asked: string[] = [];
    const c = await connect(
      { id: 'gateway', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', config], env: { MCPWIRE_TRACE: '' } },
      {
        protocolVersion: '2026-07-28',
        timeoutMs: 30_000,
        onElicitation: async (p) => {
          asked.push(`elicit:${p.message}`);
          return { action: 'accept', content: { colour: 'violet' } };
        },
        onSampling: async () => {
          asked.push('sample');
          return sampled as never;
        },
        roots: () => {
          asked.push('roots');
          return [{ uri: 'file:///home/me', name: 'home' }];
        },
      },
    );
    clients.push(c);
    expect(c.era).toBe('modern');
    learn(await c.listTools());
    const r = await c.callTool(names.get('askMany')!, { parallel: [{ method: 'elicitation/create', params: COLOUR }, { method: 'roots/list' }], then: [{ method: 'sampling/createMessage', params: SAMPLE }] });
    expect(r.isError).not.toBe(true);
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual([
      { result: { action: 'accept', content: { colour: 'violet' } } },
      { result: { roots: [{ uri: 'file:///home/me', name: 'home' }] } },
      { result: sampled },
    ]);
    expect(asked.sort()).toEqual(['elicit:Your colour?', 'roots', 'sample']);
    expect(jsonLines(record).filter((m) => m.result?.action === 'accept')).toHaveLength(1);
  });

  it('basic.patterns.mrtr#16: behind the gateway a 2026-07-28 server asks through its own input_required; the gateway relays it as its own round and McpClient answers it', async () => {
    const config = path.join(dir, 'config-modern.json');
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { modern: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/modern/stdio-server.mjs')] } } } }));
    const messages: string[] = [];
    const c = await connect(
      { id: 'gateway', transport: 'stdio', command: process.execPath, args: [cli, 'serve', '--config', config], env: { MCPWIRE_TRACE: '' } },
      {
        protocolVersion: '2026-07-28',
        timeoutMs: 30_000,
        onElicitation: async (p) => {
          messages.push(p.message);
          return { action: 'accept', content: { ok: true } };
        },
      },
    );
    clients.push(c);
    const confirm = (await c.listTools()).find((t) => /^mcp_modern_confirm_/.test(t.name))!.name;
    const r = await c.callTool(confirm, { message: 'Ship it?' });
    expect(r.isError).not.toBe(true);
    expect((r.content[0] as { text: string }).text).toMatch(/^accept: \{"ok":true\} after \d+ round/);
    expect(messages).toEqual(['Ship it?']);
    // prompts/get and resources/read of a client that could be asked are served in rounds too; these need none.
    const prompt = (await c.listPrompts()).find((p) => /^mcp_modern_greet/.test(p.name))!.name;
    expect(JSON.stringify(await c.getPrompt(prompt, { name: 'Ada' }))).toContain('Ada');
    expect(JSON.stringify(await c.readResource('mem://readme'))).toContain('Hello from the modern mock.');
  });
});
