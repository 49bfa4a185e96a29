/**
 * A 2026-07-28 `tools/call` mirrors the arguments its tool marks with `x-mcp-header` into
 * `Mcp-Param-{Name}` headers whose names the server chooses. The trace redacts the body's
 * `credential`, `private_key` and `passwd`; a header copy of one of them (in clear, or in its
 * `=?base64?…?=` form) is only as safe as the body value it mirrors, so it is redacted by the
 * body's verdict, whatever its name: in the trace of `mcpwire tap` (its `http` lines), of the
 * client (`trace` option, `--trace`) and of `mcpwire serve` (whose header-mismatch error quoted
 * both values). Real sockets on 127.0.0.1: the modern mock, the tap, the gateway.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { connect, type McpClient } from '../../src/index.js';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp } from '../../src/serve-api.js';
import { redactHeaderCopies } from '../../src/trace/header-copies.js';
import { Redactor } from '../../src/trace/redact.js';
import { startHttpTap } from '../../src/tap/http.js';
import { root } from '../support/tap-helpers.js';
import { meta, modernHeaders, post } from '../support/modern-wire.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-header-copies-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CREDENTIAL = 'cr3d-Valu3-9xQ';
const PRIVATE_KEY = 'clé-privée-7Qw'; // not ASCII: sent in the Base64 form
const PASSWD = ' hunter2hunter2'; // a leading space: Base64 form too
const USER = 'alice-operator';

/** A tool whose mirrored arguments are credentials, under header names that do not say so. */
const LOGIN = {
  name: 'login',
  description: 'Takes credentials mirrored into headers',
  inputSchema: {
    type: 'object',
    properties: {
      user: { type: 'string', 'x-mcp-header': 'User' },
      credential: { type: 'string', 'x-mcp-header': 'Account' },
      private_key: { type: 'string', 'x-mcp-header': 'Pk' },
      passwd: { type: 'string', 'x-mcp-header': 'Word' },
    },
  },
  result: { content: [{ type: 'text', text: 'logged in' }] },
};
const SCENARIO = { extends: 'default', tools: ['echo', LOGIN] };
const ARGS = { user: USER, credential: CREDENTIAL, private_key: PRIVATE_KEY, passwd: PASSWD };

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** Every form a trace could carry a value in: as is, JSON-escaped, Base64. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const v of [CREDENTIAL, PRIVATE_KEY, PASSWD.trim()]) {
    for (const form of [v, JSON.stringify(v).slice(1, -1), b64(v), b64(` ${v}`)]) if (text.includes(form)) found.push(form);
  }
  return found;
}
type Rec = Record<string, any>;
const lines = (file: string): Rec[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);

