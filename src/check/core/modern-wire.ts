/**
 * The 2026-07-28 (stateless) wire of `mcpwire check`: one request out with its per-request
 * `_meta` (protocol version, client capabilities, client info), its answer back as data. Over
 * stdio a raw Probe (no `initialize`, ever); over Streamable HTTP a raw undici POST with the
 * headers the binding asks for (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), which a
 * check may override to see what the server does with a wrong one. Everything is recorded in
 * the run's Traffic, with the protocol version it was sent under.
 */
import { classify, type JSONRPCErrorObject } from '../../jsonrpc/types.js';
import type { Outcome, Probe, Traffic } from './probe.js';
import { raw, type RawResponse, type RawTarget } from './raw-http.js';
import { isObject } from './values.js';

/** What the wire needs of the run (a CheckContext is one). */
export interface WireContext extends RawTarget {
  readonly isHttp: boolean;
  readonly traffic: Traffic;
  /** A fresh connection, closed when the current check ends. */
  open(): Promise<Probe>;
  /** The stdio connection the checks share (a CheckContext's; see `sharedWire()` there). */
  sharedWire?(): Promise<Probe>;
  /** A request on `probe` went unanswered: a shared connection is not handed on. */
  wireUnsure?(probe: Probe): void;
}

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
export const UNSUPPORTED_VERSION = -32022;
export const HEADER_MISMATCH = -32020;
export const MISSING_CAPABILITY = -32021;

/** The error codes only a server of the modern era sends. */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([UNSUPPORTED_VERSION, HEADER_MISMATCH, MISSING_CAPABILITY]);

/** The client capabilities that let a server ask for every kind of input (basic/patterns/mrtr). */
export const ALL_INPUT_CAPS: Record<string, unknown> = { elicitation: { form: {} }, sampling: {}, roots: {} };

export interface SendOptions {
  /** Client capabilities of this request (default none). */
  caps?: Record<string, unknown>;
  /** Replaces the whole `_meta` (a malformed envelope); `null` sends none. */
  meta?: Record<string, unknown> | null;
  /** HTTP: headers that replace the computed ones (lowercase names; `''` drops one). */
  headers?: Record<string, string>;
  /** HTTP: read the SSE stream until this is true of the text (then the stream is dropped). */
  until?: (text: string) => boolean;
  timeoutMs?: number;
  /** stdio: a request that times out is cancelled (notifications/cancelled); default not. */
  cancel?: boolean;
}

export interface Answer {
  outcome: Outcome;
  /** HTTP status (HTTP only). */
  status?: number;
  headers?: RawResponse['headers'];
  /** Notifications seen before the answer (HTTP: on the response stream). */
  notifications: Array<Record<string, unknown>>;
  text?: string;
}

/** The Base64 sentinel form of a header value outside the safe set (basic/transports/streamable-http). */
export function headerValue(v: string): string {
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) ? v : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

let wireSeq = 0;

export class ModernWire {
  private probe: Probe | undefined;
  private readonly probeId = 1_000_000 + ++wireSeq;

  constructor(
    private readonly ctx: WireContext,
    readonly version: string,
    /** stdio: requests go to the context's shared connection (else to a process of this wire's own). */
    private readonly opts: { shared?: boolean } = {},
  ) {}

  meta(caps: Record<string, unknown> = {}): Record<string, unknown> {
    return { [META_VERSION]: this.version, [META_CAPS]: caps, [META_CLIENT]: { name: 'mcpwire-check', version: '0.1.0' } };
  }

  params(params: Record<string, unknown> = {}, o: SendOptions = {}): Record<string, unknown> {
    if (o.meta === null) return params;
    return { ...params, _meta: o.meta ?? this.meta(o.caps) };
  }

  async send(method: string, params: Record<string, unknown> = {}, o: SendOptions = {}): Promise<Answer> {
    const p = this.params(params, o);
    return this.ctx.isHttp ? this.sendHttp(method, p, o) : this.sendStdio(method, p, o);
  }

  /** The stdio probe of this wire while it is open (undefined before the first request, or once closed). */
  get openProbe(): Probe | undefined {
    return this.probe !== undefined && !this.probe.closed ? this.probe : undefined;
  }

