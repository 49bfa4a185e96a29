/**
 * What a check gets: fresh probes on demand (closed when the check ends), one shared
 * initialized session (re-opened if the server died), memoized facts (the tool list…) and the
 * traffic recorded so far.
 */
import type { ServerConfig } from '../../transport/create.js';
import type { HttpAuthProvider } from '../../transport/http-common.js';
import { blockedBy, describeOutcome, Probe, type Outcome, Traffic } from './probe.js';
import { BlockedError } from './blocked.js';
import { ModernWire } from './modern-wire.js';
import { MODERN_REVISIONS, type Era } from './revisions.js';
import { isObject } from './values.js';

export type { Era } from './revisions.js';
export { isObject } from './values.js';

export interface Session {
  probe: Probe;
  /** The initialize outcome of this session (the first session's is what lifecycle checks judge). */
  init: Outcome;
  protocolVersion: string | undefined;
  capabilities: Record<string, unknown>;
  serverInfo: Record<string, unknown> | undefined;
  /** The ping sent after `notifications/initialized` to see the server still answers. */
  ping: Outcome | undefined;
}

/** Where setting up the shared session failed. */
export interface SetupFailure {
  stage: 'spawn' | 'initialize' | 'after-initialized';
  detail: string;
  evidence?: unknown;
}

/** The modern era's shared stdio connection (context.sharedWire()). */
interface SharedWire {
  probe: Probe;
  /** Used by the check now running. */
  touched: boolean;
  /** A request on it went unanswered during the check now running. */
  unsure: boolean;
  close(): Promise<void>;
}

const SHARED_WIRE = 'modern-wire';

/**
 * The handshake era's initialized connection of the checks that may kill the server
 * (cancellation, the log filter: src/check/basics/utilities.ts), kept under this key; the
 * unsupported-version initialize's connection is handed on to them (`handOn()`).
 */
export const OWN_CONNECTION = 'utilities-connection';

export interface CheckOptions {
  /** Default per-request timeout (ms). */
  timeoutMs: number;
  /** How long the slow tool is asked to run in the cancellation check (default 4000 ms). */
  cancelRunMs?: number;
  /** Tool used by the cancellation/progress checks instead of the heuristic pick. */
  slowTool?: { name: string; args: Record<string, unknown> };
  /**
   * Close the stdio servers under test on SIGINT/SIGTERM/SIGHUP and at exit (stdin → SIGTERM →
   * SIGKILL; see src/transport/exit-hooks.ts). The CLI sets it; library callers opt in.
   */
  closeOnExit?: boolean;
  /** Tools the user named (`--fixtures <file>`): arguments to call them with, and what to expect. */
  fixtures?: ToolFixtures;
  /** What the server should serve (`--fixtures <file>`: schemas, resources, prompts), besides the built-in suite profile. */
  expectations?: Expectations;
  /** Call every tool, not only read-only ones and fixtures (`--allow-calls`). */
  allowCalls?: boolean;
  /**
   * HTTP servers: supplies the `Authorization` header (and answers 401/403) on every connection
   * and raw request the checks make, e.g. the stored grant of `mcpwire login` for a configured
   * server (the CLI passes it).
   */
  authProvider?: HttpAuthProvider;
  /** The protocol version to check (`--protocol-version`): its era's checks run, with it offered. */
  protocolVersion?: string;
}

/** What `--fixtures <file>` holds: tool name → how to call it and what its result must look like. */
export type ToolFixtures = Record<string, ToolFixture>;

export interface ToolFixture {
  arguments?: Record<string, unknown>;
  /** The expected shape of the CallToolResult (every field optional). */
  expect?: {
    isError?: boolean;
    /** The content block types, in order (`["text"]`). */
    contentTypes?: string[];
    /** A substring of the concatenated text content. */
    textIncludes?: string;
    /** A subset of structuredContent (deep, objects only need the named keys). */
    structuredContent?: unknown;
  };
}

/** What `--fixtures <file>` says the server serves, beyond its tools' calls. */
export interface Expectations {
  /** Tool name → a deep subset of the `inputSchema` its listing must carry (keywords preserved). */
  schemas?: Record<string, Record<string, unknown>>;
  /** Resource URI (a listed resource, or one a listed template expands to) → what reading it returns. */
  resources?: Record<string, ResourceExpectation>;
  /** Prompt name → the arguments to get it with and what its messages must contain. */
  prompts?: Record<string, PromptExpectation>;
}

