/**
 * `mcpwire tap` between mcpwire's client and the 2026-07-28 mock servers (the built CLI, real
 * processes, sockets on 127.0.0.1): the stateless era's headers (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, a base64 form among them) and each request's `_meta`
 * reach the server unchanged, the calls work (an input_required round included), and the trace
 * notes the era: an `era` event `modern 2026-07-28`, shown by `trace show` and `trace stats`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { connect, type McpClient } from '../../src/index.js';
import { parseTrace } from '../../src/trace-api.js';
import { waitFor } from '../support/raw-http.js';
import { cli, root, startUntil, stop } from '../support/tap-helpers.js';

const MODERN_STDIO = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-tap-modern-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>;
const lines = (file: string): Rec[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const accept = { onElicitation: async () => ({ action: 'accept' as const, content: { ok: true } }) };

/** The calls each test makes: a listing, a call with Mcp-Param-* headers (one base64), an input_required round. */
async function session(c: McpClient): Promise<string[]> {
  const tools = await c.listTools();
  expect(tools.map((t) => t.name)).toContain('route');
  const route = JSON.parse(text(await c.callTool('route', { query: 'q', region: 'Hello, 世界', tenant: { id: 7 }, dryRun: true })));
  const confirm = text(await c.callTool('confirm', { message: 'Deploy?' }));
  return [JSON.stringify(route.arguments), confirm];
}

function trace(args: string[]): string {
  const r = spawnSync(process.execPath, [cli, 'trace', ...args], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('mcpwire tap in the 2026-07-28 era', () => {
  it('HTTP: the era headers and _meta reach the server as the client sent them, the calls work, the trace notes era modern 2026-07-28', async () => {
    const mock = await startModernHttpMock({ stderr: () => {} });
    const file = path.join(dir, 'http.jsonl');
    const tap = await startUntil([cli, 'tap', '--listen', '127.0.0.1:0', '--upstream', mock.url, '--trace', file, '--name', 'modern'], /listening on (http:\/\/\S+)/);
    let c: McpClient | undefined;
    try {
      c = await connect({ transport: 'http', id: 'modern', url: tap.match[1] }, { timeoutMs: 15_000, ...accept });
      expect(c.era).toBe('modern');
      expect(await session(c)).toEqual(['{"query":"q","region":"Hello, 世界","tenant":{"id":7},"dryRun":true}', 'accept: {"ok":true} after 1 round(s)']);
    } finally {
      await c?.close();
      await stop(tap.child);
      await mock.close();
    }
    expect(mock.record.violations).toEqual([]);
    const records = lines(file);
    // What the server received is what the tap saw the client send: every body (its _meta too) and every MCP header.
    const sent = records.filter((r) => r.dir === 'out').map((r) => r.msg);
    expect(mock.record.http.map((h) => JSON.parse(h.body))).toEqual(sent);
    const httpEvents = records.filter((r) => r.event === 'transport' && r.type === 'http');
    expect(httpEvents).toHaveLength(mock.record.http.length);
    mock.record.http.forEach((h, i) => {
      const mcp = Object.fromEntries(Object.entries(h.headers).filter(([k]) => /^mcp-(protocol-version|method|name|param-.*)$/.test(k)));
      expect(httpEvents[i].headers).toEqual(mcp);
    });
    const route = mock.record.http.find((h) => h.headers['mcp-name'] === 'route')!;
    expect(route.headers).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-protocol-version': '2026-07-28', 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=', 'mcp-param-tenant': '7', 'mcp-param-dry-run': 'true' });
    for (const m of sent.filter((m) => m.method !== 'server/discover')) expect(m.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(records.filter((r) => r.event === 'era')).toEqual([expect.objectContaining({ server: 'modern', era: 'modern', version: '2026-07-28' })]);
    expect(trace(['show', file])).toMatch(/• era\s+modern 2026-07-28/);
    expect(trace(['stats', file])).toMatch(/^era: modern modern 2026-07-28$/m);
  }, 60_000);

  it('stdio: every message and its _meta pass unchanged both ways, the calls work, the trace notes era modern 2026-07-28', async () => {
    const file = path.join(dir, 'stdio.jsonl');
    const received = path.join(dir, 'received.jsonl');
    const c = await connect(
      { transport: 'stdio', id: 'modern', command: process.execPath, args: [cli, 'tap', '--trace', file, '--name', 'modern', '--', process.execPath, MODERN_STDIO], env: { MOCK_RECORD: received } },
      { timeoutMs: 15_000, ...accept },
    );
    try {
      expect(c.era).toBe('modern');
      expect(await session(c)).toEqual(['{"query":"q","region":"Hello, 世界","tenant":{"id":7},"dryRun":true}', 'accept: {"ok":true} after 1 round(s)']);
    } finally {
      await c.close();
    }
    await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"trace-end"'), 'the tap to finish its trace');
    const records = parseTrace(fs.readFileSync(file, 'utf8')).records as Rec[];
    expect(lines(received)).toEqual(records.filter((r) => r.dir === 'out').map((r) => r.msg));
    const eras = records.filter((r) => r.event === 'era');
    expect(eras).toEqual([expect.objectContaining({ era: 'modern', version: '2026-07-28', session: records.find((r) => r.dir === 'out')!.session })]);
    // Noted where the evidence is: right after the server/discover result.
    const at = records.indexOf(eras[0]);
    expect(records[at - 1]).toMatchObject({ dir: 'in', kind: 'result', method: 'server/discover' });
    expect(trace(['show', file])).toMatch(/← result\s+server\/discover #\d+\s+era modern 2026-07-28/);
  }, 60_000);
});
