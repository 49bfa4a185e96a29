/**
 * `mcpwire trace diff`: two sessions against server-everything (recorded through `mcpwire tap`)
 * that did the same things report no difference (exit 0) although ids, timings and timestamps
 * differ; a copy of one where the server's tools/list answers carry one more tool reports
 * exactly that tool (exit 1); schema changes, version, capabilities and error counts are named.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { diffTraces, formatDiff } from '../../src/tap/index.js';
import type { TraceRecord } from '../../src/index.js';
import { cli, everything, root } from '../support/tap-helpers.js';
import { runCliHere } from '../support/cli-in-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-trace-diff-')();
const q = (s: string) => JSON.stringify(s);

const run = (args: string[]) => runCliHere(args, { cwd: root });

async function record(file: string) {
  const tap = `${q(process.execPath)} ${q(cli)} tap --trace ${q(file)} --name everything -- ${q(process.execPath)} ${q(everything)} stdio`;
  expect((await run(['--stdio', tap, 'tools', '--json'])).code).toBe(0);
  expect((await run(['--stdio', tap, 'call', 'echo', '--args', '{"message":"same"}'])).code).toBe(0);
}

/** A copy of `from` whose tools/list answers list one more tool (what a server that added a tool would have sent). */
function withEditedTools(from: string, to: string, edit: (tools: any[]) => void) {
  const lines = fs.readFileSync(from, 'utf8').split('\n').map((line) => {
    if (!line.trim()) return line;
    const r = JSON.parse(line);
    if (r.dir === 'in' && r.method === 'tools/list' && r.msg?.result?.tools) edit(r.msg.result.tools);
    return JSON.stringify(r);
  });
  fs.writeFileSync(to, lines.join('\n'));
}

const a = path.join(dir, 'a.jsonl');
const b = path.join(dir, 'b.jsonl');
beforeAll(async () => {
  await record(a);
  await record(b);
}, 120_000);

