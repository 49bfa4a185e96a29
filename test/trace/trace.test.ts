import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import traceCommand from '../../src/cli/commands/trace.js';
import { computeStats, createTracer, formatStats, parseTrace, percentile, readTrace, redact, Redactor, renderShow, traceTarget } from '../../src/trace/index.js';
import type { TraceWarning } from '../../src/trace/index.js';
import { jsonStringBytes, REDACTED } from '../../src/trace/redact.js';
import { sessionTag } from '../../src/trace/tracer.js';
import { resultTypeFor, validateMessage } from '../../src/trace/strict.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-trace-'));
afterAll(() => { if (!process.env.KEEP_TRACE_TMP) rmSync(dir, { recursive: true, force: true }); });
const FIXTURE = 'test/fixtures/trace/sample.jsonl';

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('trace writer: record format', () => {
  it('writes one documented JSON line per message and event, and close() flushes', async () => {
    const file = join(dir, 'nested', 'format.jsonl');
    const tracer = await createTracer({ file, serverId: 'alpha', transport: 'stdio' });
    const request = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo "wörld" 🎉\n' } } };
    const result = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'ok' }] } };
    tracer.message('out', request, { kind: 'request', method: 'tools/call', id: 7 });
    tracer.message('in', result, { kind: 'result', id: 7, latencyMs: 12.3456789, requestMethod: 'tools/call' });
    tracer.setSessionId('sess-1');
    tracer.event({ type: 'lifecycle', from: 'initializing', to: 'ready' });
    tracer.event({ type: 'transport', event: { type: 'exit', pid: 12, code: 0, signal: null } });
    tracer.event({ type: 'diagnostic', code: 'X', message: 'm', server: 'clash', event: 'clash2' });
    await tracer.close();
    tracer.message('out', request, { kind: 'request', method: 'tools/call', id: 8 }); // ignored after close

    const raw = readFileSync(file, 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    for (const line of raw.trim().split('\n')) expect(line).toMatch(/^\{"v":1,"t":\d+\.\d{3},"ts":"\d{4}-\d\d-\d\dT[\d:.]+Z","server":"alpha","transport":"stdio",/);
    const recs = lines(file);
    expect(recs.map((r) => r.event ?? r.kind)).toEqual(['trace-start', 'request', 'result', 'lifecycle', 'transport', 'diagnostic', 'trace-end']);
    const [, req, res, life, tr, diag] = recs;
    expect(Object.keys(req)).toEqual(['v', 't', 'ts', 'server', 'transport', 'dir', 'kind', 'method', 'id', 'bytes', 'msg']);
    expect(req).toMatchObject({ dir: 'out', kind: 'request', method: 'tools/call', id: 7, msg: request });
    expect(req.bytes).toBe(Buffer.byteLength(JSON.stringify(request)));
    expect(Object.keys(res)).toEqual(['v', 't', 'ts', 'server', 'transport', 'dir', 'kind', 'method', 'id', 'bytes', 'latency_ms', 'msg']);
    expect(res).toMatchObject({ dir: 'in', kind: 'result', method: 'tools/call', latency_ms: 12.346, msg: result });
    expect(res.bytes).toBe(Buffer.byteLength(JSON.stringify(result)));
    expect(life).toMatchObject({ session: sessionTag('sess-1'), event: 'lifecycle', from: 'initializing', to: 'ready' });
    expect(life.session).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(tr).toMatchObject({ event: 'transport', type: 'exit', pid: 12, code: 0, signal: null });
    expect(diag).toMatchObject({ event: 'diagnostic', server: 'alpha', server_: 'clash', event_: 'clash2' });
    const ts = recs.map((r) => r.t as number);
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
  });

  it('writes to a destination stream, several tracers can share a file', async () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const t = await createTracer({ destination: stream, serverId: 's', transport: 'memory' });
    t.message('out', { jsonrpc: '2.0', method: 'notifications/initialized' }, { kind: 'notification', method: 'notifications/initialized' });
    await t.close();
    expect(chunks.join('')).toContain('"kind":"notification","method":"notifications/initialized"');

    const file = join(dir, 'shared.jsonl');
    const a = await createTracer({ file, serverId: 'a', transport: 'stdio' });
    const b = await createTracer({ file, serverId: 'b', transport: 'stdio' });
    for (let i = 0; i < 500; i++) {
      a.message('out', { jsonrpc: '2.0', id: i, method: 'ping' }, { kind: 'request', method: 'ping', id: i });
      b.message('out', { jsonrpc: '2.0', id: i, method: 'ping' }, { kind: 'request', method: 'ping', id: i });
    }
    await a.flush();
    await a.close();
    await b.close();
    const recs = lines(file).filter((r) => r.kind === 'request');
    expect(recs.filter((r) => r.server === 'a')).toHaveLength(500);
    expect(recs.filter((r) => r.server === 'b')).toHaveLength(500);
  });

  it('lines are byte for byte what the pino logger of the first version wrote (but t and ts)', async () => {
    const { default: pino } = await import('pino');
    const out = new PassThrough();
    const got: string[] = [];
    out.on('data', (c: Buffer) => got.push(c.toString()));
    const ref = new PassThrough();
    const want: string[] = [];
    ref.on('data', (c: Buffer) => want.push(c.toString()));
    const secrets = ['s3cr3t-value-1'];
    const t = await createTracer({ destination: out, serverId: 'se"rver', transport: 'stdio', secrets });
    let log = pino({ level: 'info', base: { server: 'se"rver', transport: 'stdio' }, timestamp: () => ',"t":0.000,"ts":"X"', messageKey: '__m', errorKey: '__e', formatters: { level: () => ({ v: 1 }) } }, ref);
    const r = new Redactor({ secrets });
    const cases: Array<[Parameters<typeof t.message>[0], unknown, Parameters<typeof t.message>[2]]> = [
      ['out', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, { kind: 'request', method: 'tools/call', id: 1 }],
      ['in', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'é "q" s3cr3t-value-1' }] } }, { kind: 'result', id: 1, latencyMs: 1.23456789, requestMethod: 'tools/call' }],
      ['in', { jsonrpc: '2.0', id: 'x', error: { code: -1, message: 'no' } }, { kind: 'error', id: 'x', latencyMs: 0, requestMethod: 'ping' }],
      ['in', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse' } }, { kind: 'error', id: null }],
      ['in', 'not json {', { kind: 'invalid' }],
      ['in', { jsonrpc: '2.0', id: 5, method: 'sampling/createMessage', params: {} }, { kind: 'request', method: 'sampling/createMessage', id: 5 }],
      ['out', { jsonrpc: '2.0', id: 5, result: { token: 'abc' } }, { kind: 'result', id: 5 }],
      ['out', { jsonrpc: '2.0', method: 'notifications/initialized' }, { kind: 'notification', method: 'notifications/initialized' }],
    ];
    const incoming = new Map<unknown, string>();
    for (const [dir, msg, info] of cases) {
      t.message(dir, msg, info);
      let method = info.method ?? info.requestMethod;
      if (info.kind === 'request' && dir === 'in') incoming.set(info.id, method!);
      if (dir === 'out' && info.kind === 'result' && method === undefined) method = incoming.get(info.id);
      const m = r.redact(msg);
      log.info({ dir, kind: info.kind, method, id: info.id, bytes: r.lastBytes, latency_ms: info.latencyMs !== undefined ? Math.round(info.latencyMs * 1000) / 1000 : undefined, msg: m });
    }
    t.setSessionId('sess s3cr3t-value-1');
    log = log.child({ session: sessionTag('sess s3cr3t-value-1') });
    r.addSecrets(['sess s3cr3t-value-1']);
    t.event({ type: 'lifecycle', from: 'a', to: 'b', v: 9 });
    log.info(r.redact({ event: 'lifecycle', from: 'a', to: 'b', v_: 9 }) as object);
    t.event({ type: 'transport', event: { type: 'exit', pid: 1, code: null, when: new Date(0) } });
    log.info(r.redact({ event: 'transport', type: 'exit', pid: 1, code: null, when: new Date(0) }) as object);
    await t.close();
    const norm = (l: string) => l.replace(/^\{"v":1,"t":[\d.]+,"ts":"[^"]+"/, '{"v":1,"t":0.000,"ts":"X"');
    const gotLines = got.join('').trim().split('\n').map(norm);
    const wantLines = want.join('').trim().split('\n');
    expect(gotLines.slice(1, 1 + wantLines.length)).toEqual(wantLines); // after trace-start
  });

  it('traceTarget: --trace wins over MCPWIRE_TRACE; empty is off', () => {
    expect(traceTarget({ MCPWIRE_TRACE: 'env.jsonl' }, 'cli.jsonl')).toBe('cli.jsonl');
    expect(traceTarget({ MCPWIRE_TRACE: 'env.jsonl' })).toBe('env.jsonl');
    expect(traceTarget({ MCPWIRE_TRACE: '' })).toBeUndefined();
    expect(traceTarget({})).toBeUndefined();
  });

  it('measures JSON byte length exactly without stringifying', () => {
    const samples = ['', 'plain', 'quote " and \\ backslash', 'ctl \u0000\u0001\b\f\n\r\t\u001f', 'é ü ß', '漢字', '🎉 pair', 'lone \ud800 high', 'lone \udc00 low', 'x'.repeat(300), `${'y'.repeat(300)}"`, `${'€'.repeat(400)}`];
    for (const s of samples) expect(jsonStringBytes(s)).toBe(Buffer.byteLength(JSON.stringify(s)));
    const r = new Redactor();
    const values = [null, 1.5, -0, 1e21, true, false, [1, undefined, 'a'], { a: undefined, b: [{}], c: { d: 'é' } }, { n: Number.NaN }];
    for (const v of values) {
      r.redact(v);
      expect(r.lastBytes).toBe(Buffer.byteLength(JSON.stringify(v)));
    }
  });
});

