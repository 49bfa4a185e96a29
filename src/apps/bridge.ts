/**
 * The host side of the MCP Apps view protocol (JSON-RPC 2.0 over the embedder's postMessage
 * pair, `ViewChannel`). The view sends `ui/initialize`; the host answers with its info, the
 * capabilities it really offers (one per callback given, and `sandbox` as actually granted) and
 * its context; after the view's `ui/notifications/initialized` — and never before (apps spec:
 * the host "MUST NOT send any request or notification to the View before receiving an
 * initialized notification") — the host sends the tool's input (at most once, before any
 * result), its result or cancellation, context changes, and at the end the
 * `ui/resource-teardown` request. The view's requests are answered by `bridge-requests.ts`.
 * Every message is bounded (size, rate) and seen by the observer.
 */
import { APP_VIEW_PROTOCOL_VERSION, APP_VIEW_PROTOCOL_VERSIONS } from './constants.js';
import { DEFAULT_VIEW_LIMITS, RateGate, type ViewLimits } from './limits.js';
import { answerViewRequest, hostCapabilitiesOf } from './bridge-requests.js';
import type { AppBridgeOptions, BridgeState, HostContext, ListKind, ViewProblem } from './bridge-types.js';
import { AppViewError } from './view.js';

type Msg = Record<string, unknown>;
const isObj = (v: unknown): v is Msg => v !== null && typeof v === 'object' && !Array.isArray(v);

export class AppBridgeHost implements BridgeState {
  private readonly o: AppBridgeOptions;
  private readonly limits: Required<ViewLimits>;
  private readonly gate: RateGate;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly queue: Msg[] = [];
  private unsubscribe?: () => void;
  private unlisten?: () => void;
  private nextId = 1;
  private state: 'new' | 'initializing' | 'initialized' | 'closed' = 'new';
  private inputSent = false;
  private resultSent = false;
  private initTimer?: ReturnType<typeof setTimeout>;
  private readonly calls = new AbortController();
  /** The view's `appCapabilities` from `ui/initialize`. */
  appCapabilities: Record<string, unknown> = {};
  /** The view's `appInfo` from `ui/initialize`. */
  appInfo: Record<string, unknown> | undefined;
  /** The context as last sent (initialize result plus changes). */
  hostContext: HostContext;
  /** The last `ui/update-model-context` (each replaces the one before). */
  modelContext: { content?: unknown[]; structuredContent?: Record<string, unknown> } | undefined;
  /** Resolves once the view sent `ui/notifications/initialized`; rejects when it does not in time, or closes first. */
  readonly initialized: Promise<void>;
  private settleInit!: { resolve: () => void; reject: (e: Error) => void };

  constructor(options: AppBridgeOptions) {
    this.o = options;
    this.limits = { ...DEFAULT_VIEW_LIMITS, ...options.limits };
    this.gate = new RateGate(this.limits.perSecond, this.limits.burst, options.now ?? (() => performance.now()));
    this.hostContext = { ...options.hostContext };
    this.initialized = new Promise<void>((resolve, reject) => (this.settleInit = { resolve, reject }));
    this.initialized.catch(() => {}); // the embedder may not wait on it
  }

  /** Starts listening to the view and the bounded wait for its initialization. */
  start(): this {
    this.unsubscribe = this.o.channel.onMessage((m) => this.receive(m));
    this.unlisten = this.o.server.onListChanged?.((kind) => this.sendListChanged(kind));
    this.initTimer = setTimeout(() => {
      const message = `the view of server "${this.o.server.server}" did not initialize within ${this.limits.initTimeoutMs} ms`;
      this.problem({ code: 'init-timeout', message });
      this.fail(new AppViewError(this.o.server.server, `${message} (no ui/notifications/initialized)`));
    }, this.limits.initTimeoutMs);
    return this;
  }