export interface ResourceExpectation {
  /** The first content's MIME type. */
  mimeType?: string;
  /** A substring of the text contents. */
  textIncludes?: string;
  /** The first content is text (`text`) or binary (`blob`). */
  kind?: 'text' | 'blob';
}

export interface PromptExpectation {
  arguments?: Record<string, string>;
  /** Substrings of the messages (JSON); by default every argument value (substitution). */
  includes?: string[];
}

export class CheckContext {
  readonly traffic = new Traffic();
  /** Which era this run checks (decided before the first check, src/check/run/era.ts). */
  era: Era = 'handshake';
  /** The version this run checks: the modern one sent in `_meta`, or the handshake one offered. */
  version: string | undefined;
  /** The server's DiscoverResult (modern era). */
  discover: Record<string, unknown> | undefined;
  /** The first session's setup (what lifecycle checks judge). */
  firstSession: Session | undefined;
  setupFailure: SetupFailure | undefined;
  private established = false;
  private session_: Session | undefined;
  private sessionPromise: Promise<Session> | undefined;
  private readonly own: Probe[] = [];
  /** The era probe's connection (stdio): the shared session initializes on it, or it becomes the modern era's shared wire. */
  private preInit: Probe | undefined;
  /** Connections and processes several checks share (see `kept`), closed by closeAll(). */
  private readonly keptBy = new Map<string, { close(): Promise<unknown> }>();
  /** Probes and processes still shutting down (a stdio server may take its stdin → SIGTERM ladder). */
  private readonly closing = new Set<Promise<unknown>>();
  private readonly memos = new Map<string, Promise<unknown>>();
  private sharedOpening: Promise<Probe> | undefined;
  /** Keys the check now running kept with handOn(): dropped by checkEnded() unless it ended clean. */
  private readonly handing = new Set<string>();

  constructor(
    readonly target: ServerConfig,
    readonly options: CheckOptions,
  ) {}

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  get isHttp(): boolean {
    return this.target.transport === 'http';
  }

  /** A fresh connection (spawned anew for stdio), closed when the current check ends. */
  async open(): Promise<Probe> {
    const p = await this.openUnowned();
    this.own.push(p);
    return p;
  }

  /** A fresh connection the caller closes (or hands to keep()). */
  openUnowned(): Promise<Probe> {
    return Probe.open(this.target, this.traffic, { timeoutMs: this.timeoutMs, closeOnExit: this.options.closeOnExit === true, authProvider: this.options.authProvider });
  }

  /**
   * Keeps `probe` (opened by the current check, never initialized) for the shared session to
   * initialize on instead of starting the server again: the era probe's connection, which a
   * client would go on with (`server/discover`, then `initialize`; src/mcp/eras/select.ts).
   */
  keepForSession(probe: Probe): void {
    const i = this.own.indexOf(probe);
    if (i >= 0) this.own.splice(i, 1);
    if (this.preInit !== undefined && this.preInit !== probe) this.later(this.preInit.close());
    this.preInit = probe;
  }

  /** The connection or process kept under `key` for the checks that share it, if any. */
  kept<T extends { close(): Promise<unknown> }>(key: string): T | undefined {
    return this.keptBy.get(key) as T | undefined;
  }

  /** Keeps `r` under `key` (closing, later, what was kept there before); closeAll() closes it. */
  keep(key: string, r: { close(): Promise<unknown> }): void {
    const before = this.keptBy.get(key);
    if (before !== undefined && before !== r) this.later(before.close());
    this.keptBy.set(key, r);
  }

  /**
   * Keeps `r` under `key` for a later check only if the check now running ends clean (passed or
   * did not apply, `checkEnded()`): after a violation, a skip or an error the next check that
   * wants one starts the server afresh, so no verdict rests on what another check provoked.
   */
  handOn(key: string, r: { close(): Promise<unknown> }): void {
    this.keep(key, r);
    this.handing.add(key);
  }