describe('redaction', () => {
  const secrets = {
    envToken: 'ghp_EnvValueSecret123456',
    headerKey: 'hdr-api-key-987654321',
    accessToken: 'eyJhbGciOiJSUzI1NiJ9.access.sig',
    refreshToken: 'rt-2f8d9a7c6b5e4d3c',
    idToken: 'idtok-abcdef-0123',
    clientSecret: 'cs-very-secret-value',
    verifier: 'pkce-verifier-dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    code: 'SplxlOBeZQQYbYS6WxSbIA',
    cookie: 'sid=cookie-session-xyz',
    password: 'hunter2-password!',
    short: 'zq9',
  };
  const configured = [secrets.envToken, secrets.headerKey, secrets.short];

  it('no secret reaches the trace file', async () => {
    const file = join(dir, 'secrets.jsonl');
    const warnings: TraceWarning[] = [];
    const t = await createTracer({ file, serverId: 'gh', transport: 'streamable-http', secrets: configured, onWarning: (w) => warnings.push(w) });
    t.event({ type: 'transport', event: { type: 'spawn', pid: 1, command: `node server.js --token=${secrets.envToken}`, env: { GITHUB_TOKEN: secrets.envToken, OTHER: `prefix-${secrets.envToken}-suffix`, SHORT: secrets.short } } });
    t.event({
      type: 'transport',
      event: {
        type: 'http',
        method: 'POST',
        url: `https://auth.example/callback?code=${secrets.code}&state=xyz`,
        requestHeaders: { Authorization: `Bearer ${secrets.accessToken}`, 'X-API-Key': secrets.headerKey, Cookie: secrets.cookie, 'x-custom': secrets.headerKey },
        responseHeaders: new Headers({ 'set-cookie': secrets.cookie, 'www-authenticate': `Bearer error="invalid_token", token=${secrets.accessToken}` }),
        status: 401,
      },
    });
    t.event({
      type: 'transport',
      event: {
        type: 'oauth-token',
        requestBody: `grant_type=authorization_code&code=${secrets.code}&code_verifier=${secrets.verifier}&client_secret=${secrets.clientSecret}`,
        response: { access_token: secrets.accessToken, token_type: 'Bearer', refresh_token: secrets.refreshToken, id_token: secrets.idToken, expires_in: 3600 },
        rawBody: `{"access_token":"${secrets.accessToken}","refresh_token":"${secrets.refreshToken}"}`,
        pkce: { code_verifier: secrets.verifier, code_challenge_method: 'S256' },
        callback: { code: secrets.code, state: 'abc', iss: 'https://auth.example' },
        form: { client_id: 'x', client_secret: secrets.clientSecret, password: secrets.password },
        url: new URL(`https://auth.example/authorize?response_type=code&code_challenge=abc&access_token=${secrets.accessToken}`),
        error: Object.assign(new Error(`request failed with Authorization: Bearer ${secrets.accessToken}`), { code: 'E' }),
      },
    });
    t.message('out', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'login', arguments: { password: secrets.password, apiKey: secrets.headerKey, note: `use ${secrets.envToken}` } } }, { kind: 'request', method: 'tools/call', id: 1 });
    t.message('in', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `your token is ${secrets.envToken}; open https://x.example/cb?code=${secrets.code}&state=1` }] } }, { kind: 'result', id: 1, requestMethod: 'tools/call' });
    t.event({ type: 'diagnostic', code: 'MCPWIRE_INVALID_MESSAGE', message: 'bad', excerpt: `{"jsonrpc":"2.0","params":{"client_secret":"${secrets.clientSecret}"}}` });
    const cyclic: Record<string, unknown> = { token: secrets.accessToken };
    cyclic.self = cyclic;
    t.event({ type: 'cycle', value: cyclic });
    t.setSessionId(`sess-${secrets.envToken}`);
    t.event({ type: 'lifecycle', from: 'a', to: 'b' });
    await t.close();

    const text = readFileSync(file, 'utf8');
    for (const [name, value] of Object.entries(secrets)) {
      if (name === 'short') continue; // checked below: short values are redacted only on exact match
      expect(text, name).not.toContain(value);
    }
    expect(text).not.toContain(`"${secrets.short}"`);
    expect(text).toContain(REDACTED);
    expect(text).toContain('[circular]');
    expect(warnings).toEqual([]);
    for (const rec of lines(file)) expect(rec.v).toBe(1); // still valid JSON lines
  });

  it('keeps protocol data readable: progressToken, numeric codes, token counts, unchanged messages are not copied', () => {
    const msg = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 'p-1' } } };
    const r = new Redactor({ secrets: ['not-in-there'] });
    expect(r.redact(msg)).toBe(msg);
    const err = { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad' } };
    expect(r.redact(err)).toBe(err);
    const sampling = { model: 'm', usage: { maxTokens: 100, inputTokens: 12 }, stopReason: 'endTurn' };
    expect(redact(sampling)).toEqual(sampling);
  });

  it('truncates very long strings with a marker giving the size, and bounds depth', () => {
    const r = new Redactor({ maxStringBytes: 1024 });
    const big = 'é'.repeat(5000); // 10000 bytes
    const out = r.redact({ data: big }) as { data: string };
    expect(Buffer.byteLength(out.data)).toBeLessThan(1200);
    expect(out.data).toContain('[truncated by mcpwire: 10000 bytes in all]');
    expect(r.lastBytes).toBe(Buffer.byteLength(JSON.stringify({ data: big })));
    // the bound counts bytes, not characters: fewer characters than the bound, more bytes
    const cjk = '漢'.repeat(30_000); // 90,000 bytes, 30,000 characters
    const def = new Redactor();
    const cut = def.redactString(cjk);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(64 * 1024 + 64);
    expect(cut).toContain('[truncated by mcpwire: 90000 bytes in all]');
    const r1 = new Redactor({ maxStringBytes: 1024 });
    expect(r1.redactString('é'.repeat(600))).toContain('[truncated by mcpwire: 1200 bytes in all]');
    expect(r1.redactString('é'.repeat(512))).toBe('é'.repeat(512));
    // a secret straddling the cut is not half-kept
    const r2 = new Redactor({ maxStringBytes: 100, secrets: ['SECRET-STRADDLING-VALUE'] });
    const s = `${'a'.repeat(90)}SECRET-STRADDLING-VALUE${'b'.repeat(200)}`;
    expect(r2.redactString(s)).not.toContain('SECRET-STR');
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 200; i++) deep = (deep.next = {}) as Record<string, unknown>;
    expect(JSON.stringify(new Redactor().redact(root))).toContain('[too deep]');
  });

  it('redactJson: the fast path writes exactly what the full walk + JSON.stringify writes, and the same lastBytes', () => {
    class Thing {
      a = 1;
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = {};
    const deepRoot = deep;
    for (let i = 0; i < 70; i++) deep = (deep.n = {}) as Record<string, unknown>;
    const corpus: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello from the bench client' } } },
      { jsonrpc: '2.0', id: 'a"b', result: { content: [{ type: 'text', text: 'héllo "wörld" 🎉\n\t\u0001 \ud800 \\' }], isError: false } },
      { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found', data: [1, null, undefined, () => 1, Symbol('s'), -0, Number.NaN, Infinity, 1e21, 'x'] } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-1', progress: 1, total: 2, _meta: {} } },
      { a: undefined, b: () => 1, c: [], d: {}, '': '', 'k"ey': 1, '\u2028': 'x', 10: 'int key', 2: 'first' },
      Object.assign(Object.create(null), { x: 1, y: 'two' }),
      { usage: { maxTokens: 100, inputTokens: 12, total_tokens: 5 } },
      // everything the fast path must hand to the full walk:
      { token: 'abc' }, { nested: { apiKey: { v: 1 } } }, { code: 'c0de', state: 's' }, { code: 'c0de' },
      { text: 'url?code=123&state=4' }, { text: 'Authorization: Bearer abc.def' }, { text: '{"access_token": "zzz"}' },
      { text: 'my s3cr3t-value-1 here' }, { 's3cr3t-value-2': 1 }, { v: 'zq9' }, { zq9: 1 }, { text: `x${'y'.repeat(2000)}` },
      { when: new Date(0) }, { m: new Map([['a', 1]]) }, { t: new Thing() }, { j: { toJSON: () => 'J' } }, { b: 10n }, { u8: new Uint8Array(3) },
      cyclic, deepRoot, 'plain string', 'Bearer abcdef', 'zq9', 42, true, null, undefined, [1, 'two', { three: 3 }],
    ];
    const fast = new Redactor({ secrets: ['s3cr3t-value-1', 's3cr3t-value-2', 'zq9'], maxStringBytes: 1024 });
    const slow = new Redactor({ secrets: ['s3cr3t-value-1', 's3cr3t-value-2', 'zq9'], maxStringBytes: 1024 });
    for (const value of corpus) {
      const json = fast.redactJson(value);
      const redacted = slow.redact(value);
      expect(json, typeof value === "object" && value !== null ? Object.keys(value).join() : String(value)).toBe(redacted === undefined ? undefined : JSON.stringify(redacted));
      expect(fast.lastBytes).toBe(slow.lastBytes);
    }
    // twice: the caches give the same answers
    for (const value of corpus) expect(fast.redactJson(value)).toBe(JSON.stringify(slow.redact(value)));
  });

  // Its speed is measured by scripts/trace-bench.mjs (no wall-clock bounds in tests: CI is a
  // loaded 2-core machine). What keeps it cheap is checked here: nothing is copied when there is
  // nothing to redact.
  it('is cheap: a message with nothing to redact comes back as the same object, not a copy', () => {
    const r = new Redactor({ secrets: ['s3cr3t-value-1', 's3cr3t-value-2'] });
    const msg = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hello world' }], structuredContent: { a: 1, b: 'two' } } };
    const out = r.redact(msg) as typeof msg;
    expect(out).toBe(msg);
    expect(out.result).toBe(msg.result);
    const leaky = { ...msg, result: { ...msg.result, structuredContent: { a: 1, b: 'two s3cr3t-value-1' } } };
    const red = r.redact(leaky) as typeof leaky;
    expect(red).not.toBe(leaky);
    expect(red.result.content).toBe(leaky.result.content); // untouched branches are shared
    expect(JSON.stringify(red)).not.toContain('s3cr3t-value-1');
  });
});

