/**
 * basic/lifecycle — initialization, version negotiation, operation, shutdown, timeouts — proved
 * against the scripted mock server over real child processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  CapabilityError,
  ConfigError,
  ConnectionClosedError,
  McpClient,
  ProtocolError,
  StateError,
  TimeoutError,
} from '../src/index.js';
import { closeAll, removeMockDirs, connectMock, isAlive, mock, track, until } from './support/mock.js';

afterEach(closeAll);
afterAll(removeMockDirs);

const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-lifecycle-'));
afterAll(() => fs.rmSync(traceDir, { recursive: true, force: true }));
let traces = 0;
const traceFile = () => path.join(traceDir, `t${++traces}.jsonl`);

/** How the server process ended, from the trace: the transport's `signal` and `exit` events in order. */
async function endOfProcess(file: string): Promise<Array<{ type: string; signal?: string | null; code?: number | null }>> {
  await until(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"type":"exit"'), 'the exit in the trace');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event?: string; type?: string; signal?: string | null; code?: number | null })
    .filter((e) => e.event === 'transport' && (e.type === 'signal' || e.type === 'exit'))
    .map((e) => (e.type === 'exit' ? { type: 'exit', code: e.code, signal: e.signal } : { type: 'signal', signal: e.signal }));
}

describe('basic/lifecycle: initialization', () => {
  it('basic.lifecycle#1/#2/#4/#7/#8: initialize with the latest version, clientInfo and capabilities, then notifications/initialized', async () => {
    const m = mock();
    const client = await connectMock(m, { clientInfo: { name: 'tester', version: '9.9.9', title: 'Tester' } });
    expect(client.state).toBe('ready');
    // a dual-era client probes a stdio server with server/discover first (2026-07-28 server.discover#2); the handshake follows
    const handshake = () => m.received().filter((r) => r.method !== 'server/discover');
    await until(() => handshake().length >= 2, 'notifications/initialized to arrive');
    const got = handshake();
    expect(got[0].method).toBe('initialize');
    expect(got[0].params.protocolVersion).toBe('2025-11-25');
    expect(got[0].params.clientInfo).toEqual({ name: 'tester', version: '9.9.9', title: 'Tester' });
    expect(got[0].params.capabilities).toEqual({});
    expect(got[1].method).toBe('notifications/initialized');
    expect(client.serverInfo?.name).toBe('mcpwire-mock');
    expect(client.instructions).toMatch(/scripted mock/);
    expect(client.serverCapabilities?.tools).toBeDefined();
  });

  it('declares client capabilities only for what it handles (roots, sampling, elicitation)', async () => {
    const m = mock();
    await connectMock(m, {
      roots: [{ uri: 'file:///work', name: 'work' }],
      onSampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }),
      onElicitation: async () => ({ action: 'decline' }),
    });
    expect(m.received().find((r) => r.method === 'initialize')!.params.capabilities).toEqual({ roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } });
  });

  it('basic.lifecycle#12: only a version the client does not support is refused: an older supported one in the answer is accepted', async () => {
    const m = mock({ extends: 'default', protocolVersions: ['2025-06-18'] });
    const client = await connectMock(m);
    expect(client.protocolVersion).toBe('2025-06-18');
  });

  it('basic.lifecycle#12: an unsupported version in the answer is refused, with a clear error, and the server is shut down', async () => {
    const m = mock('bad-version');
    const client = track(new McpClient(m.config, { timeoutMs: 10_000 }));
    const err = await client.connect().catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.code).toBe('MCPWIRE_UNSUPPORTED_VERSION');
    expect(err.message).toMatch(/"1999-01-01"/);
    expect(err.message).toMatch(/2025-11-25/);
    expect(err.phase).toBe('initialize');
    expect(err.serverId).toBe('mock');
    expect(client.state).toBe('failed');
    await until(() => client.pid === undefined || !isAlive(client.pid), 'the server process to be reaped');
    // It never reached ready, so it never said initialized.
    expect(m.received().map((x) => x.method)).not.toContain('notifications/initialized');
  });

  it('a protocolVersion option the client does not support is refused locally, before anything is spawned (basic.lifecycle#7)', async () => {
    const m = mock();
    let started = 0;
    const fakeTransport = {
      kind: 'memory',
      start: async () => {
        started++;
      },
      send: async () => {
        started++;
      },
      close: async () => {},
    };
    for (const options of [{ transport: fakeTransport }, {}]) {
      const client = track(new McpClient(m.config, { timeoutMs: 10_000, protocolVersion: '1999-01-01', ...options }));
      const err = await client.connect().catch((e) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.field).toBe('protocolVersion');
      expect(err.message).toMatch(/"1999-01-01"/);
      for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) expect(err.message).toContain(v);
      expect(err.phase).toBe('config');
      expect(client.pid).toBeUndefined();
    }
    expect(started).toBe(0);
    // The stdio server was never spawned: it received nothing.
    expect(m.received()).toEqual([]);
  });

  it('a supported older protocolVersion option is sent as asked (basic.lifecycle#7/#8)', async () => {
    const m = mock();
    const client = await connectMock(m, { protocolVersion: '2025-06-18' });
    expect(m.received()[0].params.protocolVersion).toBe('2025-06-18');
    expect(client.protocolVersion).toBe('2025-06-18');
  });

  it('a server that exits at start: the error names the server, the initialize phase, the exit code and stderr', async () => {
    const m = mock('crash-on-start', 'db');
    const err = await connectMock(m).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(err.serverId).toBe('db');
    expect(err.phase).toBe('initialize');
    expect(err.exitCode).toBe(3);
    expect(err.stderrTail).toContain('fatal: could not open the database');
    expect(err.message).toContain('exited with code 3');
  });

  it('basic.lifecycle#5: before initialization completes, only ping may be sent', async () => {
    const m = mock({ extends: 'default', behavior: { onInitialize: { delayMs: 300 } } });
    const client = track(new McpClient(m.config, { timeoutMs: 10_000 }));
    // Before connect: nothing at all.
    await expect(client.listTools()).rejects.toBeInstanceOf(StateError);
    const connecting = client.connect();
    await until(() => client.state === 'initializing', 'initializing');
    const refused = await client.listTools().catch((e) => e);
    expect(refused).toBeInstanceOf(StateError);
    expect(refused.message).toMatch(/only ping is allowed/);
    const ping = client.ping();
    await connecting;
    await ping;
    expect(m.received().filter((x) => x.method === 'tools/list')).toEqual([]);
  });

  it('a request for a capability the server did not declare fails locally and is not sent', async () => {
    const m = mock({ serverInfo: { name: 'bare', version: '1' }, tools: ['echo'], logging: false });
    const client = await connectMock(m);
    expect(client.serverCapabilities?.prompts).toBeUndefined();
    const err = await client.listPrompts().catch((e) => e);
    expect(err).toBeInstanceOf(CapabilityError);
    expect(err.message).toMatch(/did not declare the "prompts" capability/);
    await expect(client.setLoggingLevel('info')).rejects.toBeInstanceOf(CapabilityError);
    await expect(client.subscribeResource('mem://x')).rejects.toBeInstanceOf(CapabilityError);
    const sent = m.received().map((x) => x.method);
    expect(sent).not.toContain('prompts/list');
    expect(sent).not.toContain('logging/setLevel');
    expect(sent).not.toContain('resources/subscribe');
  });
});