  /** Takes what is kept under `key` out of the context (the caller closes it now). */
  take<T extends { close(): Promise<unknown> }>(key: string): T | undefined {
    const r = this.keptBy.get(key) as T | undefined;
    this.keptBy.delete(key);
    return r;
  }

  /** Begins closing what is kept under `key` (the next check that wants one starts afresh). */
  drop(key: string): void {
    const r = this.keptBy.get(key);
    this.keptBy.delete(key);
    if (r !== undefined) this.later(r.close());
  }

  /**
   * The stateless wire of the modern era, at the version this run checks. Over stdio its
   * requests go to the connection the checks share (`sharedWire()`), or with `own` to a fresh
   * process of the check's own (closed when it ends).
   */
  wire(o: { own?: boolean } = {}): ModernWire {
    return new ModernWire(this, this.version ?? MODERN_REVISIONS[0]!, { shared: o.own !== true });
  }

  /**
   * The stdio connection the checks of the modern era share: the era is stateless (each request
   * carries its own `_meta`, there is no session), so one process serves every check that only
   * sends requests and reads their answers. It starts as the era probe's connection (the
   * client goes on on it after a DiscoverResult), else a fresh start; one that closed is
   * started again. `checkEnded()` decides whether the next check gets it.
   */
  async sharedWire(): Promise<Probe> {
    const s = this.kept<SharedWire>(SHARED_WIRE);
    if (s !== undefined && !s.probe.closed) {
      s.touched = true;
      return s.probe;
    }
    if (s !== undefined) this.drop(SHARED_WIRE);
    this.sharedOpening ??= (async () => {
      const era = this.era === 'modern' && this.preInit !== undefined && !this.preInit.closed ? this.preInit : undefined;
      this.preInit = undefined;
      const probe = era ?? (await this.openUnowned());
      const shared: SharedWire = { probe, touched: true, unsure: false, close: () => probe.close() };
      this.keep(SHARED_WIRE, shared);
      return probe;
    })().finally(() => (this.sharedOpening = undefined));
    return this.sharedOpening;
  }

  /** A request on `probe` went unanswered (a timeout, the connection closed): the shared connection is not handed on. */
  wireUnsure(probe: Probe): void {
    const s = this.kept<SharedWire>(SHARED_WIRE);
    if (s?.probe === probe) s.unsure = true;
  }

  /**
   * The runner's word that a check ended: `clean` when it passed or did not apply, without a
   * checker error. What it kept with handOn() goes on only when it ended clean. The shared modern connection goes on to the next check only after a clean
   * check whose every request on it was answered; after a violation, a timeout, an unanswered
   * request or a dead process the next check starts the server afresh, so no verdict rests on
   * what another check provoked.
   */
  checkEnded(clean: boolean): void {
    for (const key of this.handing) if (!clean) this.drop(key);
    this.handing.clear();
    const s = this.kept<SharedWire>(SHARED_WIRE);
    if (s === undefined || !s.touched) return;
    if (!clean || s.unsure || s.probe.closed) this.drop(SHARED_WIRE);
    else s.touched = false;
  }

  /** The capabilities the server declared in `server/discover` (modern era). */
  get modernCapabilities(): Record<string, unknown> {
    const c = this.discover?.capabilities;
    return isObject(c) ? c : {};
  }

  /** Closes the probes opened by the check that just ended. */
  async releaseProbes(): Promise<void> {
    const ps = this.own.splice(0);
    await Promise.all(ps.map((p) => p.close()));
  }

  /**
   * Begins closing the probes of the check that just ended without waiting for them: a stdio
   * server that stays up after its stdin closes costs the close ladder's wait, which the next
   * check need not spend idle. `settle()` (and `closeAll()`) wait for every such close.
   */
  releaseProbesLater(): void {
    for (const p of this.own.splice(0)) this.later(p.close());
  }

  /** Keeps `shutdown` (a probe's or a raw process's) for `settle()` to wait for. */
  later(shutdown: Promise<unknown>): void {
    const p = shutdown.catch(() => undefined).finally(() => this.closing.delete(p));
    this.closing.add(p);
  }

  /** Waits until every close begun by `releaseProbesLater()` / `later()` has ended. */
  async settle(): Promise<void> {
    while (this.closing.size > 0) await Promise.all([...this.closing]);
  }

