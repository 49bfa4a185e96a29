/**
 * `trace show --follow` tails a growing trace (a file that does not exist yet, lines arriving in
 * pieces); `trace show` orders a trace several processes wrote by wall-clock time; `trace html`
 * without -o writes the page next to the trace and prints its path; a tap trace with several
 * peers (two taps on one file, two sessions of one server) gets a lane per peer.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { peerLanes } from '../../src/trace/html.js';
import { orderByTime, renderShow } from '../../src/trace/show.js';
import type { TraceRecord } from '../../src/index.js';
import { parseTrace } from '../../src/trace-api.js';
import { cli, everything, root } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-trace-follow-')();
const q = (s: string) => JSON.stringify(s);

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const line = (o: Record<string, unknown>) => `${JSON.stringify({ v: 1, transport: 'stdio', ...o })}\n`;

describe('trace show --follow', () => {
  it('waits for the file, prints lines as they are appended (a line written in two pieces once complete), stops on SIGINT', async () => {
    const file = path.join(dir, 'live.jsonl');
    const child = spawn(process.execPath, [cli, 'trace', 'show', '--follow', '--no-color', file], { cwd: root });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const until = async (re: RegExp) => {
      for (let i = 0; i < 300 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(re);
    };
    await new Promise((r) => setTimeout(r, 300));
    fs.writeFileSync(file, line({ t: 1, ts: '2025-11-25T10:00:00.001Z', server: 'files', event: 'trace-start', format: 1, pid: 1, strict: false }), { mode: 0o600 });
    fs.appendFileSync(file, line({ t: 2, ts: '2025-11-25T10:00:00.002Z', server: 'files', dir: 'out', kind: 'request', method: 'tools/list', id: 1, bytes: 40, msg: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }));
    await until(/tools\/list #1/);
    expect(out).toContain('trace-start');
    const answer = line({ t: 9.5, ts: '2025-11-25T10:00:00.009Z', server: 'files', dir: 'in', kind: 'result', method: 'tools/list', id: 1, bytes: 30, latency_ms: 7.5, msg: { jsonrpc: '2.0', id: 1, result: { tools: [] } } });
    fs.appendFileSync(file, answer.slice(0, 50));
    await new Promise((r) => setTimeout(r, 400));
    expect(out).not.toContain('7.500 ms'); // half a line is not a record yet
    fs.appendFileSync(file, answer.slice(50));
    await until(/← result\s+tools\/list #1\s+7\.500 ms/);
    expect(out).toContain('10:00:00.009'); // wall-clock times when following
    const code = await new Promise<number | null>((resolve) => {
      child.once('close', (c) => resolve(c));
      child.kill('SIGINT');
    });
    expect([0, 130]).toContain(code);
  }, 30_000);
});

describe('trace show / html with several peers', () => {
  it('two taps writing one trace: show orders by time with wall-clock times; html without -o writes next to the trace with a lane per server', async () => {
    const file = path.join(dir, 'peers.jsonl');
    const tap = (name: string) => `${q(process.execPath)} ${q(cli)} tap --trace ${q(file)} --name ${name} -- ${q(process.execPath)} ${q(everything)} stdio`;
    const [x, y] = await Promise.all([run(['--stdio', tap('alpha'), 'tools', '--json']), run(['--stdio', tap('beta'), 'call', 'echo', '--args', '{"message":"b"}'])]);
    expect(x.code).toBe(0);
    expect(y.code).toBe(0);
    const records = parseTrace(fs.readFileSync(file, 'utf8')).records;
    expect(new Set(records.map((r) => r.server))).toEqual(new Set(['alpha', 'beta']));

    const show = await run(['trace', 'show', file, '--no-color']);
    expect(show.code).toBe(0);
    const times = show.stdout.trim().split('\n').map((l) => l.trim().slice(0, 12));
    expect(times.every((t) => /^\d\d:\d\d:\d\d\.\d{3}$/.test(t))).toBe(true);
    expect([...times].sort()).toEqual(times);
    // every request is paired with its answer within its own tap (both taps use ids from 0)
    expect(show.stdout).not.toContain('(no response)');

    const html = await run(['trace', 'html', file]);
    expect(html.code).toBe(0);
    const out = path.join(dir, 'peers.html');
    expect(html.stdout.trim()).toBe(out);
    const page = fs.readFileSync(out, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('"server":"alpha"');
    expect(page).toContain('"server":"beta"');
    expect((await run(['trace', 'html', file, '-o', '-'])).stdout).toMatch(/^<!doctype html>/);
  }, 120_000);

  it('orderByTime merges the batches of several processes; one process keeps file order', () => {
    const rec = (server: string, t: number, ts: string, extra: Record<string, unknown> = {}) => ({ v: 1, t, ts, server, transport: 'stdio', ...extra }) as unknown as TraceRecord;
    const a1 = rec('a', 0, '2025-11-25T10:00:00.000Z', { event: 'trace-start', pid: 1 });
    const a2 = rec('a', 5, '2025-11-25T10:00:00.300Z', { event: 'lifecycle' });
    const b1 = rec('b', 0, '2025-11-25T10:00:00.100Z', { event: 'trace-start', pid: 2 });
    const b2 = rec('b', 1, '2025-11-25T10:00:00.200Z', { event: 'lifecycle' });
    expect(orderByTime([a1, a2, b1, b2])).toEqual([a1, b1, b2, a2]);
    const single = [a2, a1];
    expect(orderByTime(single)).toBe(single);
    expect(renderShow([a1, a2, b1, b2]).split('\n').map((l) => l.trim().slice(0, 12))).toEqual(['10:00:00.000', '10:00:00.100', '10:00:00.200', '10:00:00.300']);
  });

  it('peerLanes: a server seen in two sessions gets a lane per session; the initialize request joins its session', () => {
    const m = (session: string | undefined, id: number, kind: string) =>
      ({ v: 1, t: id, ts: '', server: 'proxy', transport: 'http-tap', ...(session ? { session } : {}), dir: kind === 'request' ? 'out' : 'in', kind, id, bytes: 1, msg: {} }) as unknown as TraceRecord;
    const lanes = peerLanes([m(undefined, 0, 'request'), m('sha256:aaaa1111', 0, 'result'), m(undefined, 0, 'request'), m('sha256:bbbb2222', 0, 'result')]);
    expect(lanes.map((r) => r.server)).toEqual(['proxy #1', 'proxy #1', 'proxy #2', 'proxy #2']);
  });
});
