// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The client on the 2026-07-28 wire over stdio (eras/modern.ts): discovery, the `_meta` of
 * every request, `resultType`, the era's errors — against the scripted modern mock
 * (mock-servers/modern/stdio-server.mjs) in real child processes, whose recording of what it
 * received is the proof.
 */
import { describe, expect, it } from 'vitest';
import { JsonRpcError, ProtocolError } from '../../src/index.js';
import { ResourceNotFoundError, UnsupportedProtocolVersionError, MissingRequiredClientCapabilityError } from '../../src/mcp/eras/modern-errors.js';
import { CAPS, INFO, LEVEL, recordedMocks, V } from '../support/recorded-mock.js';

const { mock, open } = recordedMocks('era-modern-');

/** A modern mock (a scenario object, or a named scenario): its config, and every message it received so far. */
const modernMock = (scenario?: object | string) => mock({ scenario });

describe('the modern era over stdio', () => {
  it('basic#44/basic#47: every request carries protocolVersion, clientCapabilities and clientInfo in _meta; discovery picks 2026-07-28', async () => {
    const m = modernMock();
    const c = await open(m.config, { clientInfo: { name: 'era-test', version: '1.2.3' }, onElicitation: async () => ({ action: 'decline' }) });
    expect(c.era).toBe('modern');
    expect(c.protocolVersion).toBe('2026-07-28');
    expect(c.serverInfo?.name).toBe('mcpwire-modern-mock');
    expect(c.serverCapabilities?.tools).toBeDefined();
    await c.listTools();
    await c.callTool('echo', { text: 'hi' }, { _meta: { 'com.example/own': 1 } });
    await c.readResource((await c.listResources())[0]!.uri);
    const got = m.received().filter((r) => r.id !== undefined);
    expect(got.map((r) => r.method)).toEqual(['server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read']);
    for (const r of got) {
      expect(r.params._meta[V]).toBe('2026-07-28');
      expect(r.params._meta[CAPS]).toEqual({ elicitation: { form: {} } });
      expect(r.params._meta[INFO]).toEqual({ name: 'era-test', version: '1.2.3' });
    }
    // the caller's own _meta keys travel beside the era's
    expect(got[2]!.params._meta['com.example/own']).toBe(1);
    expect(m.received().some((r) => r.method === 'initialize')).toBe(false);
  });

  it('basic#11: a result without resultType is complete; basic#10: an unknown resultType is invalid (a ProtocolError)', async () => {
    const m = modernMock('result-types');
    const c = await open(m.config);
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const err = await c.callTool('echo', { text: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('MCPWIRE_BAD_RESULT_TYPE');
    expect((err as Error).message).toMatch(/deferred/);
  });

  it('basic.versioning#2: a server that supports no version the client speaks is an error naming its versions — never a fallback to initialize', async () => {
    const m = modernMock({ extends: 'default', protocolVersions: ['2099-01-01'] });
    const err = await open(m.config).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as Error).message).toMatch(/2099-01-01/);
    expect((err as ProtocolError).code).toBe('MCPWIRE_UNSUPPORTED_VERSION');
    expect(((err as Error).cause as unknown) instanceof UnsupportedProtocolVersionError).toBe(true);
    expect(m.received().map((r) => r.method)).not.toContain('initialize');
  });

  it('a resource not found (-32602 in 2026-07-28) is a ResourceNotFoundError, still a JsonRpcError with its code', async () => {
    const m = modernMock();
    const c = await open(m.config);
    const err = await c.readResource('file:///nowhere.txt').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceNotFoundError);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as ResourceNotFoundError).rpcCode).toBe(-32602);
    expect((err as ResourceNotFoundError).uri).toBe('file:///nowhere.txt');
  });

  it('-32021 is a MissingRequiredClientCapabilityError listing what the server needs', async () => {
    const m = modernMock();
    const c = await open(m.config);
    const err = await c.callTool('confirm', { message: 'ok?' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingRequiredClientCapabilityError);
    expect((err as MissingRequiredClientCapabilityError).requiredCapabilities).toEqual({ elicitation: {} });
  });

  it('the log level travels on every later request (io.modelcontextprotocol/logLevel); no logging/setLevel is sent', async () => {
    const m = modernMock();
    const c = await open(m.config);
    const logs: unknown[] = [];
    c.on('log', (p) => logs.push(p));
    await c.setLoggingLevel('info');
    const r = await c.callTool('log', { level: 'warning', data: 'careful' });
    expect(JSON.stringify(r.content)).toMatch(/logged/);
    const sent = m.received();
    expect(sent.map((x) => x.method)).not.toContain('logging/setLevel');
    expect(sent.find((x) => x.method === 'tools/call')!.params._meta[LEVEL]).toBe('info');
    expect(logs.length).toBe(1);
  });

  it('ping() and the health check send server/discover (2026-07-28 has no ping) and are answered', async () => {
    const m = modernMock();
    const c = await open(m.config, { pingIntervalMs: 100 });
    await c.ping();
    const until = Date.now() + 10_000;
    while (m.received().filter((r) => r.method === 'server/discover').length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(m.received().filter((r) => r.method === 'server/discover').length).toBeGreaterThanOrEqual(3);
    expect(m.received().map((r) => r.method)).not.toContain('ping');
    expect(c.state).toBe('ready');
  });

  it('basic.patterns.cancellation#5, basic.transports.stdio#9: progress of a request arrives on it; an aborted call sends notifications/cancelled naming it', async () => {
    const m = modernMock();
    const c = await open(m.config);
    const seen: number[] = [];
    await c.callTool('progress', { steps: 3, intervalMs: 5 }, { onProgress: (p) => seen.push(p.progress) });
    // (the engine may coalesce progress that arrives faster than its reporting interval)
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(m.received().find((r) => r.method === 'tools/call' && r.params.name === 'progress')!.params._meta.progressToken).toBeDefined();
    const ac = new AbortController();
    const slow = c.callTool('slow', { ms: 60_000 }, { signal: ac.signal });
    const until = Date.now() + 10_000;
    while (!m.received().some((r) => r.method === 'tools/call' && r.params.name === 'slow') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await expect(slow).rejects.toThrow();
    const id = m.received().find((r) => r.method === 'tools/call' && r.params.name === 'slow')!.id;
    const until2 = Date.now() + 10_000;
    while (!m.received().some((r) => r.method === 'notifications/cancelled') && Date.now() < until2) await new Promise((r) => setTimeout(r, 20));
    expect(m.received().find((r) => r.method === 'notifications/cancelled')!.params.requestId).toBe(id);
  });
});
