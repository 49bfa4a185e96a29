/**
 * `trace html`'s lanes for sessionless 2026-07-28 clients, on traces the real HTTP tap wrote:
 * two clients (each on its own keep-alive connection) call the echo tool through one tap, their
 * calls overlapping and using the same ids. No session tells them apart; the tap numbers the
 * client connections and names each exchange's on its `http` line (`connection`), and
 * `peerLanes` gives each connection open at the same time its own lane (`server #n`) with every
 * line of its exchanges, requests paired with their answers within it; connections one after
 * the other share a lane. One client alone keeps one plain lane, even without keep-alive.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { DEFAULT_MODERN_SCENARIO } from '../../mock-servers/modern/lib/engine.mjs';
import { startHttpTap } from '../../src/tap/index.js';
import { answerMarks, peerLanes } from '../../src/trace/html.js';
import { parseTrace, renderHtml, type TraceRecord } from '../../src/trace-api.js';
import { echoClient } from '../support/echo-client.js';
import { waitFor } from '../support/raw-http.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-trace-lanes-conn-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>;
const DELAY_MS = 300;
const textOf = (m: Rec | undefined): string | undefined => m?.params?.arguments?.text ?? m?.result?.content?.[0]?.text;

/** Rounds of calls through one tap; in each round every client calls at once (id = round). */
async function record(file: string, clients: number, rounds: string[][], keepAlive = true): Promise<TraceRecord[]> {
  const mock = await startModernHttpMock({ scenario: { ...DEFAULT_MODERN_SCENARIO, tools: [{ name: 'echo', behavior: { delayMs: DELAY_MS } }] }, stream: 'json', stderr: () => {} });
  const tap = await startHttpTap({ listen: '127.0.0.1:0', upstream: mock.url, trace: file, name: 'modern' });
  const peers = Array.from({ length: clients }, () => echoClient({ keepAlive }));
  try {
    for (const [i, texts] of rounds.entries()) {
      const calls: Promise<string>[] = [];
      for (const [c, text] of texts.entries()) {
        const before = mock.record.requests.length;
        calls.push(peers[c].echo(tap.url, text, i + 1));
        // The next client's request passes the tap while this one waits for its answer.
        await waitFor(() => mock.record.requests.length > before, 'the request to reach the server');
      }
      expect(await Promise.all(calls)).toEqual(texts);
    }
  } finally {
    for (const p of peers) p.close();
    await tap.close();
    await mock.close();
  }
  return parseTrace(fs.readFileSync(file, 'utf8')).records;
}