describe('strict mode', () => {
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpwire', version: '0.1.0' } } };
  const initResult = { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } };
  const toolsResult = { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } };

  it('builds the method → result type table from the schema', () => {
    expect(resultTypeFor('tools/list')).toBe('ListToolsResult');
    expect(resultTypeFor('initialize')).toBe('InitializeResult');
    expect(resultTypeFor('tools/call')).toBe('CallToolResult');
    expect(resultTypeFor('roots/list')).toBe('ListRootsResult');
    expect(resultTypeFor('ping')).toBe('EmptyResult');
  });

  it('valid messages in both directions pass', () => {
    expect(validateMessage('out', init, { kind: 'request' })).toEqual([]);
    expect(validateMessage('in', initResult, { kind: 'result', requestMethod: 'initialize' })).toEqual([]);
    expect(validateMessage('out', { jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual([]);
    expect(validateMessage('in', toolsResult, { requestMethod: 'tools/list' })).toEqual([]);
    expect(validateMessage('in', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'x' }] } }, { requestMethod: 'tools/call' })).toEqual([]);
    expect(validateMessage('in', { jsonrpc: '2.0', id: 'a', method: 'roots/list' })).toEqual([]);
    expect(validateMessage('out', { jsonrpc: '2.0', id: 'a', result: { roots: [{ uri: 'file:///w' }] } }, { requestMethod: 'roots/list' })).toEqual([]);
    expect(validateMessage('in', { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'nope' } })).toEqual([]);
    expect(validateMessage('in', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 0.5 } })).toEqual([]);
  });

  it('detects malformed messages in both directions', () => {
    const noJsonrpc = validateMessage('out', { id: 1, method: 'tools/list' });
    expect(noJsonrpc).toContainEqual(expect.objectContaining({ dir: 'out', keyword: 'required', instancePath: '', params: { missingProperty: 'jsonrpc' } }));
    const noJsonrpcResult = validateMessage('in', { id: 1, result: {} }, { requestMethod: 'ping' });
    expect(noJsonrpcResult).toContainEqual(expect.objectContaining({ dir: 'in', keyword: 'required', params: { missingProperty: 'jsonrpc' } }));

    const wrongTypes = validateMessage('out', { jsonrpc: '2.0', id: true, method: 'tools/call', params: { name: 42 } });
    expect(wrongTypes.map((v) => v.instancePath)).toEqual(expect.arrayContaining(['/id', '/params/name']));

    const noSchema = validateMessage('in', { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo' }] } }, { requestMethod: 'tools/list' });
    expect(noSchema).toEqual([
      expect.objectContaining({ dir: 'in', kind: 'result', method: 'tools/list', id: 1, schemaType: 'ListToolsResult', instancePath: '/result/tools/0', keyword: 'required', schemaPath: '#/$defs/Tool/required', params: { missingProperty: 'inputSchema' } }),
    ]);

    const badVersion = validateMessage('in', { ...initResult, result: { ...initResult.result, protocolVersion: 20251125 } }, { requestMethod: 'initialize' });
    expect(badVersion).toContainEqual(expect.objectContaining({ instancePath: '/result/protocolVersion', keyword: 'type', schemaType: 'InitializeResult' }));

    const unknown = validateMessage('in', { jsonrpc: '2.0', id: 9, method: 'tools/list' }); // a server may not send tools/list
    expect(unknown).toContainEqual(expect.objectContaining({ keyword: 'anyOf', instancePath: '/method', schemaType: 'ServerRequest' }));
    expect(validateMessage('in', 'garbage')).not.toEqual([]);
  });

  it('tracer in strict mode records schema events and warns, never throws', async () => {
    const file = join(dir, 'strict.jsonl');
    const warnings: TraceWarning[] = [];
    const t = await createTracer({ file, serverId: 'srv', transport: 'stdio', strict: true, onWarning: (w) => warnings.push(w) });
    t.message('out', init, { kind: 'request', method: 'initialize', id: 0 });
    t.message('in', { ...initResult, result: { ...initResult.result, protocolVersion: 1 } }, { kind: 'result', id: 0, requestMethod: 'initialize', latencyMs: 1 });
    // answers to server requests are checked against the specific type too (id tracked by the tracer)
    t.message('in', { jsonrpc: '2.0', id: 's1', method: 'roots/list' }, { kind: 'request', method: 'roots/list', id: 's1' });
    t.message('out', { jsonrpc: '2.0', id: 's1', result: { roots: [{ name: 'no uri' }] } }, { kind: 'result', id: 's1' });
    t.message('in', { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'x' }] } }, { kind: 'result', id: 1, requestMethod: 'tools/list' });
    await t.close();
    const schema = lines(file).filter((r) => r.event === 'schema');
    expect(schema.map((r) => [r.dir, r.method, r.instancePath, r.keyword])).toEqual([
      ['in', 'initialize', '/result/protocolVersion', 'type'],
      ['out', 'roots/list', '/result/roots/0', 'required'],
      ['in', 'tools/list', '/result/tools/0', 'required'],
    ]);
    expect(schema[0]).toMatchObject({ id: 0, schemaPath: expect.stringContaining('protocolVersion'), message: 'must be string' });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatchObject({ type: 'schema', server: 'srv', dir: 'in' });
  });
});

