/**
 * `mcpwire replay`: a trace recorded through `mcpwire tap` against server-everything, served
 * back, answers `mcpwire tools`, `call echo` and `check` as the live server did (stdio, and
 * `tools` over HTTP with --listen); strict mode answers a request that was not recorded with a
 * JSON-RPC error and exits non-zero; recorded server notifications are replayed with the live
 * progress token and ids.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScript, ReplaySession } from '../../src/tap/index.js';
import type { TraceRecord } from '../../src/index.js';
import { parseTrace } from '../../src/trace-api.js';
import { cli, everything, root, startUntil, stop } from '../support/tap-helpers.js';
import { runCliHere } from '../support/cli-in-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-replay-')();
const trace = path.join(dir, 'everything.jsonl');
const q = (s: string) => JSON.stringify(s);
const tapCmd = `${q(process.execPath)} ${q(cli)} tap --trace ${q(trace)} --name everything -- ${q(process.execPath)} ${q(everything)} stdio`;
const replayCmd = (extra = '') => `${q(process.execPath)} ${q(cli)} replay ${q(trace)}${extra}`;

const run = (args: string[]) => runCliHere(args, { cwd: root });

/**
 * Each check session starts tap and server-everything (two Node processes) before it answers:
 * at load ~16 a raw initialize outlived the default 10 s bound once, and the live run recorded a
 * skip where the replay recorded the verdict. A wider bound keeps both runs about the server.
 */
const CHECK_BOUND = ['--timeout-ms', '30000'];

const live: Record<string, { code: number; stdout: string }> = {};
beforeAll(async () => {
  live.tools = await run(['--stdio', tapCmd, 'tools', '--json']);
  live.call = await run(['--stdio', tapCmd, 'call', 'echo', '--args', '{"message":"replay me"}']);
  live.check = await run(['check', '--stdio', tapCmd, '--json', ...CHECK_BOUND]);
}, 240_000);

/** check --json without what differs between any two runs (timings, the command line). */
function checkOutcome(stdout: string) {
  const report = JSON.parse(stdout) as { results: Array<{ id: string; status: string }> };
  return report.results.map((r) => `${r.id}:${r.status}`);
}

describe('mcpwire replay of a server-everything trace', () => {
  it('the recording holds the three sessions', () => {
    expect(live.tools.code).toBe(0);
    expect(live.call.code).toBe(0);
    expect(live.check.code).toBe(0);
    const records = parseTrace(fs.readFileSync(trace, 'utf8')).records as any[];
    const methods = new Set(records.filter((r) => r.dir === 'out' && r.kind === 'request').map((r) => r.method));
    for (const m of ['initialize', 'tools/list', 'tools/call', 'ping']) expect(methods).toContain(m);
  });

  it('tools, call echo and check (stdio) answer as the live server did', async () => {
    const tools = await run(['--stdio', replayCmd(), 'tools', '--json']);
    expect(tools.code).toBe(0);
    expect(JSON.parse(tools.stdout)).toEqual(JSON.parse(live.tools.stdout));
    const call = await run(['--stdio', replayCmd(), 'call', 'echo', '--args', '{"message":"replay me"}']);
    expect(call.code).toBe(0);
    expect(call.stdout).toBe(live.call.stdout);
    expect(call.stdout).toContain('replay me');
    const check = await run(['check', '--stdio', replayCmd(), '--json', ...CHECK_BOUND]);
    expect(check.code).toBe(live.check.code);
    expect(checkOutcome(check.stdout)).toEqual(checkOutcome(live.check.stdout));
  }, 180_000);

  it('over HTTP (--listen): tools --url answers as the live server did', async () => {
    const srv = await startUntil([cli, 'replay', trace, '--listen', '127.0.0.1:0'], /at (http:\/\/\S+)/);
    try {
      const tools = await run(['--url', srv.match[1], 'tools', '--json']);
      expect(tools.code).toBe(0);
      expect(JSON.parse(tools.stdout)).toEqual(JSON.parse(live.tools.stdout));
    } finally {
      const exit = await stop(srv.child, 'SIGTERM');
      expect(exit.code).toBe(0);
      expect(srv.stderr()).toMatch(/answered from the recording, 0 not recorded/);
    }
  }, 60_000);
});

