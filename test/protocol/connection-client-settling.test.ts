/**
 * How the request engine and the client settle what they start: a request whose `onRequestId`
 * callback throws or aborts, a `connect()` whose `notifications/initialized` send never completes,
 * the auth provider's secrets listener of a traced connection, and a new session asked for by
 * the caller (`reinitialize`) while the client renews one itself. Fake transports; fake timers
 * where a deadline is involved.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, ConnectionClosedError, McpWireError, SessionExpiredError, TimeoutError } from '../../src/errors.js';
import type { JSONRPCMessage, RequestId } from '../../src/jsonrpc/types.js';
import { McpClient } from '../../src/mcp/client.js';
// connect() loads the client's connection on first use: loaded here, so that the fake clock's first advance finds initialize under way
import '../../src/mcp/client-connection.js';
import { Connection } from '../../src/protocol/connection.js';
import { createMemoryPair } from '../../src/transport/memory.js';
import type { MessageExtra, Transport, TransportDiagnostic, TransportEvent } from '../../src/transport/types.js';

type Msg = { id?: RequestId; method?: string; params?: any };

/**
 * A server behind a fake HTTP-like transport: sessions (`sid-1`, `sid-2`…), a `terminateSession`
 * that records the DELETE, and a `send` of notifications that can be made to never settle.
 */