describe('reading traces: show, stats, CLI', () => {
  it('parses and tolerates a truncated last line', () => {
    const good = readFileSync(FIXTURE, 'utf8');
    const parsed = parseTrace(`${good}{"v":1,"t":99.1,"ts":"2026`);
    expect(parsed.truncated).toBe(true);
    expect(parsed.badLines).toEqual([]);
    expect(parsed.records).toHaveLength(good.trim().split('\n').length);
    expect(parseTrace('not json\n{"x":1}\n').badLines).toEqual([1, 2]);
  });

  it('show: a timeline with pairs, latency and events; colors only when asked', async () => {
    const { records } = await readTrace(FIXTURE);
    const plain = renderShow(records);
    expect(plain).not.toMatch(/\x1b\[/);
    const out = plain.split('\n');
    expect(out).toHaveLength(records.length);
    expect(plain).toMatch(/→ request\s+initialize #0 .*\(answered in 3\.200 ms\)/);
    expect(plain).toMatch(/← result\s+initialize #0 .*3\.200 ms/);
    expect(plain).toMatch(/← error\s+tools\/call #2 .*-32602 Unknown tool: fetch .*1\.300 ms/);
    expect(plain).toMatch(/→ request\s+resources\/read #3 .*\(no response\)/);
    expect(plain).toMatch(/• timeout\s+resources\/read #3 after 50 ms/);
    expect(plain).toMatch(/• lifecycle\s+idle → initializing/);
    expect(renderShow(records, { color: true })).toMatch(/\x1b\[36m/);
    const evil = renderShow([{ v: 1, t: 1, ts: 'x', server: 's\x1b[31m', transport: 'stdio', event: 'diagnostic', code: 'C', message: 'evil \x1b]0;title\x07 text' }]);
    expect(evil).not.toContain('\x1b');
  });

  it('stats: count, errors and nearest-rank percentiles per method', async () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    expect(percentile([], 50)).toBeUndefined();
    const { records } = await readTrace(FIXTURE);
    const stats = computeStats(records);
    const row = (server: string, method: string) => stats.methods.find((m) => m.server === server && m.method === method);
    expect(row('web<script>', 'tools/call')).toMatchObject({ count: 1, errors: 1, p50: 1.3, p99: 1.3 });
    expect(row('files', 'resources/read')).toMatchObject({ count: 1, unanswered: 1 });
    expect(row('files', 'roots/list')).toMatchObject({ dir: 'in', count: 1 });
    expect(row('files', 'notifications/progress')).toMatchObject({ kind: 'notification', count: 1 });
    expect(formatStats(stats)).toMatch(/files\s+c→s\s+initialize\s+1\s+0\s+0\s+3\.200/);

    const synthetic = Array.from({ length: 100 }, (_, i) => [
      { v: 1, t: i * 10, ts: '', server: 's', transport: 't', dir: 'out' as const, kind: 'request' as const, method: 'ping', id: i, bytes: 1, msg: {} },
      { v: 1, t: i * 10 + i + 1, ts: '', server: 's', transport: 't', dir: 'in' as const, kind: 'result' as const, method: 'ping', id: i, bytes: 1, msg: {} },
    ]).flat();
    expect(computeStats(synthetic).methods[0]).toMatchObject({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
  });

  it('CLI: show/stats --json/html, exit codes', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await traceCommand(['stats', FIXTURE, '--json'])).toBe(0);
      const json = JSON.parse(String(out.mock.calls.at(-1)![0])) as { messages: number; methods: unknown[] };
      expect(json.messages).toBe(16);
      expect(await traceCommand(['show', FIXTURE, '--color'])).toBe(0);
      expect(String(out.mock.calls.at(-1)![0])).toContain('\x1b[');
      expect(await traceCommand(['show', FIXTURE])).toBe(0);
      expect(String(out.mock.calls.at(-1)![0])).not.toContain('\x1b[');
      const html = join(dir, 'out.html');
      expect(await traceCommand(['html', FIXTURE, '-o', html])).toBe(0);
      expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/);
      expect(await traceCommand(['show'])).toBe(2);
      expect(await traceCommand(['frob', FIXTURE])).toBe(2);
      expect(await traceCommand(['show', join(dir, 'missing.jsonl')])).toBe(1);
      const truncated = join(dir, 'truncated.jsonl');
      writeFileSync(truncated, `${readFileSync(FIXTURE, 'utf8')}{"v":1,"t":`);
      expect(await traceCommand(['stats', truncated])).toBe(0);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).toContain('last line is truncated');
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});

describe('no secret leaks into a trace', () => {
  it('the session id is written as a short hash that still correlates the lines of one session', async () => {
    const file = join(dir, 'session-hash.jsonl');
    const sid = 'c0ffee00-1234-4abc-8def-0123456789ab';
    const other = 'deadbeef-9999-4abc-8def-ba9876543210';
    const t = await createTracer({ file, serverId: 'h', transport: 'streamable-http' });
    // the transport's own event names a head of the id: not written either
    t.event({ type: 'transport', event: { type: 'session', sessionId: `${sid.slice(0, 8)}…` } });
    t.setSessionId(sid);
    t.event({ type: 'lifecycle', from: 'initializing', to: 'ready' });
    // a server echoing the session id does not leak it either
    t.message('in', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `your session is ${sid}` }] } }, { kind: 'result', id: 1, requestMethod: 'tools/call' });
    t.setSessionId(other);
    t.event({ type: 'lifecycle', from: 'ready', to: 'ready' });
    await t.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(sid);
    expect(text).not.toContain(sid.slice(0, 8));
    expect(text).not.toContain(other);
    const recs = lines(file);
    const { createHash } = await import('node:crypto');
    const tag = (id: string) => `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
    expect(recs[1]).toMatchObject({ event: 'transport', type: 'session' });
    expect(recs[2].session).toBe(tag(sid));
    expect(recs[3].session).toBe(tag(sid));
    expect(recs[4].session).toBe(tag(other));
    expect(recs[2].session).not.toBe(recs[4].session);
  });

  it('the credential part of every auth scheme and the derived forms of every value are redacted', () => {
    const bearer = 'brr-7d2c9e4f1a';
    const token = 'tok-5b8e1c7d3f';
    const user = 'alice';
    const pass = 'p@ss:w0rd/+"x';
    const basic = Buffer.from(`${user}:${pass}`).toString('base64');
    const digestResponse = '6629fae49393a05397450978507c4ef1';
    const envValue = 'env value with spaces & "quotes"';
    const r = new Redactor({
      secrets: [`Bearer ${bearer}`, `Token ${token}`, `Basic ${basic}`, `Digest username="${user}", realm="r", nonce="n0nce-abc123", response="${digestResponse}"`, envValue, 'tiny', 'xy'],
    });
    const forms: Record<string, string> = {
      bearer,
      token,
      basic,
      'basic user:pass': `${user}:${pass}`,
      'basic password': pass,
      'basic password url-encoded': encodeURIComponent(pass),
      'basic password json-escaped': JSON.stringify(pass).slice(1, -1),
      'basic base64url': Buffer.from(`${user}:${pass}`).toString('base64url'),
      digestResponse,
      env: envValue,
      'env url-encoded': encodeURIComponent(envValue),
      'env form-encoded': encodeURIComponent(envValue).replace(/%20/g, '+'),
      'env json-escaped': JSON.stringify(envValue).slice(1, -1),
      'env base64': Buffer.from(envValue).toString('base64').replace(/=+$/, ''),
      'bearer url-encoded': encodeURIComponent(bearer),
    };
    for (const [name, form] of Object.entries(forms)) {
      const out = r.redactString(`echo: <${form}> end`);
      expect(out, name).not.toContain(form);
      expect(out, name).toContain(REDACTED);
    }
    // short values (under 6 characters) only on exact match: documented threshold
    expect(r.redactString('tiny')).toBe(REDACTED);
    expect(r.redactString('a tiny thing')).toBe('a tiny thing');
    expect(r.redactString('xy')).toBe(REDACTED);
    // the scheme names and ordinary words stay readable
    expect(r.redactString('the Bearer scheme')).toContain('Bearer');
    // a text cut short (an excerpt, a capped message) right inside a secret keeps none of its head
    const cut = r.redactString(`body: token ${token.slice(0, 9)}… (300 chars)`);
    expect(cut).not.toContain(token.slice(0, 9));
    expect(cut).toBe(`body: token ${REDACTED}… (300 chars)`);
    expect(r.redactString('nothing secret here… really')).toBe('nothing secret here… really');
  });

  it('configSecrets takes the env and header values that are credentials (by name or shape) and the credentials of the URL, not the rest', async () => {
    const { configSecrets } = await import('../../src/mcp/client.js');
    const stdio = configSecrets({ transport: 'stdio', id: 's', command: 'x', env: { API_TOKEN: 'env-secret-1', MODE: 'development', UPSTREAM: 'sk-abcdef123456', EMPTY: '' } });
    expect(stdio).toEqual(['env-secret-1', 'sk-abcdef123456']);
    const http = configSecrets({ transport: 'http', id: 'h', url: 'https://user:url-pass-123@h.example/mcp?key=qk-123456&sig=sg-654321&page=2', headers: { Authorization: 'Bearer hb-123456', 'X-Workspace': 'codelia' } });
    for (const s of ['Bearer hb-123456', 'url-pass-123', 'qk-123456', 'sg-654321']) expect(http).toContain(s);
    expect(http).not.toContain('codelia');
    expect(http).not.toContain('2');
    expect(http.some((s) => s.includes('h.example'))).toBe(false); // the URL itself stays readable
  });

  it('trace files are created 0600 and an existing file keeps its mode', async () => {
    if (process.platform === 'win32') return;
    const { statSync, chmodSync } = await import('node:fs');
    const file = join(dir, 'mode', 'new.jsonl');
    const t = await createTracer({ file, serverId: 'm', transport: 'stdio' });
    await t.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const existing = join(dir, 'mode', 'existing.jsonl');
    writeFileSync(existing, '');
    chmodSync(existing, 0o640);
    const t2 = await createTracer({ file: existing, serverId: 'm', transport: 'stdio' });
    await t2.close();
    expect(statSync(existing).mode & 0o777).toBe(0o640);
  });

  it('Authorization: Token, URL user info, *_SECRET_*/_TOKEN assignments and sensitive query values', () => {
    const r = new Redactor();
    const cases: Array<[string, string, string]> = [
      ['Authorization: Token tk-9a8b7c6d5e', 'tk-9a8b7c6d5e', 'Authorization: Token'],
      ['proxy-authorization: Digest username="bob", response="abcdef0123456789"', 'abcdef0123456789', 'proxy-authorization: Digest'],
      ['authorization: rawcredential12345', 'rawcredential12345', 'authorization:'],
      ['connect postgres://admin:pg-pass-4242@db.example:5432/app failed', 'pg-pass-4242', 'postgres://admin:'],
      ['clone https://ghp_abcdefghijklmnop1234@github.com/x/y', 'ghp_abcdefghijklmnop1234', 'github.com/x/y'],
      ['MY_SECRET_THING=s3-value-xyz', 's3-value-xyz', 'MY_SECRET_THING='],
      ['export GITHUB_TOKEN="ghp-tok-value-1"', 'ghp-tok-value-1', 'GITHUB_TOKEN='],
      ["{ DB_PASSWORD: 'dbpw-value-77', PATH: '/usr/bin' }", 'dbpw-value-77', '/usr/bin'],
      ['OPENAI_API_KEY=sk-test-abcdef', 'sk-test-abcdef', 'OPENAI_API_KEY='],
      ['{"AWS_SECRET_ACCESS_KEY":"aws-sk-value-9"}', 'aws-sk-value-9', 'AWS_SECRET_ACCESS_KEY'],
      ['GET https://h.example/mcp?key=qkey-1111&sig=qsig-2222&api-key=qapi-3333&page=7', 'qkey-1111|qsig-2222|qapi-3333', 'page=7'],
      ['https://b.example/o?X-Amz-Signature=amzsig-4444&X-Amz-Credential=amzcred-5555&x=1', 'amzsig-4444|amzcred-5555', 'x=1'],
      // an HTTP body excerpt writes newlines as \u000a
      ['HTTP 500: FATAL\\u000aSERVICE_TOKEN=svc-tok-1234\\u000aNEXT=1', 'svc-tok-1234', '\\u000aNEXT=1'],
    ];
    for (const [input, secrets, kept] of cases) {
      const out = r.redactString(input);
      for (const s of secrets.split('|')) expect(out, input).not.toContain(s);
      expect(out, input).toContain(kept);
      expect(out, input).toContain(REDACTED);
    }
    // protocol fields and counts are not assignments of secrets
    for (const s of ['progressToken: 7', 'maxTokens=100', 'token_type: Bearer', 'https://h.example/mcp?page=2&cursor=abc']) expect(r.redactString(s)).toBe(s);
  });
});
