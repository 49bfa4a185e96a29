/**
 * `mcpwire serve --http --store redis://…` as replicas: three gateway processes behind HAProxy
 * (round-robin, no sticky sessions) sharing one `redis-server`, all on loopback. An official SDK
 * client (2025-11-25, sessions) and mcpwire's client pinned to 2026-07-28 list and call through
 * them — consecutive requests land on different replicas; a replica killed mid-call and
 * mid-stream: the SDK client resumes with `Last-Event-ID` on another replica and gets its
 * response (the call run again there when it is read-only, else an error saying to send it
 * again); a stream resumed on another replica while its owner lives is relayed live. A 2026-07-28
 * client's `input_required` retry that lands on another replica is forwarded to the one holding
 * the downstream call and completes; with that replica killed, the retry gets at once an error
 * saying to call again. Nothing hangs: every wait is bounded.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { meta, postModern, type Msg } from '../support/modern-wire.js';
import { clusterForFile, hasHaproxy, hasRedis, kill, named, sdkTransport, startCluster, type Cluster } from '../support/replicas.js';
import { until } from '../support/until.js';

const SCENARIO = { tools: ['echo', 'slow', 'concurrent', 'progress'] };
const missing = !hasRedis || !hasHaproxy;

let cluster: Cluster;

/** The replica whose downstream mock received the tools/call carrying `marker` (the one running it). */
async function runningOn(marker: string): Promise<number> {
  return until(`a replica running the call ${marker}`, () => {
    const r = cluster.replicas.find((x) => cluster.calls(x).some((m) => JSON.stringify(m.params).includes(marker)));
    return r?.index;
  }, 30_000, 50);
}