/** Talks JSON-RPC lines to `mcpwire replay` directly. */
function replayProcess(file: string, mode: string) {
  const child = spawn(process.execPath, [cli, 'replay', file, '--match', mode], { cwd: root });
  let buf = '';
  let err = '';
  const waiters = new Map<unknown, (m: any) => void>();
  const got: any[] = [];
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      got.push(m);
      if (m.method === undefined) waiters.get(m.id)?.(m);
    }
  });
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return {
    got,
    request(msg: { id: unknown; [k: string]: unknown }): Promise<any> {
      const p = new Promise<any>((r) => waiters.set(msg.id, r));
      child.stdin.write(`${JSON.stringify(msg)}\n`);
      return p;
    },
    notify(msg: object) {
      child.stdin.write(`${JSON.stringify(msg)}\n`);
    },
    end(): Promise<{ code: number | null; stderr: string }> {
      return new Promise((resolve) => {
        child.once('close', (code) => resolve({ code, stderr: err }));
        child.stdin.end();
      });
    },
  };
}

describe('mcpwire replay --match strict', () => {
  const file = path.join(dir, 'scripted.jsonl');
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'scripted', version: '1' } } };
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get-sum', arguments: { a: 20, b: 22 } } };

  beforeAll(async () => {
    // Record a fixed session through the tap.
    const child = spawn(process.execPath, [cli, 'tap', '--trace', file, '--', process.execPath, everything, 'stdio'], { cwd: root });
    const lines: any[] = [];
    let buf = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const m = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          lines.push(m);
          if (m.id === 1) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify(call)}\n`);
          if (m.id === 2) resolve();
        }
      });
      child.stdin.write(`${JSON.stringify(init)}\n`);
    });
    await new Promise((r) => {
      child.once('close', r);
      child.stdin.end();
    });
  }, 60_000);

  it('the recorded session replays exactly and exits 0', async () => {
    const p = replayProcess(file, 'strict');
    const a = await p.request({ ...init, id: 'x1' });
    expect(a.id).toBe('x1');
    expect(a.result.serverInfo.name).toBe('mcp-servers/everything');
    p.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const b = await p.request({ ...call, id: 99 });
    expect(b).toEqual({ jsonrpc: '2.0', id: 99, result: { content: [{ type: 'text', text: 'The sum of 20 and 22 is 42.' }] } });
    const end = await p.end();
    expect(end.code).toBe(0);
    expect(end.stderr).toMatch(/2 request\(s\) answered from the recording, 0 not recorded \(strict match\)/);
  }, 30_000);

  it('a request that was not recorded gets a JSON-RPC error, is listed at exit, and the exit code is 1', async () => {
    const p = replayProcess(file, 'strict');
    await p.request(init);
    const wrong = await p.request({ ...call, params: { name: 'get-sum', arguments: { a: 1, b: 1 } } });
    expect(wrong.error.code).toBe(-32001);
    expect(wrong.error.message).toMatch(/recorded with other params/);
    const unknown = await p.request({ jsonrpc: '2.0', id: 3, method: 'prompts/list' });
    expect(unknown.error.code).toBe(-32001);
    const end = await p.end();
    expect(end.code).toBe(1);
    expect(end.stderr).toMatch(/2 not recorded \(strict match\)/);
    expect(end.stderr).toMatch(/prompts\/list/);
  }, 30_000);

  it('loose mode answers by method and best params, and exits 0 even when something was not recorded', async () => {
    const p = replayProcess(file, 'loose');
    await p.request(init);
    const other = await p.request({ ...call, params: { name: 'get-sum', arguments: { a: 1, b: 1 } } });
    expect(other.result.content[0].text).toBe('The sum of 20 and 22 is 42.'); // the recorded answer, not a computed one
    const unknown = await p.request({ jsonrpc: '2.0', id: 3, method: 'prompts/list' });
    expect(unknown.error.code).toBe(-32001);
    const end = await p.end();
    expect(end.code).toBe(0);
  }, 30_000);
});

describe('replay script: server messages at the recorded points', () => {
  const base = { v: 1, ts: '2025-11-25T10:00:00.000Z', server: 's', transport: 'stdio' };
  const rec = (t: number, dir: 'in' | 'out', kind: string, msg: Record<string, unknown>): TraceRecord =>
    ({ ...base, t, dir, kind, method: msg.method as string | undefined, id: msg.id as number | undefined, bytes: 1, msg }) as TraceRecord;
  const records: TraceRecord[] = [
    rec(1, 'out', 'request', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'rec-token' } } }),
    rec(2, 'in', 'notification', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'rec-token', progress: 1, total: 2 } }),
    rec(3, 'in', 'request', { jsonrpc: '2.0', id: 0, method: 'roots/list' }),
    rec(4, 'out', 'result', { jsonrpc: '2.0', id: 0, result: { roots: [] } }),
    rec(5, 'in', 'result', { jsonrpc: '2.0', id: 5, result: { content: [] } }),
    rec(6, 'in', 'notification', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
  ];

  it('progress goes out with the live token, a server request waits for its answer, the answer carries the live id, later notifications follow', async () => {
    const script = buildScript(records);
    expect(script.exchanges[0].before.map((a) => a.msg.method)).toEqual(['notifications/progress', 'roots/list']);
    expect(script.exchanges[0].after.map((a) => a.msg.method)).toEqual(['notifications/tools/list_changed']);
    const sent: any[] = [];
    const session: ReplaySession = new ReplaySession(script, 'strict', (m: any) => {
      sent.push(m);
      if (m.method === 'roots/list') setTimeout(() => void session.receive({ jsonrpc: '2.0', id: m.id, result: { roots: [] } }), 10);
    });
    await session.receive({ jsonrpc: '2.0', id: 'live-1', method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'live-token' } } });
    expect(sent.map((m) => m.method ?? `answer:${m.id}`)).toEqual(['notifications/progress', 'roots/list', 'answer:live-1', 'notifications/tools/list_changed']);
    expect(sent[0].params.progressToken).toBe('live-token');
    expect(session.summary()).toMatchObject({ answered: 1, mismatches: [], unplayed: 0 });
  });

  it('a multi-server trace needs --server', () => {
    expect(() => buildScript([...records, { ...records[0], server: 'other' } as TraceRecord])).toThrow(/several servers \(s, other\)/);
    expect(buildScript([...records, { ...records[0], server: 'other' } as TraceRecord], { server: 'other' }).exchanges).toHaveLength(1);
  });
});

describe('replay over HTTP (--listen): sessions, streams, server requests', () => {
  const base = { v: 1, ts: '2025-11-25T10:00:00.000Z', server: 's', transport: 'stdio' };
  const rec = (t: number, dir: 'in' | 'out', kind: string, msg: Record<string, unknown>): TraceRecord =>
    ({ ...base, t, dir, kind, method: msg.method as string | undefined, id: msg.id as number | undefined, bytes: 1, msg }) as TraceRecord;
  const records: TraceRecord[] = [
    rec(1, 'out', 'request', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } } }),
    rec(2, 'in', 'result', { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'rec', version: '1' } } }),
    rec(3, 'out', 'request', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'needs-roots' } }),
    rec(4, 'in', 'request', { jsonrpc: '2.0', id: 0, method: 'roots/list' }),
    rec(5, 'out', 'result', { jsonrpc: '2.0', id: 0, result: { roots: [] } }),
    rec(6, 'in', 'result', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'slow done' }] } }),
    rec(7, 'out', 'request', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fast' } }),
    rec(8, 'in', 'result', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'fast done' }] } }),
  ];

  it('a server request goes out on its POST stream and waits for the answer; a concurrent POST gets its own answer as JSON; DELETE ends the session', async () => {
    const { serveReplayHttp } = await import('../../src/tap/index.js');
    const srv = await serveReplayHttp(buildScript(records), { mode: 'loose', listen: '127.0.0.1:0' });
    try {
      const post = (body: unknown, session?: string) =>
        fetch(srv.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(body) });
      const init = await post({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'live', version: '2' } } });
      const sid = init.headers.get('mcp-session-id')!;
      expect(sid).toBeTruthy();
      expect(((await init.json()) as any).result.serverInfo.name).toBe('rec');

      const slow = await post({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'needs-roots' } }, sid);
      expect(slow.headers.get('content-type')).toBe('text/event-stream');
      const reader = slow.body!.getReader();
      let text = '';
      const nextEvent = async () => {
        while (!text.includes('\n\n')) {
          const { value, done } = await reader.read();
          if (done) throw new Error('stream ended');
          text += Buffer.from(value).toString('utf8');
        }
        const i = text.indexOf('\n\n');
        const ev = text.slice(0, i);
        text = text.slice(i + 2);
        return JSON.parse(ev.replace(/^data: /, ''));
      };
      const rootsRequest = await nextEvent();
      expect(rootsRequest.method).toBe('roots/list');

      // meanwhile another request of the same session is answered on its own response
      const fast = await post({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'fast' } }, sid);
      expect(await fast.json()).toEqual({ jsonrpc: '2.0', id: 11, result: { content: [{ type: 'text', text: 'fast done' }] } });

      expect((await post({ jsonrpc: '2.0', id: rootsRequest.id, result: { roots: [] } }, sid)).status).toBe(202);
      expect(await nextEvent()).toEqual({ jsonrpc: '2.0', id: 10, result: { content: [{ type: 'text', text: 'slow done' }] } });

      expect((await fetch(srv.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } })).status).toBe(200);
      expect((await post({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'fast' } }, sid)).status).toBe(404);
      expect(srv.summary()).toMatchObject({ answered: 3, mismatches: [], unplayed: 0 });
    } finally {
      await srv.close();
    }
  });
});