  /**
   * The stdio probe of this wire: the shared connection (started again if it closed), or one of
   * its own spawned on first use and closed with the check's probes.
   */
  async stdio(): Promise<Probe> {
    if (this.opts.shared === true && this.ctx.sharedWire !== undefined) return (this.probe = await this.ctx.sharedWire());
    if (this.probe === undefined || this.probe.closed) this.probe = await this.ctx.open();
    return this.probe;
  }

  private async sendStdio(method: string, params: Record<string, unknown>, o: SendOptions): Promise<Answer> {
    const probe = await this.stdio();
    const before = this.ctx.traffic.records.length;
    const outcome = await probe.request(method, params, { timeoutMs: o.timeoutMs ?? this.ctx.timeoutMs, cancellable: o.cancel === true });
    if (outcome.kind === 'timeout' || outcome.kind === 'closed') this.ctx.wireUnsure?.(probe);
    const notifications = this.ctx.traffic.records
      .slice(before)
      .filter((r) => r.probe === probe.id && r.dir === 'in' && r.kind === 'notification')
      .map((r) => r.message as Record<string, unknown>);
    return { outcome, notifications };
  }

  private async sendHttp(method: string, params: Record<string, unknown>, o: SendOptions): Promise<Answer> {
    const id = `mcpwire-check-${++wireSeq}`;
    const body = { jsonrpc: '2.0', id, method, params };
    // Mcp-Name: the target a request names (the tasks extension routes by taskId)
    const name = method === 'resources/read' ? params.uri : ['tools/call', 'prompts/get'].includes(method) ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
    const headers: Record<string, string> = {
      'mcp-protocol-version': this.version,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': headerValue(name) } : {}),
      ...o.headers,
    };
    for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
    this.record('out', body);
    let res: RawResponse;
    try {
      res = await raw(this.ctx, 'POST', headers, body, o.until !== undefined ? { until: o.until } : {});
    } catch (err) {
      return { outcome: { kind: 'closed', reason: (err as Error).message }, notifications: [] };
    }
    const messages = sseOrJson(res);
    const notifications = messages.filter((m) => classify(m) === 'notification');
    for (const m of messages) this.record('in', m, method);
    const answer = messages.find((m) => 'result' in m || 'error' in m);
    const rec = answer === undefined ? undefined : this.ctx.traffic.records.findLast((r) => r.message === answer);
    const outcome: Outcome =
      answer === undefined
        ? { kind: 'closed', reason: `HTTP ${res.status} with no JSON-RPC answer${res.text ? `: ${res.text.slice(0, 120)}` : ''}` }
        : isObject(answer.result)
          ? { kind: 'result', result: answer.result, message: rec }
          : { kind: 'error', error: (answer.error ?? { code: 0, message: 'malformed error' }) as JSONRPCErrorObject, message: rec };
    return { outcome, status: res.status, headers: res.headers, notifications, text: res.text };
  }

  private record(dir: 'in' | 'out', message: Record<string, unknown>, requestMethod?: string): void {
    this.ctx.traffic.add({ probe: this.probeId, dir, message, kind: classify(message), phase: 'operating', ...(requestMethod ? { requestMethod } : {}) });
  }
}

/** Every JSON-RPC message of a raw HTTP answer (a JSON body or the data of SSE events). */
export function sseOrJson(res: RawResponse): Array<Record<string, unknown>> {
  const ct = String(res.headers['content-type'] ?? '');
  const texts = ct.includes('text/event-stream') ? res.text.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()) : [res.text];
  const out: Array<Record<string, unknown>> = [];
  for (const t of texts) {
    try {
      const v = JSON.parse(t) as unknown;
      if (isObject(v)) out.push(v);
    } catch {
      /* not JSON */
    }
  }
  return out;
}

/** The `supported` versions an UnsupportedProtocolVersion error names. */
export function supportedOf(error: JSONRPCErrorObject | undefined): string[] | undefined {
  const s = isObject(error?.data) ? error.data.supported : undefined;
  return Array.isArray(s) ? s.filter((v): v is string => typeof v === 'string') : undefined;
}