  /**
   * The shared, initialized session. Throws BlockedError when it cannot be set up; re-opens it
   * when the server died under an earlier check.
   */
  async session(): Promise<Session> {
    if (this.session_ !== undefined && !this.session_.probe.closed) return this.session_;
    if (this.setupFailure !== undefined) throw new BlockedError(blockedText(this.setupFailure));
    if (this.sessionPromise === undefined) {
      this.memos.clear();
      this.sessionPromise = this.setUp().finally(() => (this.sessionPromise = undefined));
    }
    return this.sessionPromise;
  }

  private async setUp(): Promise<Session> {
    // The era probe's connection first, taken only when the whole setup works on it: a server
    // that minds the refused `server/discover` before it is set up on a fresh start, as before.
    const spare = this.preInit;
    this.preInit = undefined;
    if (spare !== undefined && !spare.closed) {
      const s = await this.setUpOn(spare, true);
      if (s !== undefined) return s;
    }
    let probe: Probe;
    try {
      probe = await this.openUnowned();
    } catch (err) {
      throw this.fail({ stage: 'spawn', detail: `could not start the server: ${(err as Error).message}` });
    }
    return (await this.setUpOn(probe, false))!;
  }

  /** initialize, initialized and a ping on `probe`; a tentative setup that fails closes it, forgets its traffic and returns undefined. */
  private async setUpOn(probe: Probe, tentative: boolean): Promise<Session | undefined> {
    const failed = async (f: SetupFailure): Promise<undefined> => {
      await probe.close();
      if (tentative) {
        this.traffic.forget(probe.id);
        return undefined;
      }
      throw this.fail(f);
    };
    const init = await probe.initialize(this.options.protocolVersion);
    const s: Session = { probe, init, protocolVersion: undefined, capabilities: {}, serverInfo: undefined, ping: undefined };
    if (!tentative) this.firstSession ??= s;
    if (init.kind !== 'result') {
      const blocked = blockedBy(init);
      return failed({ stage: 'initialize', detail: blocked ?? `initialize got ${describeOutcome(init)}`, evidence: init.kind === 'error' ? init.message?.message : undefined });
    }
    const r = init.result;
    s.protocolVersion = typeof r.protocolVersion === 'string' ? r.protocolVersion : undefined;
    s.capabilities = isObject(r.capabilities) ? r.capabilities : {};
    s.serverInfo = isObject(r.serverInfo) ? r.serverInfo : undefined;
    try {
      await probe.initialized();
    } catch (err) {
      return failed({ stage: 'after-initialized', detail: `could not send notifications/initialized: ${(err as Error).message}` });
    }
    s.ping = await probe.request('ping');
    if (s.ping.kind === 'timeout' || s.ping.kind === 'closed') {
      return failed({ stage: 'after-initialized', detail: `after notifications/initialized the server stopped answering: ping got ${describeOutcome(s.ping)}` });
    }
    this.firstSession ??= s;
    this.session_ = s;
    this.established = true;
    return s;
  }

  private fail(f: SetupFailure): BlockedError {
    // Only a failure before any session ever worked blocks the whole run; when the server died
    // under a check later on, that check reports it and the next check tries a new session.
    if (!this.established) this.setupFailure ??= f;
    return new BlockedError(blockedText(f));
  }

  /** Computes `fn` once per session (cleared when the session is re-opened). */
  memo<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let p = this.memos.get(key) as Promise<T> | undefined;
    if (p === undefined) {
      p = fn();
      this.memos.set(key, p);
    }
    return p;
  }

  async closeAll(): Promise<void> {
    await this.releaseProbes();
    for (const key of [...this.keptBy.keys()]) this.drop(key);
    if (this.preInit !== undefined) this.later(this.preInit.close());
    this.preInit = undefined;
    const s = this.session_;
    this.session_ = undefined;
    const first = this.firstSession;
    await Promise.all([s?.probe.close(), first?.probe.close(), this.settle()]);
  }
}

function blockedText(f: SetupFailure): string {
  if (f.detail.startsWith('blocked:')) return f.detail;
  const by = f.stage === 'after-initialized' ? 'lifecycle.initialized-accepted' : 'lifecycle.initialize-result';
  return `blocked: no working session (${f.detail}); see ${by}`;
}