describe('trace html lanes of sessionless clients through one HTTP tap', () => {
  it('two clients, overlapping calls with the same ids: one lane per client connection, each request paired in its lane', async () => {
    const records = await record(path.join(dir, 'two.jsonl'), 2, [
      ['alpha-1', 'bravo-1'],
      ['alpha-2', 'bravo-2'],
    ]);
    const msgs = records.filter((r) => (r as Rec).dir !== undefined) as Rec[];
    // What makes it hard: one server, no session, the two clients' ids alike and interleaved.
    expect(msgs.every((m) => m.session === undefined && m.server === 'modern')).toBe(true);
    const round = (ms: Rec[]) => [...ms.slice(0, 2).map((m) => `${m.dir} ${m.id} ${textOf(m.msg)}`), ...ms.slice(2).map((m) => `${m.dir} ${m.id} ${textOf(m.msg)}`).sort()];
    expect([...round(msgs.slice(0, 4)), ...round(msgs.slice(4))]).toEqual([
      'out 1 alpha-1', 'out 1 bravo-1', 'in 1 alpha-1', 'in 1 bravo-1',
      'out 2 alpha-2', 'out 2 bravo-2', 'in 2 alpha-2', 'in 2 bravo-2',
    ]);
    const http = records.filter((r) => (r as Rec).event === 'transport' && (r as Rec).type === 'http') as Rec[];
    expect(new Set(http.map((h) => h.connection)).size).toBe(2);

    const laned = peerLanes(records);
    const laneOf = (text: string) => laned.find((r) => (r as Rec).dir === 'out' && textOf((r as Rec).msg) === text)!.server;
    expect(new Set(laned.map((r) => r.server))).toEqual(new Set(['modern #1', 'modern #2']));
    expect([laneOf('alpha-1'), laneOf('bravo-1')]).toEqual(['modern #1', 'modern #2']);
    // Every line of a client's exchanges (request, http line, answer) is in that client's lane.
    for (const r of laned as Rec[]) {
      const text = textOf(r.msg);
      if (text !== undefined) expect(r.server, `${r.dir} ${text}`).toBe(text.startsWith('alpha') ? 'modern #1' : 'modern #2');
    }
    for (const h of laned.filter((r) => (r as Rec).type === 'http') as Rec[]) {
      const request = laned.find((r) => (r as Rec).dir === 'out' && (r as Rec).exchange === h.exchange)!;
      expect(h.server).toBe(request.server);
    }
    // Each answer is paired with its own request within its lane (latency and method known).
    const marks = answerMarks(laned);
    laned.forEach((r, i) => {
      if ((r as Rec).dir === 'in') expect(marks[i], textOf((r as Rec).msg)).toMatchObject({ method: 'tools/call' });
    });
    // The page draws the two lanes.
    const html = renderHtml(records, { title: 'two.jsonl' });
    expect(html).toContain('"server":"modern #1"');
    expect(html).toContain('"server":"modern #2"');
  }, 30_000);

  it('one client alone: one lane, named as the server', async () => {
    const records = await record(path.join(dir, 'one.jsonl'), 1, [['alpha-1'], ['alpha-2']]);
    expect(new Set(peerLanes(records).map((r) => r.server))).toEqual(new Set(['modern']));
  }, 30_000);

  it('one client without keep-alive (a connection per call): its connections follow one another in one lane', async () => {
    const records = await record(path.join(dir, 'no-keep-alive.jsonl'), 1, [['alpha-1'], ['alpha-2'], ['alpha-3']], false);
    const http = records.filter((r) => (r as Rec).type === 'http') as Rec[];
    expect(new Set(http.map((h) => h.connection)).size).toBe(3);
    expect(new Set(peerLanes(records).map((r) => r.server))).toEqual(new Set(['modern']));
  }, 30_000);

  it('two clients without keep-alive, calls overlapping: two lanes, never two connections interleaved in one', async () => {
    const records = await record(path.join(dir, 'two-no-keep-alive.jsonl'), 2, [['alpha-1', 'bravo-1'], ['alpha-2', 'bravo-2']], false);
    const laned = peerLanes(records) as Rec[];
    expect(new Set(laned.map((r) => r.server))).toEqual(new Set(['modern #1', 'modern #2']));
    // Within a lane, each exchange's lines come one exchange after another.
    for (const lane of ['modern #1', 'modern #2']) {
      const exchanges = laned.filter((r) => r.server === lane && r.exchange !== undefined).map((r) => r.exchange as number);
      const runs = exchanges.filter((e, i) => i === 0 || e !== exchanges[i - 1]);
      expect(new Set(runs).size, `${lane}: ${exchanges.join(' ')}`).toBe(runs.length);
    }
  }, 30_000);

  it('two handshake-era hosts both send initialize #0 before either session exists: each request joins the lane of its own exchange\'s session', () => {
    let t = 0;
    const line = (exchange: number, session: string | undefined, r: Rec): TraceRecord =>
      ({ v: 1, t: ++t, ts: '2025-11-25T10:00:00.000Z', server: 'proxy', transport: 'http-tap', tap: '0a0b0c0d', ...(session ? { session } : {}), exchange, bytes: 1, ...r }) as unknown as TraceRecord;
    const init = (exchange: number, session?: string) => line(exchange, session, { dir: session ? 'in' : 'out', kind: session ? 'result' : 'request', id: 0, method: 'initialize', msg: { jsonrpc: '2.0', id: 0 } });
    const [a, b] = ['sha256:aaaa0001', 'sha256:bbbb0002'];
    // b's answer comes first: the next session after both requests is b's.
    const laned = peerLanes([init(1), init(2), init(2, b), init(1, a)]);
    expect(laned.map((r) => r.server)).toEqual(['proxy #1', 'proxy #2', 'proxy #2', 'proxy #1']);
  });
});
