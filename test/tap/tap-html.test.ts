/**
 * `trace html` of a tap trace with several peers, in headless Chromium: two sessions of one
 * server (an HTTP tap relaying two hosts) and a second server get a lane each, every request
 * is drawn paired with its own answer (both sessions use the same JSON-RPC ids), no page errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/index.js';
import { renderHtml } from '../../src/trace-api.js';
import { launchHeadless, type HeadlessContext } from '../support/chromium.js';

interface Page {
  on(event: 'pageerror', cb: (e: Error) => void): void;
  goto(url: string): Promise<unknown>;
  evaluate<T>(expression: string): Promise<T>;
}

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-tap-html-'));
let context: HeadlessContext<Page> | undefined;
afterAll(async () => {
  await context?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Two sessions of one server interleaved (same ids), then a second server; answers carry no latency_ms, so the page pairs them itself. */
function peerTrace(): TraceRecord[] {
  const out: TraceRecord[] = [];
  let t = 0;
  const add = (server: string, session: string | undefined, r: Record<string, unknown>) =>
    out.push({ v: 1, t: ++t, ts: new Date(Date.UTC(2025, 10, 25, 10, 0, 0, t)).toISOString(), server, transport: 'http-tap', ...(session ? { session } : {}), bytes: 10, ...r } as TraceRecord);
  const req = (server: string, session: string | undefined, id: number, method: string) => add(server, session, { dir: 'out', kind: 'request', method, id, msg: { jsonrpc: '2.0', id, method } });
  const res = (server: string, session: string | undefined, id: number, method: string) => add(server, session, { dir: 'in', kind: 'result', method, id, msg: { jsonrpc: '2.0', id, result: {} } });
  const [a, b] = ['sha256:aaaa0001', 'sha256:bbbb0002'];
  req('proxy', undefined, 0, 'initialize');
  res('proxy', a, 0, 'initialize');
  req('proxy', undefined, 0, 'initialize');
  res('proxy', b, 0, 'initialize');
  req('proxy', a, 1, 'tools/list');
  req('proxy', b, 1, 'tools/list');
  res('proxy', b, 1, 'tools/list');
  res('proxy', a, 1, 'tools/list');
  req('files', undefined, 0, 'initialize');
  res('files', undefined, 0, 'initialize');
  return out;
}

describe('trace html of a tap trace with several peers (headless Chromium)', () => {
  it('one lane per peer, requests paired within their lane, no page errors', async () => {
    const file = join(dir, 'peers.html');
    writeFileSync(file, renderHtml(peerTrace(), { title: 'peers.jsonl' }));
    context = await launchHeadless<Page>(join(dir, 'profile'));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    const lanes = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('#lanes .lane-name')).map((n) => n.textContent)`);
    expect(lanes).toEqual(['client', 'proxy #1', 'proxy #2', 'files']);
    const options = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('#filter-server option')).map((o) => o.value).filter(Boolean)`);
    expect(options).toEqual(['proxy #1', 'proxy #2', 'files']);
    expect(await page.evaluate<string>(`document.getElementById('count').textContent`)).toContain('3 servers');
    expect(await page.evaluate<number>(`document.querySelectorAll('#rows .row').length`)).toBe(10);
    // every answer shows a latency: each found its request in its own lane (one lane for both sessions would lose one)
    expect(await page.evaluate<number>(`document.querySelectorAll('#rows .lat').length`)).toBe(5);
    expect(errors).toEqual([]);
  }, 60_000);
});