describe('basic/lifecycle: timeouts and shutdown', () => {
  it('basic.lifecycle#16/#17/#18: a per-request timeout rejects with TimeoutError and sends notifications/cancelled', async () => {
    const m = mock();
    const client = await connectMock(m);
    const err = await client.callTool('never', {}, { timeoutMs: 200 }).catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(200);
    expect(client.pendingCount).toBe(0);
    const call = m.received().find((x) => x.method === 'tools/call')!;
    await until(() => m.received().some((x) => x.method === 'notifications/cancelled'), 'notifications/cancelled');
    const cancel = m.received().find((x) => x.method === 'notifications/cancelled')!;
    expect(cancel.params.requestId).toBe(call.id);
    expect(cancel.params.reason).toMatch(/timed out after 200 ms/);
  });

  it('basic.lifecycle#15: close() closes the server\'s stdin and the server exits on its own (no signal); no child process remains', async () => {
    const m = mock();
    const file = traceFile();
    const client = await connectMock(m, { trace: { file } });
    const pid = client.pid!;
    expect(isAlive(pid)).toBe(true);
    await client.close();
    expect(client.state).toBe('closed');
    expect(isAlive(pid)).toBe(false);
    // A client that signalled first (or only) would show a signal here.
    expect(await endOfProcess(file)).toEqual([{ type: 'exit', code: 0, signal: null }]);
  });

  it('basic.lifecycle#15: a server ignoring stdin close and SIGTERM gets SIGTERM, then SIGKILL, in that order', async () => {
    const m = mock('stubborn');
    const file = traceFile();
    const client = await connectMock(m, { shutdown: { stdinCloseWaitMs: 200, sigtermWaitMs: 200 }, trace: { file } });
    const pid = client.pid!;
    await client.close();
    expect(isAlive(pid)).toBe(false);
    expect(await endOfProcess(file)).toEqual([
      { type: 'signal', signal: 'SIGTERM' },
      { type: 'signal', signal: 'SIGKILL' },
      { type: 'exit', code: null, signal: 'SIGKILL' },
    ]);
  });

  it('a crash mid-call rejects every pending request with the exit code and stderr tail, and the state becomes failed', async () => {
    const m = mock('misbehaving-tools');
    const client = await connectMock(m);
    const closed = new Promise<Error | undefined>((r) => client.once('close', r));
    const pending = [client.callTool('silent'), client.callTool('late'), client.callTool('dies')].map((p) => p.catch((e) => e));
    const errs = await Promise.all(pending);
    for (const e of errs) {
      expect(e).toBeInstanceOf(ConnectionClosedError);
      expect(e.exitCode).toBe(7);
      expect(e.stderrTail).toContain('segfault (not really)');
      expect(e.serverId).toBe('mock');
    }
    expect(await closed).toBeInstanceOf(ConnectionClosedError);
    expect(client.state).toBe('failed');
    expect(client.pendingCount).toBe(0);
    await expect(client.callTool('echo', { text: 'x' })).rejects.toBeInstanceOf(StateError);
  });

  it('basic.utilities.ping#2/#3: keepalive pings go out at the configured interval while ready, and stop at close', async () => {
    const m = mock();
    const client = await connectMock(m, { pingIntervalMs: 50 });
    const ready = performance.now();
    await until(() => m.received().filter((x) => x.method === 'ping').length >= 3, 'three keepalive pings');
    await new Promise((r) => setTimeout(r, 300));
    await client.close();
    const n = m.received().filter((x) => x.method === 'ping').length;
    // At the configured interval, not faster: at most one ping per 50 ms since ready.
    expect(n).toBeLessThanOrEqual(Math.floor((performance.now() - ready) / 50) + 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(m.received().filter((x) => x.method === 'ping').length).toBe(n);
  });

  it('basic.utilities.ping#6: an unanswered ping is a connection failure; pending requests reject naming it', async () => {
    const m = mock({ extends: 'default', behavior: { methods: { ping: { never: true } } } });
    const client = await connectMock(m, { pingIntervalMs: 100, pingTimeoutMs: 200 });
    const pid = client.pid!;
    const closed = new Promise<Error | undefined>((r) => client.once('close', r));
    const pending = client.callTool('never', {}, { timeoutMs: 60_000 }).catch((e) => e);
    const why = await closed;
    expect(why?.message).toMatch(/did not answer ping within 200 ms/);
    const err = await pending;
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(err.message).toMatch(/did not answer ping/);
    expect(client.state).toBe('failed');
    await until(() => !isAlive(pid), 'the server process to be gone');
  });
});
