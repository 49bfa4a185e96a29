/**
 * A probe is one raw connection to the server under test: a Transport + Connection, with every
 * message in both directions recorded into the run's shared Traffic. Unlike McpClient, a probe
 * sends whatever it is told to (requests before initialize, undeclared capabilities, bad
 * params): a conformance runner must do exactly what a polite client refuses to.
 */
import { JsonRpcError, TimeoutError } from '../../errors.js';
import { classify, excerpt, type JSONRPCErrorObject, type MessageKind } from '../../jsonrpc/types.js';
import { LATEST_PROTOCOL_VERSION } from '../../mcp/versions.js';
import { Connection, type ConnectionDiagnostic, type RequestOptions } from '../../protocol/connection.js';
import type { MessageInfo, ObservedEvent } from '../../protocol/observer.js';
import { createTransport, type ServerConfig } from '../../transport/create.js';
import type { Transport } from '../../transport/types.js';
import type { HttpAuthProvider } from '../../transport/http-common.js';

export type Phase = 'pre-init' | 'initializing' | 'operating';

export interface Recorded {
  seq: number;
  probe: number;
  dir: 'in' | 'out';
  message: unknown;
  kind: MessageKind;
  /** For responses from the server: the method of the request they answer. */
  requestMethod?: string;
  /** The probe's lifecycle phase when the message was seen. */
  phase: Phase;
  /** Instance-path prefixes a specific check already judged (the aggregate schema check skips them). */
  claims: string[];
  /** A response from the server whose id was never sent on this connection, or was already answered. */
  unmatched?: 'unknown-id' | 'duplicate';
  /** The client capabilities the probe had declared when the message was seen. */
  clientCaps?: Record<string, unknown>;
}

const MAX_RECORDED = 20_000;

/** Everything seen during a run, across all probes. */
export class Traffic {
  readonly records: Recorded[] = [];
  readonly diagnostics: Array<ConnectionDiagnostic & { probe: number }> = [];
  readonly events: Array<ObservedEvent & { probe: number }> = [];
  truncated = false;
  private seq = 0;

  add(r: Omit<Recorded, 'seq' | 'claims'>): Recorded {
    const rec: Recorded = { ...r, seq: ++this.seq, claims: [] };
    if (this.records.length < MAX_RECORDED) this.records.push(rec);
    else this.truncated = true;
    return rec;
  }

  /** Drops what probe `probe` saw (a connection whose exchange no check is to judge). */
  forget(probe: number): void {
    for (const list of [this.records, this.diagnostics, this.events] as Array<Array<{ probe: number }>>) {
      for (let i = list.length - 1; i >= 0; i--) if (list[i].probe === probe) list.splice(i, 1);
    }
  }

  /** Messages the server sent. */
  fromServer(): Recorded[] {
    return this.records.filter((r) => r.dir === 'in');
  }
}

/** The outcome of one request, as data: checks judge it, nothing throws. */
export type Outcome =
  | { kind: 'result'; result: Record<string, unknown>; message: Recorded | undefined }
  | { kind: 'error'; error: JSONRPCErrorObject; message: Recorded | undefined }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'closed'; reason: string; code?: string };

export interface ProbeOptions {
  timeoutMs: number;
  closeOnExit?: boolean;
  authProvider?: HttpAuthProvider;
}

let probeCounter = 0;

export class Probe {
  readonly id = ++probeCounter;
  phase: Phase = 'pre-init';
  readonly diagnostics: ConnectionDiagnostic[] = [];
  closeReason: string | undefined;
  private readonly methods = new Map<string | number, string>();
  private readonly answered = new Set<string | number>();
  private lastOutRequest: Recorded | undefined;

  private constructor(
    readonly transport: Transport,
    readonly conn: Connection,
    private readonly traffic: Traffic,
    readonly timeoutMs: number,
  ) {}

  static async open(config: ServerConfig, traffic: Traffic, opts: ProbeOptions): Promise<Probe> {
    const transport = await createTransport(config, {
      shutdown: { stdinCloseWaitMs: 1500, sigtermWaitMs: 1500 },
      ...(opts.closeOnExit === true ? { closeOnExit: true } : {}),
      ...(opts.authProvider !== undefined ? { authProvider: opts.authProvider } : {}),
    });
    let probe!: Probe;
    const conn = new Connection(transport, {
      serverId: config.id ?? 'check',
      defaultTimeoutMs: opts.timeoutMs,
      observer: {
        message: (dir, message, info) => probe.record(dir, message, info),
        event: (e) => traffic.events.push({ ...e, probe: probe.id }),
      },
      onDiagnostic: (d) => {
        probe.diagnostics.push(d);
        traffic.diagnostics.push({ ...d, probe: probe.id });
      },
      onClose: (err) => {
        probe.closeReason = err ? err.message : 'connection closed';
      },
    });
    probe = new Probe(transport, conn, traffic, opts.timeoutMs);
    await transport.start();
    return probe;
  }

  get closed(): boolean {
    return this.conn.isClosed;
  }