// The two describes below have a cluster each (their own Redis, replicas and HAProxy): they run at
// once, the one's waits (a call of 3 s, a replica killed and started again) overlapping the
// other's start and rounds. Inside each the tests stay one after another: they share the cluster,
// its replicas killed and started again.
describe.skipIf(missing)('serve --http replicas behind HAProxy with Redis (redis-server and haproxy: installed by .ci/run)', { timeout: 120_000, concurrent: true }, () => {
  const started = clusterForFile(3, SCENARIO, missing);
  beforeAll(() => {
    if (!missing) cluster = started();
  });

  it.sequential('basic.transports#39 (a session on any replica): an SDK client initializes, lists and calls through round-robin; every replica served it', async ({ expect }) => {
    const client = new Client({ name: 'sdk-replicas', version: '1.0.0' });
    await client.connect(sdkTransport(cluster.url));
    try {
      const { tools } = await client.listTools();
      const echo = named(tools, 'echo');
      expect(echo, JSON.stringify(tools.map((t) => t.name))).toBeDefined();
      for (let i = 0; i < 6; i++) {
        expect(await client.callTool({ name: echo!, arguments: { text: `hello ${i}` } })).toMatchObject({ content: [{ type: 'text', text: `hello ${i}` }] });
      }
      // Six calls round-robin over three replicas (plus the lists): each replica's downstream saw some.
      for (const r of cluster.replicas) expect(cluster.calls(r).some((m) => /hello \d/.test(JSON.stringify(m.params))), `replica ${r.index}`).toBe(true);
    } finally {
      await client.close();
    }
  });

  it.sequential('a 2026-07-28 client (no sessions) lists and calls through the replicas', async ({ expect }) => {
    const c = await connect({ id: 'gateway', transport: 'http', url: cluster.url }, { protocolVersion: '2026-07-28', timeoutMs: 30_000 });
    try {
      const tools = await c.listTools();
      const echo = named(tools, 'echo');
      for (let i = 0; i < 3; i++) expect(JSON.stringify((await c.callTool(echo!, { text: `modern ${i}` })).content)).toContain(`modern ${i}`);
    } finally {
      await c.close();
    }
  });

  // cites basic.transports#36: mcpwire serve is the server here: its event ids name the stream, so another replica finds it
  it.sequential('basic.transports#36 (resume on another replica): a stream resumed elsewhere while its owner lives is replayed, then relayed live until the response', async ({ expect }) => {
    const [a, b] = cluster.replicas as [Cluster['replicas'][0], Cluster['replicas'][0]];
    const direct = (r: { port: number }) => `http://127.0.0.1:${r.port}/mcp`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(direct(a), { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }) });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const h = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    await fetch(direct(b), { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((r) => r.text());
    const list = await (await fetch(direct(b), { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) })).text();
    const progressName = /"(mcp_alpha_progress[^"]*)"/.exec(list)![1]!;
    // The call on replica a; the client reads its first events and drops the connection.
    const ac = new AbortController();
    const post = await fetch(direct(a), { method: 'POST', headers: h, signal: ac.signal, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: progressName, arguments: { steps: 6, intervalMs: 250 }, _meta: { progressToken: 'p1' } } }) });
    const reader = post.body!.getReader();
    let seen = '';
    while (!/"progress":2/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    const ids = [...seen.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
    const lastId = ids.at(-1)!;
    // Resumed on replica b: what came after that id, then the rest live, then the response.
    const resumed = await fetch(direct(b), { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastId } });
    expect(resumed.status).toBe(200);
    const text = await resumed.text();
    const events = [...text.matchAll(/^data: (\{.*\})$/gm)].map((m) => JSON.parse(m[1]!));
    const progress = events.filter((e) => e.method === 'notifications/progress').map((e) => e.params.progress);
    expect(progress[0]).toBeGreaterThan(2 - 1);
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    expect(progress.at(-1)).toBe(6);
    expect(events.at(-1)).toMatchObject({ id: 3, result: { content: [{ text: 'done 6 steps' }] } });
  });

  it.sequential('a replica killed mid-call: the SDK client resumes with Last-Event-ID on another replica, which runs the read-only call again and answers', async ({ expect }) => {
    const client = new Client({ name: 'sdk-kill-ro', version: '1.0.0' });
    await client.connect(sdkTransport(cluster.url));
    try {
      const { tools } = await client.listTools();
      const marker = `ro-${Date.now()}`;
      // `concurrent` is read-only (its server's annotations are trusted): safe to run again.
      const call = client.callTool({ name: named(tools, 'concurrent')!, arguments: { ms: 3000, marker } }, undefined, { timeout: 90_000 });
      const victim = await runningOn(marker);
      await kill(cluster.replicas[victim]!.child);
      const result = await call;
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.content)).toContain('done (max in flight');
      // Run again on a replica that lives.
      const again = cluster.replicas.filter((r) => r.index !== victim).some((r) => cluster.calls(r).some((m) => JSON.stringify(m.params).includes(marker)));
      expect(again).toBe(true);
      await cluster.startReplica(victim);
    } finally {
      await client.close();
    }
  });

  it.sequential('a replica killed mid-stream of a call that may have side effects: the resumed stream gets an error telling to send it again, never a hang', async ({ expect }) => {
    const client = new Client({ name: 'sdk-kill-rw', version: '1.0.0' });
    await client.connect(sdkTransport(cluster.url));
    try {
      const { tools } = await client.listTools();
      const seen: number[] = [];
      const call = client.callTool({ name: named(tools, 'progress')!, arguments: { steps: 40, intervalMs: 250 } }, undefined, { timeout: 90_000, onprogress: (p) => seen.push(p.progress) });
      await until('some progress', () => seen.length >= 2, 30_000);
      const victim = await runningOn('"steps":40');
      await kill(cluster.replicas[victim]!.child);
      await expect(call).rejects.toThrow(/went away before it answered.*send the request again/);
      await cluster.startReplica(victim);
    } finally {
      await client.close();
    }
  });
});