  get isInitialized(): boolean {
    return this.state === 'initialized';
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** `ui/notifications/tool-input-partial` (streamed arguments; ignored once the full input went). */
  sendToolInputPartial(args: Record<string, unknown>): void {
    if (!this.inputSent) this.notify('ui/notifications/tool-input-partial', { arguments: args });
  }

  /** `ui/notifications/tool-input`: at most once, before any result. */
  sendToolInput(args: Record<string, unknown>): void {
    if (this.inputSent || this.resultSent) return;
    this.inputSent = true;
    this.notify('ui/notifications/tool-input', { arguments: args });
  }

  /** `ui/notifications/tool-result`: the whole CallToolResult (structuredContent and `_meta` included). */
  sendToolResult(result: Record<string, unknown>): void {
    if (this.resultSent) return;
    this.resultSent = true;
    this.notify('ui/notifications/tool-result', result);
  }

  /** `ui/notifications/tool-cancelled`. */
  sendToolCancelled(reason?: string): void {
    if (this.resultSent) return;
    this.resultSent = true;
    this.notify('ui/notifications/tool-cancelled', reason === undefined ? {} : { reason });
  }

  /**
   * `notifications/tools/list_changed` (or `resources/`, `prompts/`): the view's server changed
   * what the view can list (forwarded as the 2.0.4 bridge does; offered as `listChanged` in
   * `serverTools` / `serverResources` when the link reports changes). One waiting per kind
   * until the view is initialized.
   */
  sendListChanged(kind: ListKind): void {
    const method = `notifications/${kind}/list_changed`;
    if (this.state === 'initialized' || !this.queue.some((m) => m.method === method)) this.notify(method, {});
  }

  /** Merges `change` into the context and sends what differs as `ui/notifications/host-context-changed`. */
  setHostContext(change: Partial<HostContext>): void {
    const diff: Msg = {};
    for (const [k, v] of Object.entries(change)) if (JSON.stringify(this.hostContext[k]) !== JSON.stringify(v)) diff[k] = v;
    if (Object.keys(diff).length === 0) return;
    Object.assign(this.hostContext, diff);
    this.notify('ui/notifications/host-context-changed', diff);
  }

  /**
   * Graceful end: the `ui/resource-teardown` request (params `{}`, which both the stable text and
   * the 2.0.4 schema accept), a bounded wait for the view's answer, then `close()`. A view never
   * initialized gets nothing (the host may not send it anything) and is closed at once.
   */
  async teardown(): Promise<void> {
    if (this.state === 'initialized') {
      try {
        await this.request('ui/resource-teardown', {}, this.limits.teardownTimeoutMs);
      } catch {
        // no answer in time: closed anyway
      }
    }
    this.close();
  }

  /** Stops listening; pending requests fail; calls on the view's behalf are cancelled. */
  close(): void {
    if (this.state === 'closed') return;
    this.fail(new AppViewError(this.o.server.server, 'the view was closed'));
  }

  private fail(err: Error): void {
    const wasInitialized = this.state === 'initialized';
    this.state = 'closed';
    clearTimeout(this.initTimer);
    this.unsubscribe?.();
    this.unlisten?.();
    this.calls.abort(err);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.queue.length = 0;
    if (!wasInitialized) this.settleInit.reject(err);
  }

  private problem(p: ViewProblem): void {
    this.o.on?.problem?.(p);
  }

  /** Sends a notification now (initialized) or once the view is (queued, bounded). */
  private notify(method: string, params: unknown): void {
    const msg = { jsonrpc: '2.0', method, params };
    if (this.state === 'initialized') this.send(msg);
    else if (this.state !== 'closed' && this.queue.length < 64) this.queue.push(msg);
  }

  private request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AppViewError(this.o.server.server, `the view did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = <T>(f: (v: T) => void) => (v: T) => (clearTimeout(timer), this.pending.delete(id), f(v));
      this.pending.set(id, { resolve: done(resolve), reject: done(reject) });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  private send(msg: Msg): void {
    if (this.state === 'closed') return;
    const kind = 'method' in msg ? ('id' in msg ? 'request' : 'notification') : 'error' in msg ? 'error' : 'result';
    this.o.observer?.message('out', msg, { kind, method: msg.method as string | undefined, id: msg.id as string | number | undefined });
    this.o.channel.post(msg);
  }

  private receive(raw: unknown): void {
    if (this.state === 'closed') return;
    let bytes: number;
    try {
      bytes = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : Buffer.byteLength(JSON.stringify(raw) ?? '', 'utf8');
    } catch {
      bytes = Infinity;
    }
    if (!this.gate.take()) return this.flooded();
    if (bytes > this.limits.maxMessageBytes) return this.problem({ code: 'oversized', message: `a message of ${bytes} bytes from the view was dropped (limit ${this.limits.maxMessageBytes})` });
    let msg: unknown = raw;
    if (typeof raw === 'string') {
      try {
        msg = JSON.parse(raw);
      } catch {
        msg = undefined;
      }
    }
    if (!isObj(msg) || msg.jsonrpc !== '2.0') return this.problem({ code: 'invalid', message: 'a message from the view that is not JSON-RPC 2.0 was dropped' });
    const kind = typeof msg.method === 'string' ? ('id' in msg ? 'request' : 'notification') : 'error' in msg ? 'error' : 'result';
    this.o.observer?.message('in', msg, { kind, method: msg.method as string | undefined, id: msg.id as string | number | undefined });
    if (typeof msg.method !== 'string') return this.answered(msg);
    if ('id' in msg) void this.answer(msg);
    else this.notified(msg.method, isObj(msg.params) ? msg.params : {});
  }

  private flooded(): void {
    if (this.gate.dropped === 1) this.problem({ code: 'rate', message: `the view sends more than ${this.limits.perSecond} messages a second; the excess is dropped` });
    if (this.gate.dropped < this.limits.maxDropped) return;
    const message = `the view of server "${this.o.server.server}" kept flooding (${this.gate.dropped} messages dropped); it was cut off`;
    this.problem({ code: 'flood', message });
    this.fail(new AppViewError(this.o.server.server, message));
  }

  private answered(msg: Msg): void {
    const id = msg.id;
    const p = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (p === undefined) return;
    if ('error' in msg) p.reject(new AppViewError(this.o.server.server, `the view answered with an error: ${JSON.stringify(msg.error)?.slice(0, 300)}`));
    else p.resolve(msg.result);
  }

  private async answer(msg: Msg): Promise<void> {
    const method = msg.method as string;
    const params = isObj(msg.params) ? msg.params : {};
    try {
      const result = method === 'ui/initialize' ? this.initializeResult(params) : await this.routed(method, params);
      this.send({ jsonrpc: '2.0', id: msg.id, result });
    } catch (err) {
      const code = typeof (err as { rpcCode?: unknown }).rpcCode === 'number' ? (err as { rpcCode: number }).rpcCode : -32603;
      const message = err instanceof Error ? err.message : String(err);
      if (code === -32000) this.problem({ code: 'refused', message: `${method}: ${message}` });
      this.send({ jsonrpc: '2.0', id: msg.id, error: { code, message: message.slice(0, 1000) } });
    }
  }

  private routed(method: string, params: Msg): Promise<unknown> {
    if (this.state === 'new') return Promise.reject(Object.assign(new Error(`${method} before ui/initialize`), { rpcCode: -32600 }));
    return answerViewRequest(method, params, { options: this.o, bridge: this, signal: this.calls.signal });
  }

  private initializeResult(params: Msg): Msg {
    if (this.state === 'new') this.state = 'initializing';
    if (isObj(params.appCapabilities)) this.appCapabilities = params.appCapabilities;
    if (isObj(params.appInfo)) this.appInfo = params.appInfo;
    const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
    const protocolVersion = asked !== undefined && SUPPORTED.includes(asked) ? asked : APP_VIEW_PROTOCOL_VERSION;
    return { protocolVersion, hostInfo: this.o.hostInfo, hostCapabilities: hostCapabilitiesOf(this.o), hostContext: this.hostContext };
  }

  private notified(method: string, params: Msg): void {
    switch (method) {
      case 'ui/notifications/initialized':
        if (this.state !== 'initializing') return; // before ui/initialize, or again: ignored
        this.state = 'initialized';
        clearTimeout(this.initTimer);
        this.settleInit.resolve();
        for (const m of this.queue.splice(0)) this.send(m);
        return;
      case 'ui/notifications/sandbox-proxy-ready': {
        const r = this.o.sandboxResource;
        if (r !== undefined) this.send({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: r });
        return;
      }
      case 'ui/notifications/size-changed': {
        const size: { width?: number; height?: number } = {};
        if (typeof params.width === 'number' && Number.isFinite(params.width)) size.width = params.width;
        if (typeof params.height === 'number' && Number.isFinite(params.height)) size.height = params.height;
        this.o.on?.sizeChanged?.(size);
        return;
      }
      case 'notifications/message':
        this.o.on?.log?.({ level: typeof params.level === 'string' ? params.level : undefined, logger: typeof params.logger === 'string' ? params.logger : undefined, data: params.data });
        return;
      case 'ui/notifications/request-teardown':
        this.o.on?.teardownRequested?.();
        return;
      default:
        return; // unknown notifications are ignored (JSON-RPC)
    }
  }
}

const SUPPORTED = APP_VIEW_PROTOCOL_VERSIONS;