  private record(dir: 'in' | 'out', message: unknown, info: MessageInfo): void {
    const kind = info.kind === 'invalid' ? 'invalid' : classify(message);
    const m = message as Record<string, unknown>;
    let requestMethod: string | undefined;
    let unmatched: Recorded['unmatched'];
    const id = typeof m?.id === 'string' || typeof m?.id === 'number' ? m.id : undefined;
    if (kind === 'request' && id !== undefined) {
      if (dir === 'out') this.methods.set(id, String(m.method));
    } else if ((kind === 'result' || kind === 'error') && dir === 'in' && id !== undefined) {
      requestMethod = info.requestMethod ?? this.methods.get(id);
      if (!this.methods.has(id)) unmatched = 'unknown-id';
      else if (this.answered.has(id)) unmatched = 'duplicate';
      this.answered.add(id);
    }
    const rec = this.traffic.add({
      probe: this.id,
      dir,
      message,
      kind,
      phase: this.phase,
      clientCaps: this.clientCapabilities,
      ...(requestMethod ? { requestMethod } : {}),
      ...(unmatched ? { unmatched } : {}),
    });
    if (dir === 'out' && kind === 'request') this.lastOutRequest = rec;
  }

  /** The recorded response (from the server) to the request with `id`. */
  responseTo(id: string | number): Recorded | undefined {
    const rs = this.traffic.records;
    for (let i = rs.length - 1; i >= 0; i--) {
      const r = rs[i];
      if (r.probe === this.id && r.dir === 'in' && (r.kind === 'result' || r.kind === 'error') && (r.message as { id?: unknown }).id === id) return r;
    }
    return undefined;
  }

  /** Sends a request and reports what came back as data. */
  async request(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<Outcome> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const p = this.conn.request(method, params, { ...options, timeoutMs });
    const sent = this.lastOutRequest;
    const id = (sent?.message as { id?: string | number } | undefined)?.id;
    try {
      const result = (await p) as Record<string, unknown>;
      return { kind: 'result', result, message: id !== undefined ? this.responseTo(id) : undefined };
    } catch (err) {
      if (err instanceof JsonRpcError) {
        // The error object exactly as the server sent it (JsonRpcError's message is decorated).
        const message = id !== undefined ? this.responseTo(id) : undefined;
        const sent = (message?.message as { error?: JSONRPCErrorObject } | undefined)?.error;
        const error: JSONRPCErrorObject = sent ?? { code: err.rpcCode, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) };
        return { kind: 'error', error, message };
      }
      if (err instanceof TimeoutError) return { kind: 'timeout', timeoutMs };
      const code = (err as { code?: unknown })?.code;
      return { kind: 'closed', reason: (err as Error)?.message ?? String(err), ...(typeof code === 'string' ? { code } : {}) };
    }
  }

  /** The client capabilities this probe declared in its initialize request. */
  clientCapabilities: Record<string, unknown> = {};

  /** Sends `initialize` (never cancelled, basic.utilities.cancellation#2). */
  async initialize(protocolVersion: string = LATEST_PROTOCOL_VERSION, capabilities: Record<string, unknown> = {}): Promise<Outcome> {
    this.phase = 'initializing';
    this.clientCapabilities = capabilities;
    const out = await this.request(
      'initialize',
      { protocolVersion, capabilities, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } },
      { cancellable: false, isInitialize: true },
    );
    if (out.kind === 'result' && typeof out.result.protocolVersion === 'string') {
      this.transport.setProtocolVersion?.(out.result.protocolVersion);
    }
    return out;
  }

  /** Sends `notifications/initialized` (basic.lifecycle#4). */
  async initialized(): Promise<void> {
    await this.conn.notify('notifications/initialized');
    this.phase = 'operating';
  }

  async close(): Promise<void> {
    try {
      await this.conn.close();
    } catch {
      /* already gone */
    }
  }
}

/** Describes an outcome for a person: `error -32601 "Method not found"`, `no response within 10000 ms`… */
export function describeOutcome(o: Outcome): string {
  switch (o.kind) {
    case 'result':
      return `a success result ${excerpt(JSON.stringify(o.result) ?? 'undefined', 160)}`;
    case 'error': {
      // a version refusal names the versions the server supports: keep them in the detail
      const supported = (o.error.data as { supported?: unknown } | undefined)?.supported;
      const versions = Array.isArray(supported) ? ` (supported: ${excerpt(supported.map(String).join(', '), 120)})` : '';
      return `error ${o.error.code} ${JSON.stringify(excerpt(o.error.message, 120))}${versions}`;
    }
    case 'timeout':
      return `no response within ${o.timeoutMs} ms`;
    case 'closed':
      return `no response: ${excerpt(o.reason, 200)}`;
  }
}

/**
 * When an outcome failed because the client transport refused something another check judges
 * (an invalid MCP-Session-Id: http.session-id), says so; lifecycle checks then report "blocked".
 */
export function blockedBy(o: Outcome): string | undefined {
  if (o.kind === 'closed' && o.code === 'MCPWIRE_BAD_SESSION_ID') return `blocked: the transport refused the server's session id (see http.session-id)`;
  return undefined;
}

/** The raw message of an outcome, for evidence. */
export function messageOf(o: Outcome): unknown {
  return o.kind === 'result' || o.kind === 'error' ? o.message?.message : undefined;
}