const ELICIT = { elicitation: {} };
const COLOUR = { method: 'elicitation/create', params: { message: 'Your colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } } };

describe.skipIf(missing)('serve --http replicas: a 2026-07-28 client\'s input rounds across replicas', { timeout: 120_000, concurrent: true }, () => {
  let held: Cluster;
  let ask = '';
  const direct = (i: number) => `http://127.0.0.1:${held.replicas[i]!.port}/mcp`;
  let id = 1;
  // a plain assertion that throws: the global expect serves (no snapshot, no assertion count)
  const send = async (url: string, params: Msg): Promise<Msg> => {
    const a = await postModern(url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params });
    expect(a.response, a.text).toBeDefined();
    return a.response!;
  };
  const callAsk = (more: Msg = {}) => ({ name: ask, arguments: COLOUR, _meta: meta({}, ELICIT), ...more });

  beforeAll(async () => {
    held = await startCluster(3, { tools: ['ask', 'echo'] });
    // Each replica's host starts with its first request: one that declares elicitation, so the
    // downstream server may ask for it.
    for (let i = 0; i < 3; i++) {
      const a = await postModern(direct(i), { jsonrpc: '2.0', id: id++, method: 'tools/list', params: { _meta: meta({}, ELICIT) } });
      ask = (a.response!.result.tools as { name: string }[]).find((t) => t.name.startsWith('mcp_alpha_ask'))!.name;
    }
  }, 90_000);
  afterAll(async () => {
    await held?.close();
  });

  it.sequential('a multi round-trip call across replicas: input_required from one replica, the retry on another is forwarded to the holder and completes', async ({ expect }) => {
    const first = await send(direct(0), callAsk());
    expect(first.result.resultType).toBe('input_required');
    const key = Object.keys(first.result.inputRequests)[0]!;
    const done = await send(direct(1), callAsk({ inputResponses: { [key]: { action: 'accept', content: { colour: 'teal' } } }, requestState: first.result.requestState }));
    expect(done.result.resultType).toBe('complete');
    expect(JSON.parse(done.result.content[0].text)).toEqual({ action: 'accept', content: { colour: 'teal' } });
    // The downstream call ran on replica 0 only.
    expect(held.calls(held.replicas[0]!).length).toBe(1);
    expect(held.calls(held.replicas[1]!).length).toBe(0);
  });

  it.sequential("mcpwire's client pinned to 2026-07-28 answers the input round through HAProxy (round-robin: the retry lands on another replica)", async ({ expect }) => {
    const c = await connect({ id: 'gateway', transport: 'http', url: held.url }, { protocolVersion: '2026-07-28', timeoutMs: 30_000, onElicitation: async () => ({ action: 'accept', content: { colour: 'plum' } }) });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await c.callTool(ask, COLOUR);
        expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
        expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({ action: 'accept', content: { colour: 'plum' } });
      }
    } finally {
      await c.close();
    }
  });

  it.sequential('client.elicitation (2025-11-25 session): the SDK client\'s answer to a downstream elicitation reaches the replica running the call wherever the balancer sends it', async ({ expect }) => {
    const client = new Client({ name: 'sdk-elicit', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { colour: `c${asked}` } };
    });
    await client.connect(sdkTransport(held.url));
    try {
      for (let i = 1; i <= 3; i++) {
        const r = await client.callTool({ name: ask, arguments: COLOUR }, undefined, { timeout: 30_000 });
        expect(JSON.parse((r.content as { text: string }[])[0]!.text), JSON.stringify(r)).toEqual({ action: 'accept', content: { colour: `c${i}` } });
      }
    } finally {
      await client.close();
    }
  });

  it.sequential('the replica holding the call is killed: the retry on another replica gets the call-again error at once', async ({ expect }) => {
    const first = await send(direct(2), callAsk());
    expect(first.result.resultType).toBe('input_required');
    const key = Object.keys(first.result.inputRequests)[0]!;
    await kill(held.replicas[2]!.child);
    const again = await send(direct(0), callAsk({ inputResponses: { [key]: { action: 'accept', content: { colour: 'grey' } } }, requestState: first.result.requestState }));
    expect(again.error?.code).toBe(-32602);
    expect(again.error?.message).toMatch(/send the request again without requestState/);
  });
});
