/**
 * Strict mode knows both eras' schemas: a 2026-07-28 session (server/discover, `_meta` on every
 * request, `input_required` results) is checked against schema/2026-07-28.schema.json, a
 * handshake session against schema/2025-11-25.schema.json, each message under the revision its
 * session speaks (StrictChecker reads it from the messages, as `mcpwire trace show` does).
 */
import fs, { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/index.js';
import { MODERN_SCHEMA_VERSION, resultTypeFor, SCHEMA_VERSION, schemaVersionFor, StrictChecker, validateMessage, type Direction } from '../../src/trace/strict.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const MODERN = '2026-07-28';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-strict-modern-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const cli = path.join(root, 'dist', 'cli', 'main.js');
const MODERN_STDIO = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const schemaEvents = (file: string) => recorded(file, true).filter((r) => r.event === 'schema');

/** The message lines of a recorded trace, in order. */
function recorded(file: string, all = false): { dir: Direction; msg: Record<string, unknown>; event?: string }[] {
  return readFileSync(path.resolve(root, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => all || ((r.dir === 'in' || r.dir === 'out') && r.msg !== undefined));
}

describe('strict mode in the 2026-07-28 era', () => {
  it('a recorded modern session (server/discover, input_required rounds) passes strict', () => {
    const records = recorded('test/fixtures/modern-mrtr.jsonl');
    expect(records.some((r) => r.msg.method === 'server/discover')).toBe(true);
    const strict = new StrictChecker();
    const violations = records.flatMap((r) => strict.check(r.dir, r.msg, {}));
    expect(violations).toEqual([]);
    expect(strict.schema).toBe(MODERN);
    // the same session under the 2025-11-25 schema alone is full of violations (server/discover unknown)
    const old = records.flatMap((r) => validateMessage(r.dir, r.msg, { schema: SCHEMA_VERSION }));
    expect(old).toContainEqual(expect.objectContaining({ method: 'server/discover', schemaType: 'ClientRequest', keyword: 'anyOf' }));
  });

  it('a broken modern message is flagged with the 2026-07-28 schema path', () => {
    const strict = new StrictChecker();
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };
    expect(strict.check('out', { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }, {})).toEqual([]);
    const broken = strict.check('in', { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', capabilities: {}, serverInfo: { name: 's', version: '1' } } }, {});
    expect(broken).toContainEqual(
      expect.objectContaining({ dir: 'in', kind: 'result', method: 'server/discover', schema: MODERN, schemaType: 'DiscoverResult', schemaPath: '#/$defs/DiscoverResult/required', params: { missingProperty: 'supportedVersions' } }),
    );
    // a result without resultType: 2026-07-28's Result requires it (2025-11-25's has no such field)
    strict.check('out', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', _meta: meta } }, {});
    const noType = strict.check('in', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'x' }] } }, {});
    expect(noType).toEqual([expect.objectContaining({ schema: MODERN, schemaPath: '#/$defs/Result/required', params: { missingProperty: 'resultType' } })]);
  });

  it('a result type the core schema does not define (an extension, basic#9) is checked as Result only; input_required as InputRequiredResult', () => {
    const schema = MODERN_SCHEMA_VERSION;
    const handle = { jsonrpc: '2.0', id: 3, result: { resultType: 'task', task: { taskId: 't1', status: 'working' } } };
    expect(validateMessage('in', handle, { requestMethod: 'tools/call', schema })).toEqual([]);
    const input = { jsonrpc: '2.0', id: 4, result: { resultType: 'input_required', requestState: 7 } };
    expect(validateMessage('in', input, { requestMethod: 'tools/call', schema })).toContainEqual(expect.objectContaining({ schemaType: 'InputRequiredResult', instancePath: '/result/requestState' }));
    expect(resultTypeFor('server/discover', schema)).toBe('DiscoverResult');
  });

  it('one checker follows the era the session speaks: the stdio probe, then initialize, is checked as 2025-11-25', () => {
    const strict = new StrictChecker();
    const probe = { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } } } };
    expect(strict.check('out', probe, {})).toEqual([]);
    expect(strict.check('in', { jsonrpc: '2.0', id: 0, error: { code: -32601, message: 'Method not found' } }, {})).toEqual([]);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    expect(strict.check('out', init, {})).toEqual([]);
    expect(strict.schema).toBe(SCHEMA_VERSION);
    // a server request exists in 2025-11-25 (not in 2026-07-28)
    expect(strict.check('in', { jsonrpc: '2.0', id: 'r', method: 'roots/list' }, {})).toEqual([]);
    // a message of the 2025-11-25 schema missing a field is flagged under it
    const bad = strict.check('in', { jsonrpc: '2.0', id: 1, result: { capabilities: {}, serverInfo: { name: 's', version: '1' } } }, {});
    expect(bad).toContainEqual(expect.objectContaining({ schema: SCHEMA_VERSION, schemaType: 'InitializeResult', params: { missingProperty: 'protocolVersion' } }));
  });

  it('the schema for an era and version: the revision itself when shipped, else its era', () => {
    expect(schemaVersionFor('modern', MODERN)).toBe(MODERN);
    expect(schemaVersionFor('modern', '2099-01-01')).toBe(MODERN_SCHEMA_VERSION);
    expect(schemaVersionFor('handshake', '2025-06-18')).toBe(SCHEMA_VERSION);
    const s = new StrictChecker();
    s.setEra('modern');
    expect(s.schema).toBe(MODERN);
  });
});

describe('strict traces of a live 2026-07-28 session', () => {
  const accept = { onElicitation: async () => ({ action: 'accept' as const, content: { ok: true } }) };

  it('the client tracer with strict on: a modern stdio session (server/discover, a call, an input_required round) records no schema event', async () => {
    const file = path.join(dir, 'client.jsonl');
    const c = await connect({ transport: 'stdio', id: 'modern', command: process.execPath, args: [MODERN_STDIO] }, { timeoutMs: 15_000, trace: { file, strict: true }, ...accept });
    try {
      expect(c.era).toBe('modern');
      await c.listTools();
      const r = await c.callTool('confirm', { message: 'Deploy?' });
      expect(r.content).toEqual([{ type: 'text', text: 'accept: {"ok":true} after 1 round(s)' }]);
    } finally {
      await c.close();
    }
    expect(recorded(file).some((r) => r.msg.method === 'server/discover')).toBe(true);
    expect(schemaEvents(file)).toEqual([]);
  }, 30_000);

  it.skipIf(!fs.existsSync(cli))('mcpwire tap --strict (the built CLI) between the client and a modern stdio server records no schema event', async () => {
    const file = path.join(dir, 'tap.jsonl');
    const c = await connect(
      { transport: 'stdio', id: 'modern', command: process.execPath, args: [cli, 'tap', '--trace', file, '--strict', '--name', 'modern', '--', process.execPath, MODERN_STDIO] },
      { timeoutMs: 15_000, ...accept },
    );
    try {
      expect(c.era).toBe('modern');
      await c.listTools();
      expect((await c.callTool('confirm', { message: 'Deploy?' })).content).toEqual([{ type: 'text', text: 'accept: {"ok":true} after 1 round(s)' }]);
    } finally {
      await c.close();
    }
    const end = Date.now() + 10_000;
    while (!(fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"trace-end"')) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(recorded(file, true).some((r) => r.event === 'trace-start' && (r as { strict?: boolean }).strict === true)).toBe(true);
    expect(recorded(file).some((r) => r.msg.method === 'tools/call')).toBe(true);
    expect(schemaEvents(file)).toEqual([]);
  }, 30_000);
});