describe('mcpwire trace diff', () => {
  it('two sessions that did the same report no difference and exit 0 (ids, timings, timestamps ignored)', async () => {
    const r = await run(['trace', 'diff', a, b]);
    expect(r.stdout).toContain('no protocol-level difference');
    expect(r.code).toBe(0);
    const j = await run(['trace', 'diff', a, b, '--json']);
    expect(j.code).toBe(0);
    const d = JSON.parse(j.stdout);
    expect(d.same).toBe(true);
    expect(d.latency.map((l: any) => l.method)).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
  });

  it('a session where the server has one more tool reports exactly that tool and exits 1', async () => {
    const c = path.join(dir, 'c.jsonl');
    withEditedTools(b, c, (tools) => tools.push({ name: 'brand-new-tool', description: 'added', inputSchema: { type: 'object', properties: {} } }));
    const j = await run(['trace', 'diff', a, c, '--json']);
    expect(j.code).toBe(1);
    const d = JSON.parse(j.stdout);
    expect(d.same).toBe(false);
    expect(d.catalogs.tools).toEqual({ added: ['brand-new-tool'], removed: [], changed: [] });
    for (const k of ['resources', 'resourceTemplates', 'prompts']) expect(d.catalogs[k]).toEqual({ added: [], removed: [], changed: [] });
    expect(d.protocolVersion).toBeUndefined();
    expect(d.serverCapabilities).toEqual([]);
    expect(d.clientCapabilities).toEqual([]);
    expect(d.errors).toEqual([]);
    // The first exchange that differs is the tools/list answer, at the new tool.
    expect(d.firstDivergence).toMatchObject({ method: 'tools/list', what: 'response', b: { name: 'brand-new-tool' } });
    const text = await run(['trace', 'diff', a, c]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^tools:\n {2}\+ brand-new-tool\nfirst diverging exchange: answer to request #\d+ \(tools\/list\)/m);
    // …and the other way round it is a removed tool
    const back = JSON.parse((await run(['trace', 'diff', c, a, '--json'])).stdout);
    expect(back.catalogs.tools).toEqual({ added: [], removed: ['brand-new-tool'], changed: [] });
  });

  it('a changed input schema is named with the field that changed', async () => {
    const e = path.join(dir, 'e.jsonl');
    withEditedTools(b, e, (tools) => {
      tools.find((t) => t.name === 'echo').inputSchema.properties.loud = { type: 'boolean' };
    });
    const d = JSON.parse((await run(['trace', 'diff', a, e, '--json'])).stdout);
    expect(d.catalogs.tools).toEqual({ added: [], removed: [], changed: [{ name: 'echo', fields: ['inputSchema'] }] });
  });
});

describe('diffTraces (records)', () => {
  const base = { v: 1, server: 's', transport: 'stdio' };
  let t = 0;
  const msg = (dir: 'in' | 'out', kind: string, m: Record<string, unknown>, ts = '2025-11-25T10:00:00.000Z') =>
    ({ ...base, t: ++t, ts, dir, kind, method: m.method, id: m.id, bytes: 1, msg: { jsonrpc: '2.0', ...m } }) as unknown as TraceRecord;
  const session = (o: { version?: string; caps?: object; id0?: number; when?: string; secret?: string; fail?: boolean }) => [
    msg('out', 'request', { id: o.id0 ?? 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } } }),
    msg('in', 'result', { id: o.id0 ?? 0, result: { protocolVersion: o.version ?? '2025-11-25', capabilities: o.caps ?? { tools: { listChanged: true } }, serverInfo: { name: 's', version: '1' } } }),
    msg('out', 'request', { id: (o.id0 ?? 0) + 1, method: 'tools/call', params: { name: 'now', arguments: { key: o.secret ?? '[redacted]' }, _meta: { progressToken: o.id0 ?? 0 } } }),
    o.fail
      ? msg('in', 'error', { id: (o.id0 ?? 0) + 1, error: { code: -32603, message: 'boom' } })
      : msg('in', 'result', { id: (o.id0 ?? 0) + 1, result: { content: [{ type: 'text', text: o.when ?? '2025-11-25T10:00:00Z' }] } }),
  ];

  it('ignores ids, progress tokens, timestamps and redacted values', () => {
    const d = diffTraces(session({}), session({ id0: 40, when: '2031-01-02T03:04:05.678Z', secret: 'hunter2-actual' }));
    expect(d.same).toBe(true);
    expect(formatDiff(d)).toContain('no protocol-level difference');
  });

  it('ignores pings (liveness: whether one is sent before or between requests depends on timing), answered or refused', () => {
    const pinged = [
      msg('out', 'request', { id: 90, method: 'ping' }),
      msg('in', 'error', { id: 90, error: { code: -32600, message: 'not initialized' } }),
      ...session({}),
      msg('out', 'request', { id: 91, method: 'ping' }),
      msg('in', 'result', { id: 91, result: {} }),
    ];
    const d = diffTraces(session({}), pinged);
    expect(d.firstDivergence).toBeUndefined();
    expect(d.errors).toEqual([]);
    expect(d.same).toBe(true);
  });

  it('names a version change, capability changes and error counts', () => {
    const d = diffTraces(session({}), session({ version: '2025-06-18', caps: { tools: {}, logging: {} }, fail: true }));
    expect(d.same).toBe(false);
    expect(d.protocolVersion).toEqual({ a: '2025-11-25', b: '2025-06-18' });
    expect(d.serverCapabilities).toEqual([{ path: 'logging', b: {} }, { path: 'tools.listChanged', a: true }]);
    expect(d.errors).toEqual([{ method: 'tools/call', a: 0, b: 1 }]);
    const text = formatDiff(d);
    expect(text).toContain('protocol version: 2025-11-25 → 2025-06-18');
    expect(text).toContain('+ logging {}');
    expect(text).toContain('- tools.listChanged true');
    expect(text).toContain('tools/call: 0 → 1');
  });
});