describe('header copies of body values are redacted by the body verdict', { timeout: 60_000 }, () => {
  it('redactHeaderCopies: a copy of a value the body redaction hides goes, plain or Base64; others stay; an unseen body vouches for none', () => {
    const r = new Redactor({ secrets: ['configured-secret-77'] });
    const changes = (s: string) => r.redactString(s) !== s;
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'login', arguments: { ...ARGS, nested: { passwd: { v: 'deep-value-1' } }, note: 'uses configured-secret-77', n: 42 } } };
    const headers = {
      'mcp-method': 'tools/call',
      'mcp-name': 'login',
      'mcp-param-user': USER,
      'mcp-param-account': CREDENTIAL,
      'mcp-param-pk': `=?base64?${b64(PRIVATE_KEY)}?=`,
      'mcp-param-word': `=?base64?${b64(PASSWD)}?=`,
      'mcp-param-deep': 'deep-value-1',
      'mcp-param-note': 'uses configured-secret-77',
      'mcp-param-n': '42',
    };
    expect(redactHeaderCopies(headers, body, changes)).toEqual({
      'mcp-method': 'tools/call',
      'mcp-name': 'login',
      'mcp-param-user': USER,
      'mcp-param-account': '[redacted]',
      'mcp-param-pk': '[redacted]',
      'mcp-param-word': '[redacted]',
      'mcp-param-deep': '[redacted]',
      'mcp-param-note': '[redacted]',
      'mcp-param-n': '42',
    });
    const clean = { 'mcp-method': 'tools/call', 'mcp-param-user': USER };
    expect(redactHeaderCopies(clean, body, changes)).toBe(clean);
    expect(redactHeaderCopies(headers, undefined, changes)).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-name': '[redacted]', 'mcp-param-user': '[redacted]' });
  });

  it('tap and client traces: the Mcp-Param-* copies of credential, private_key and passwd are redacted, in clear or Base64; a plain one stays', async () => {
    const mock = await startModernHttpMock({ scenario: SCENARIO, stderr: () => {} });
    const tapFile = path.join(dir, 'tap.jsonl');
    const clientFile = path.join(dir, 'client.jsonl');
    const tap = await startHttpTap({ listen: '127.0.0.1:0', upstream: mock.url, trace: tapFile, name: 'modern' });
    let c: McpClient | undefined;
    try {
      c = await connect({ transport: 'http', id: 'modern', url: tap.url }, { timeoutMs: 15_000, trace: clientFile });
      expect(c.era).toBe('modern');
      await c.listTools();
      const r = await c.callTool('login', ARGS);
      expect(r.content).toEqual([{ type: 'text', text: 'logged in' }]);
    } finally {
      await c?.close();
      await tap.close();
      await mock.close();
    }
    // The headers reached the server as sent (the mock checks them against the body: no violation).
    expect(mock.record.violations).toEqual([]);
    const sent = mock.record.http.find((h: Rec) => h.headers['mcp-method'] === 'tools/call')!;
    expect(sent.headers['mcp-param-account']).toBe(CREDENTIAL);
    expect(sent.headers['mcp-param-pk']).toBe(`=?base64?${b64(PRIVATE_KEY)}?=`);
    // The tap's http line of that call: the copies go, the plain user stays readable.
    const http = lines(tapFile).find((l) => l.event === 'transport' && l.type === 'http' && l.headers?.['mcp-method'] === 'tools/call');
    expect(http?.headers).toEqual({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'login',
      'mcp-param-user': USER,
      'mcp-param-account': '[redacted]',
      'mcp-param-pk': '[redacted]',
      'mcp-param-word': '[redacted]',
    });
    expect(leaks(fs.readFileSync(tapFile, 'utf8'))).toEqual([]);
    expect(fs.readFileSync(tapFile, 'utf8')).toContain(USER);
    expect(leaks(fs.readFileSync(clientFile, 'utf8'))).toEqual([]);
  });

  it("serve's trace: a header that disagrees with a credential argument is refused without quoting either value", async () => {
    const config = path.join(dir, 'config.json');
    const traceFile = path.join(dir, 'serve.jsonl');
    const server = { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/modern/stdio-server.mjs')], env: { MOCK_SCENARIO_JSON: JSON.stringify(SCENARIO) } };
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { modern: server } } }));
    const gw = await serveHttp(await loadConfig({ globalPath: config }), { log: () => {}, trace: traceFile });
    let bad: Awaited<ReturnType<typeof post>>;
    try {
      const listBody = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } };
      const list = await post(gw.url, listBody, modernHeaders(listBody));
      const name = (list.response!.result.tools as Rec[]).find((t) => /login/.test(t.name))!.name as string;
      const body = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { passwd: PASSWD.trim() }, _meta: meta() } };
      bad = await post(gw.url, body, modernHeaders(body, { 'Mcp-Param-Word': `x${CREDENTIAL}` }));
    } finally {
      await gw.close();
    }
    const text = fs.readFileSync(traceFile, 'utf8');
    expect(text).toContain('Header mismatch');
    expect(leaks(text)).toEqual([]);
    expect(bad.status).toBe(400);
    expect(bad.response?.error?.code).toBe(-32020);
    expect(bad.response?.error?.message).toMatch(/Mcp-Param-Word header value does not match the body value at passwd/);
    expect(leaks(JSON.stringify(bad.response))).toEqual([]);
  });
});
