/**
 * Two clients of the sessionless 2026-07-28 era through one HTTP tap (raw HTTP clients, the
 * modern mock over 127.0.0.1): both send `tools/call` #1 to the echo tool at the same moment,
 * with different text. No session id tells them apart; the tap numbers each HTTP exchange and
 * every line of it carries the number (`exchange`), and the readers pair each answer with the
 * request of its own exchange: `trace show` (both answered), `trace stats` (none unanswered),
 * `trace html` (each answer's latency is its own request's), `trace diff` against the same calls
 * made one after the other (no difference) and `replay` (each text gets its own echo back).
 * Pairing by session and id alone gives one request the other's answer, or none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { DEFAULT_MODERN_SCENARIO } from '../../mock-servers/modern/lib/engine.mjs';
import { buildScript, diffTraces, serveReplayHttp, startHttpTap } from '../../src/tap/index.js';
import { answerMarks } from '../../src/trace/html.js';
import { computeStats, parseTrace, pairExchanges, renderShow, type TraceRecord } from '../../src/trace-api.js';
import { waitFor } from '../support/raw-http.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-tap-exchanges-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>;
const VERSION = '2026-07-28';
/** Long enough that the second client's request passes the tap before the first answer comes back. */
const DELAY_MS = 2000;

/** `tools/call` #1 of the echo tool, as a 2026-07-28 client sends it (headers and `_meta`). */
async function echo(url: string, text: string): Promise<Rec> {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text }, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    body: JSON.stringify(body),
  });
  const raw = await res.text();
  // A JSON body, or the last `data:` of an SSE stream (the final response).
  if (!String(res.headers.get('content-type')).includes('text/event-stream')) return JSON.parse(raw) as Rec;
  const data = raw.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean);
  return JSON.parse(data[data.length - 1]) as Rec;
}

const echoed = (m: Rec): string => m.result?.content?.[0]?.text;

/** Records `calls` through a tap to a modern mock; `together`: the second starts while the first waits for its answer. */
async function record(file: string, texts: string[], together: boolean): Promise<{ answers: string[]; records: TraceRecord[] }> {
  const scenario = together ? { ...DEFAULT_MODERN_SCENARIO, tools: [{ name: 'echo', behavior: { delayMs: DELAY_MS } }] } : DEFAULT_MODERN_SCENARIO;
  const mock = await startModernHttpMock({ scenario, stream: together ? 'sse' : 'json', stderr: () => {} });
  const tap = await startHttpTap({ listen: '127.0.0.1:0', upstream: mock.url, trace: file, name: 'modern' });
  const answers: string[] = [];
  try {
    if (together) {
      const first = echo(tap.url, texts[0]);
      await waitFor(() => mock.record.requests.length === 1, 'the first request to reach the server');
      const second = echo(tap.url, texts[1]);
      answers.push(...(await Promise.all([first, second])).map(echoed));
    } else {
      for (const t of texts) answers.push(echoed(await echo(tap.url, t)));
    }
  } finally {
    await tap.close();
    await mock.close();
  }
  return { answers, records: parseTrace(fs.readFileSync(file, 'utf8')).records };
}

const messages = (records: TraceRecord[]) => records.filter((r) => (r as Rec).dir !== undefined) as Rec[];

describe('two 2026-07-28 clients through one HTTP tap, same request id at once', () => {
  it('every line of an HTTP exchange carries its number; show, stats, html, diff and replay pair each answer with its own request', async () => {
    const together = await record(path.join(dir, 'together.jsonl'), ['alpha', 'bravo'], true);
    expect(together.answers).toEqual(['alpha', 'bravo']);
    const msgs = messages(together.records);
    // What makes it hard: both requests (id 1, no session) passed before either answer.
    expect(msgs.map((m) => `${m.dir} ${m.kind} ${m.id}`)).toEqual(['out request 1', 'out request 1', 'in result 1', 'in result 1']);
    expect(msgs.every((m) => m.session === undefined)).toBe(true);
    const [qa, qb] = msgs;
    expect(typeof qa.exchange).toBe('number');
    expect(qb.exchange).not.toBe(qa.exchange);
    // Each answer, its http line and its request share the exchange number.
    for (const answer of msgs.slice(2)) {
      const request = echoed(answer.msg) === 'alpha' ? qa : qb;
      expect(answer.exchange).toBe(request.exchange);
      expect(request.msg.params.arguments.text).toBe(echoed(answer.msg));
    }
    const http = together.records.filter((r) => (r as Rec).event === 'transport' && (r as Rec).type === 'http') as Rec[];
    expect(http.map((h) => h.exchange).sort()).toEqual([qa.exchange, qb.exchange].sort());

    // The readers' pairing: each request answered by the echo of its own text.
    const { exchanges } = pairExchanges(together.records);
    expect(exchanges.map((e) => [e.request.msg, e.response?.msg].map((m) => (m as Rec | undefined)?.params?.arguments?.text ?? echoed(m as Rec)))).toEqual([
      ['alpha', 'alpha'],
      ['bravo', 'bravo'],
    ]);
    expect(renderShow(together.records)).not.toContain('(no response)');
    expect(renderShow(together.records).match(/answered in/g)).toHaveLength(2);
    expect(computeStats(together.records).methods.find((m) => m.method === 'tools/call')).toMatchObject({ count: 2, unanswered: 0, errors: 0 });
    const marks = answerMarks(together.records);
    for (const ex of exchanges) expect(marks[together.records.indexOf(ex.response!)]).toEqual({ latency: ex.response!.latency_ms, method: 'tools/call' });
    // The tap's own pairing: each answer's latency covers the server's delay after its own request.
    for (const answer of msgs.slice(2)) expect(answer.latency_ms).toBeGreaterThanOrEqual(DELAY_MS - 50);

    // The same calls one after the other: no protocol-level difference.
    const apart = await record(path.join(dir, 'apart.jsonl'), ['alpha', 'bravo'], false);
    expect(apart.answers).toEqual(['alpha', 'bravo']);
    const d = diffTraces(together.records, apart.records);
    expect(d.firstDivergence).toBeUndefined();
    expect(d.same).toBe(true);

    // A replay of the recording gives each text its own echo.
    const replay = await serveReplayHttp(buildScript(together.records), { listen: '127.0.0.1:0', mode: 'loose' });
    try {
      expect(echoed(await echo(replay.url, 'bravo'))).toBe('bravo');
      expect(echoed(await echo(replay.url, 'alpha'))).toBe('alpha');
      expect(replay.summary().mismatches).toEqual([]);
    } finally {
      await replay.close();
    }
  }, 60_000);
});