class FakeServerTransport implements Transport {
  readonly kind = 'fake-http';
  onmessage?: (m: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (e?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  onsessionexpired?: (e: Error) => void;
  sessionId: string | undefined;
  readonly sent: Msg[] = [];
  /** What happened, in order: `initialize`, `delete sid-1`, `reset`. */
  readonly log: string[] = [];
  notificationsHang = false;
  /** Holds each initialize's answer until the test releases it. */
  holdInitialize = false;
  readonly heldInitialize: (() => void)[] = [];
  private seq = 0;
  private closed = false;

  constructor(private readonly sessions: boolean) {}

  async start(): Promise<void> {}
  setProtocolVersion(): void {}

  resetSession(): void {
    this.log.push('reset');
    this.sessionId = undefined;
  }

  async terminateSession(): Promise<void> {
    const old = this.sessionId;
    this.log.push(`delete ${old}`);
    // what a transport reports about the DELETE while the id is still the current session's
    this.ondiagnostic?.({ code: 'MCPWIRE_TEST_DELETE', message: `DELETE of session ${old}` });
    this.sessionId = undefined;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError('closed'));
    const m = message as unknown as Msg;
    this.sent.push(m);
    if (m.id === undefined) return this.notificationsHang ? new Promise(() => {}) : Promise.resolve();
    if (m.method === 'initialize') {
      this.log.push('initialize');
      const answer = () => {
        if (this.closed) return;
        if (this.sessions) this.sessionId = `sid-${++this.seq}-0123456789abcdef`;
        this.onmessage?.({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } } });
      };
      if (this.holdInitialize) this.heldInitialize.push(answer);
      else queueMicrotask(answer);
      return Promise.resolve();
    }
    queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/** An auth provider that, like a shared one in a long-lived host, outlives the connections. */
function sharedAuthProvider() {
  const listeners = new Set<(v: string[]) => void>();
  return {
    listeners,
    headers: async () => ({}),
    secrets: () => ['the-access-token-value'],
    onSecrets(l: (v: string[]) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

const flush = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe('a request whose onRequestId callback throws or aborts', () => {
  let conn: Connection;
  let received: Msg[];
  beforeEach(() => {
    vi.useFakeTimers();
    const [c, s] = createMemoryPair();
    received = [];
    s.onmessage = (m) => received.push(m as Msg);
    conn = new Connection(c, { serverId: 'mem', phase: () => 'request' });
  });
  afterEach(async () => {
    await conn.close();
    vi.useRealTimers();
  });

  it('a throwing onRequestId rejects the request (never a synchronous throw), sends nothing and leaves nothing pending', async () => {
    let p: Promise<unknown> | undefined;
    expect(() => {
      p = conn.request('tools/call', { name: 'x' }, {
        onRequestId: () => {
          throw new Error('callback bug');
        },
      });
    }).not.toThrow();
    const err = await p!.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpWireError);
    expect((err as Error).message).toMatch(/onRequestId.*callback bug/);
    expect(conn.pendingCount).toBe(0);
    await flush();
    expect(received).toEqual([]);
  });

  it('an onRequestId that aborts the signal rejects at once with AbortError (not at the timeout), nothing pending, no cancel for a request never sent', async () => {
    const ac = new AbortController();
    const outcome = conn.request('tools/call', { name: 'x' }, { signal: ac.signal, timeoutMs: 60_000, onRequestId: () => ac.abort('changed my mind') }).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await flush();
    const err = await Promise.race([outcome, Promise.resolve('still pending')]);
    expect(err).toBeInstanceOf(AbortError);
    expect(conn.pendingCount).toBe(0);
    await flush();
    expect(received.filter((m) => m.method === 'notifications/cancelled')).toEqual([]);
  });
});

describe('connect() settles within its deadline when notifications/initialized is never sent', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('the initialize timeout bounds the wait: TimeoutError, the client failed and closed', async () => {
    const t = new FakeServerTransport(false);
    t.notificationsHang = true;
    const client = new McpClient({ transport: 'stdio', command: 'x', id: 'hang' }, { transport: t, initializeTimeoutMs: 1000 });
    const outcome = client.connect().then(
      () => 'connected',
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(1000);
    const err = await Promise.race([outcome, Promise.resolve('still pending')]);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(/notifications\/initialized/);
    expect(client.state).toBe('failed');
    expect(client.pendingCount).toBe(0);
  });

  it('a timeout of 0 is no timeout (as for every request): connect() completes and waits as long as the send takes', async () => {
    const t = new FakeServerTransport(false);
    const client = new McpClient({ transport: 'stdio', command: 'x', id: 'no-timeout' }, { transport: t, timeoutMs: 0 });
    const outcome = client.connect().then(() => 'connected');
    await vi.advanceTimersByTimeAsync(10);
    expect(await outcome).toBe('connected');
    expect(client.state).toBe('ready');
    await client.close();
  });

  it('the connect signal ends the wait: AbortError', async () => {
    const t = new FakeServerTransport(false);
    t.notificationsHang = true;
    const ac = new AbortController();
    const client = new McpClient({ transport: 'stdio', command: 'x', id: 'hang' }, { transport: t, timeoutMs: 60_000, signal: ac.signal });
    const outcome = client.connect().then(
      () => 'connected',
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(t.sent.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized']);
    ac.abort('shutting down');
    await vi.advanceTimersByTimeAsync(0);
    const err = await Promise.race([outcome, Promise.resolve('still pending')]);
    expect(err).toBeInstanceOf(AbortError);
    expect(client.state).toBe('failed');
  });
});

describe('a traced connection and a shared auth provider', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpwire-settle-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('every closed connection removes its secrets listener from the provider (a reconnecting host keeps no closed tracer alive)', async () => {
    const auth = sharedAuthProvider();
    for (let i = 0; i < 3; i++) {
      const client = new McpClient(
        { transport: 'stdio', command: 'x', id: 'traced' },
        { transport: new FakeServerTransport(false), trace: path.join(dir, 'trace.jsonl'), authProvider: auth as never },
      );
      await client.connect();
      expect(auth.listeners.size).toBe(1);
      await client.close();
      expect(auth.listeners.size).toBe(0);
    }
  });

  it('a connection that fails to connect removes its listener too', async () => {
    const auth = sharedAuthProvider();
    const t = new FakeServerTransport(false);
    t.start = () => Promise.reject(new Error('no server'));
    const client = new McpClient({ transport: 'stdio', command: 'x', id: 'traced' }, { transport: t, trace: path.join(dir, 'trace.jsonl'), authProvider: auth as never });
    await expect(client.connect()).rejects.toThrow(/no server/);
    expect(auth.listeners.size).toBe(0);
  });
});

describe('reinitialize() and automatic session renewal are one flight', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpwire-settle-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('concurrent reinitialize() calls and a session expiry start one new session; the old one is DELETEd first, while the trace still redacts its id', async () => {
    const t = new FakeServerTransport(true);
    const trace = path.join(dir, 'trace.jsonl');
    const client = new McpClient({ transport: 'http', url: 'http://127.0.0.1:1/mcp', id: 'renew' }, { transport: t, trace });
    await client.connect();
    const old = client.sessionId!;
    expect(old).toMatch(/^sid-1-/);
    t.holdInitialize = true;
    const a = client.reinitialize();
    const b = client.reinitialize();
    await flush();
    t.onsessionexpired?.(new SessionExpiredError('HTTP 404 for the session'));
    await flush();
    expect(t.heldInitialize).toHaveLength(1);
    t.heldInitialize.shift()!();
    await Promise.all([a, b]);
    await flush();
    expect(t.log.filter((l) => l === 'initialize')).toHaveLength(2);
    expect(t.log.slice(1)).toEqual([`delete ${old}`, 'initialize']);
    expect(client.state).toBe('ready');
    expect(client.sessionId).toMatch(/^sid-2-/);
    await client.close();
    const text = readFileSync(trace, 'utf8');
    expect(text).toContain('MCPWIRE_TEST_DELETE');
    expect(text).not.toContain(old);
  });

  it('a reinitialize() during an automatic renewal joins it (one new session)', async () => {
    const t = new FakeServerTransport(true);
    const client = new McpClient({ transport: 'http', url: 'http://127.0.0.1:1/mcp', id: 'renew' }, { transport: t });
    await client.connect();
    t.holdInitialize = true;
    t.onsessionexpired?.(new SessionExpiredError('HTTP 404 for the session'));
    await flush();
    const r = client.reinitialize();
    await flush();
    expect(t.heldInitialize).toHaveLength(1);
    t.heldInitialize.shift()!();
    await r;
    expect(t.log.filter((l) => l === 'initialize')).toHaveLength(2);
    expect(client.state).toBe('ready');
    await client.close();
  });
});
