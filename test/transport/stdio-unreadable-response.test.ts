/**
 * Over a real child process (mock-servers/stdio-server.mjs): a response line over the
 * size limit fails its request at once, naming server, method and limit, and no
 * notifications/cancelled goes to a server that did answer; a BOM-prefixed line is read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/errors.js';
import { Connection, type ConnectionDiagnostic } from '../../src/protocol/connection.js';
import { StdioTransport } from '../../src/transport/stdio.js';
import { tempDirs } from '../support/temp-dirs.js';

const mock = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..', 'mock-servers', 'stdio-server.mjs');
const tmp = tempDirs('mcpwire-unreadable-');
const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start(scenario: object, maxMessageBytes: number) {
  const dir = tmp();
  const record = path.join(dir, 'received.jsonl');
  const t = new StdioTransport({
    command: process.execPath,
    args: [mock],
    serverId: 'mock',
    maxMessageBytes,
    env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario), MOCK_RECORD: record },
  });
  const diags: ConnectionDiagnostic[] = [];
  const conn = new Connection(t, { serverId: 'mock', phase: () => 'request', onDiagnostic: (d) => diags.push(d) });
  open.push(conn);
  await t.start();
  await conn.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }, { cancellable: false });
  await conn.notify('notifications/initialized');
  const received = () =>
    fs.existsSync(record)
      ? fs.readFileSync(record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { method?: string; id?: unknown })
      : [];
  return { conn, diags, received };
}

describe('stdio, real child process', () => {
  it('an oversized response fails its request at once with a clear error and sends no cancel (basic.utilities.cancellation#1)', async () => {
    const { conn, diags, received } = await start({ extends: 'default', tools: ['blob', 'echo'] }, 4096);
    // a timeout far beyond the test's own: without the fix this request would wait for it
    const err = await conn.request('tools/call', { name: 'blob', arguments: { bytes: 20_000 } }, { timeoutMs: 600_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.code).toBe('MCPWIRE_RESPONSE_UNREADABLE');
    expect(err.message).toMatch(/server "mock"/);
    expect(err.message).toMatch(/"tools\/call"/);
    expect(err.message).toMatch(/exceeds the maximum of 4096 bytes/);
    expect(conn.pendingCount).toBe(0);
    const oversized = diags.find((d) => d.code === 'MCPWIRE_FRAME_OVERSIZED');
    expect(oversized?.responseToId).toBeTypeOf('number');
    // the connection carries on, and the server never heard of a cancel
    const ok = await conn.request<{ content: { text: string }[] }>('tools/call', { name: 'echo', arguments: { text: 'after' } });
    expect(ok.content[0].text).toBe('after');
    await conn.close();
    expect(received().filter((m) => m.method === 'notifications/cancelled')).toEqual([]);
  });

  it('a line starting with a UTF-8 BOM is read like any other', async () => {
    // initialize is id 1, this call id 2: the BOM line answers it before the real answer does
    const bomLine = `\ufeff${JSON.stringify({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'from the BOM line' }] } })}`;
    const { conn, diags } = await start({ extends: 'default', tools: [{ name: 'bom', builtin: 'echo', behavior: { garbage: bomLine } }] }, 4096);
    const r = await conn.request<{ content: { text: string }[] }>('tools/call', { name: 'bom', arguments: { text: 'real' } });
    expect(r.content[0].text).toBe('from the BOM line');
    expect(diags.filter((d) => d.code === 'MCPWIRE_FRAME_MALFORMED')).toEqual([]);
  });
});
