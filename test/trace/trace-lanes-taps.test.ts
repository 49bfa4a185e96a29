/**
 * Two HTTP taps appending to one trace file (the trace writer shares a file), each relaying a
 * sessionless 2026-07-28 client to its own instance of the same server (both traced as server
 * `modern`): each tap numbers its exchanges from 1, so both requests are exchange 1, id 1, with
 * no session. The second tap's server answers first. Every line of a tap carries its `tap` tag,
 * and the readers key exchanges by tap and number: `pairExchanges` (show, stats, html, diff),
 * the live renderer and the replay script each pair an answer with its own tap's request, and
 * `trace html` draws each tap's client in its own lane.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { DEFAULT_MODERN_SCENARIO } from '../../mock-servers/modern/lib/engine.mjs';
import { buildScript, createShowRenderer, startHttpTap } from '../../src/tap/index.js';
import { peerLanes } from '../../src/trace/html.js';
import { pairExchanges, parseTrace, renderShow, type TraceRecord } from '../../src/trace-api.js';
import { echoClient } from '../support/echo-client.js';
import { waitFor } from '../support/raw-http.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-trace-lanes-taps-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>;
/** Long enough that the second tap's whole exchange happens while the first waits. */
const DELAY_MS = 1500;
const textOf = (m: Rec | undefined): string | undefined => m?.params?.arguments?.text ?? m?.result?.content?.[0]?.text;

describe('two HTTP taps sharing one trace file', () => {
  it('exchange numbers are told apart by tap: every reader pairs each answer with its own request', async () => {
    const file = path.join(dir, 'two-taps.jsonl');
    const slow = await startModernHttpMock({ scenario: { ...DEFAULT_MODERN_SCENARIO, tools: [{ name: 'echo', behavior: { delayMs: DELAY_MS } }] }, stream: 'json', stderr: () => {} });
    const fast = await startModernHttpMock({ scenario: DEFAULT_MODERN_SCENARIO, stream: 'json', stderr: () => {} });
    const tapA = await startHttpTap({ listen: '127.0.0.1:0', upstream: slow.url, trace: file, name: 'modern' });
    const tapB = await startHttpTap({ listen: '127.0.0.1:0', upstream: fast.url, trace: file, name: 'modern' });
    const [a, b] = [echoClient(), echoClient()];
    try {
      const first = a.echo(tapA.url, 'alpha');
      await waitFor(() => slow.record.requests.length === 1, 'the first request to reach its server');
      expect(await b.echo(tapB.url, 'bravo')).toBe('bravo');
      expect(await first).toBe('alpha');
    } finally {
      a.close();
      b.close();
      await tapA.close();
      await tapB.close();
      await slow.close();
      await fast.close();
    }
    const records = parseTrace(fs.readFileSync(file, 'utf8')).records;
    const msgs = records.filter((r) => (r as Rec).dir !== undefined) as Rec[];
    // What makes it hard: same server, no session, same id, same exchange number, and the
    // second tap's answer comes first.
    expect(msgs.map((m) => [m.dir, m.kind, m.id, m.exchange, m.session, textOf(m.msg)])).toEqual([
      ['out', 'request', 1, 1, undefined, 'alpha'],
      ['out', 'request', 1, 1, undefined, 'bravo'],
      ['in', 'result', 1, 1, undefined, 'bravo'],
      ['in', 'result', 1, 1, undefined, 'alpha'],
    ]);
    // Every line of a tap, from trace-start to trace-end, carries its tag; two taps, two tags.
    const tags = new Set(records.map((r) => (r as Rec).tap));
    expect(tags.size).toBe(2);
    expect([...tags].every((t) => typeof t === 'string' && /^[0-9a-f]{8}$/.test(t))).toBe(true);
    expect(msgs[0].tap).not.toBe(msgs[1].tap);

    const { exchanges } = pairExchanges(records);
    expect(exchanges.map((e) => [textOf(e.request.msg as Rec), textOf(e.response?.msg as Rec | undefined)])).toEqual([
      ['alpha', 'alpha'],
      ['bravo', 'bravo'],
    ]);
    // The live renderer (trace show --follow): bravo's answer is quick, alpha's waits for the delay.
    const render = createShowRenderer();
    const lines = records.map((r) => ({ r: r as Rec, line: render(r) })).filter((x) => x.r.dir === 'in');
    const shown = (text: string) => Number(/([\d.]+) ms/.exec(lines.find((x) => textOf(x.r.msg) === text)!.line)?.[1]);
    expect(shown('alpha')).toBeGreaterThanOrEqual(DELAY_MS - 50);
    expect(shown('bravo')).toBeLessThan(DELAY_MS - 50);
    // trace html: both taps' first connection is number 1; the tags keep them in two lanes.
    const laned = peerLanes(records) as Rec[];
    const lane = (text: string, dir: string) => laned.find((r) => r.dir === dir && textOf(r.msg) === text)!.server;
    expect([lane('alpha', 'out'), lane('alpha', 'in'), lane('bravo', 'out'), lane('bravo', 'in')]).toEqual(['modern #1', 'modern #1', 'modern #2', 'modern #2']);
    // trace show: the tag is a binding of every line, like server and transport, not news of an event.
    const shownText = renderShow(records);
    expect(shownText).toContain('trace-start');
    expect(shownText).not.toContain('tap=');
    // A replay script answers each recorded text with its own echo.
    const script = buildScript(records);
    expect(script.exchanges.map((e) => [textOf({ params: e.params } as Rec), textOf(e.response as Rec)])).toEqual([
      ['alpha', 'alpha'],
      ['bravo', 'bravo'],
    ]);
  }, 30_000);
});
