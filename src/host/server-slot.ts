/**
 * One configured server under supervision: connect, list tools, watch for the connection to
 * drop, reconnect with backoff and jitter (`backoff.ts`), refresh tools on `list_changed`.
 * States follow the status view: `disabled`, `connecting`, `auth_required`,
 * `ready`, `error` — plus `untrusted` (a project server the user has not trusted: never
 * started), `stopped` (`host.stopServer(id)`: closed on purpose, no retries until
 * `startServer`) and `closed` once the host is closed or the server removed. A connection that
 * fails or drops affects only this server.
 */
import { isAuthRequiredError, type McpWireError } from '../errors.js';
import { TASKS_EXTENSION } from '../mcp/capabilities.js';
import type { ClientOptions } from '../mcp/client.js';
import type { Tool } from '../mcp/types.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { watchNotifications } from './call-notifications.js';
import type { ConnectFn, HostClient } from './host-client.js';

export type { ConnectFn, HostClient } from './host-client.js';
import { toConnectConfig } from './config/connect.js';
import { untrustedHint } from './config/trust.js';
import type { ResolvedServer } from './config/types.js';
import type { ServerConfig } from '../transport/create.js';
import { serverRedaction, type ServerRedaction } from './redaction.js';
import { DenialLog, denialText } from './sandbox-note.js';
import { sanitizeText } from './text.js';
import type { EraMemory } from './era-memory.js';

/**
 * The host runs task-required tools as tasks in every era: 2025-11-25 tasks are core, 2026-07-28
 * tasks are the extension `io.modelcontextprotocol/tasks`, which the client declares in its
 * capabilities (basic/versioning "Extension Negotiation") and then follows the task handles a
 * server returns. Declared unless the embedder's `capabilities.extensions` names it already.
 */
export function withTasksExtension(options: ClientOptions): ClientOptions {
  const given = options.capabilities?.extensions;
  const extensions = given !== null && typeof given === 'object' ? (given as Record<string, unknown>) : {};
  if (TASKS_EXTENSION in extensions) return options;
  return { ...options, capabilities: { ...options.capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } };
}


/** A server's state in the status view. */
export type ServerState = 'disabled' | 'untrusted' | 'connecting' | 'auth_required' | 'ready' | 'error' | 'stopped' | 'closed';

/** What the slot needs from the host. */
export interface SlotDeps {
  connect: ConnectFn;
  clientOptions: ClientOptions;
  backoff: BackoffOptions;
  random: () => number;
  now: () => number;
  /** Era verdicts kept across processes (era-memory.ts). */
  eraMemory?: EraMemory;
  /** State, tools or error changed. */
  onChange: (slot: ServerSlot) => void;
  /** The server said its resources or prompts changed. */
  onListChanged: (slot: ServerSlot, kind: 'resources' | 'prompts') => void;
  onDiagnostic: (slot: ServerSlot, message: string) => void;
  /** A notification of this server that no call's listener received (`call-notifications.ts`). */
  onNotification?: (slot: ServerSlot, method: string, params: Record<string, unknown> | undefined) => void;
}

/** One supervised server (see the module comment). */
export class ServerSlot {
  state: ServerState;
  client: HostClient | undefined;
  tools: Tool[] = [];
  lastError: string | undefined;
  lastConnectedAt: number | undefined;
  retries = 0;
  nextRetryAt: number | undefined;
  /** What this server's sandbox refused that the host saw (the proxy's refusals), bounded. */
  readonly denials = new DenialLog();
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private abort: AbortController | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private detach: (() => void) | undefined;
  private started = false;
  private attempting: Promise<void> | undefined;
  /** Set by close(): nothing connects again, whatever was under way. */
  private closedForGood = false;
  /**
   * The client of the attempt under way, until its first `tools/list` makes it `client`:
   * disconnect() closes it too, or a close during that listing would orphan its process.
   */
  private pending: HostClient | undefined;
  /**
   * The era the last successful opening found (basic.versioning#7): a reconnect, a restart and
   * `startServer` of this same configuration open with it rather than probe again. A failed
   * opening forgets it, so the next attempt probes; a changed entry is a new slot.
   */
  private knownEra: 'modern' | 'handshake' | undefined;

  constructor(
    readonly server: ResolvedServer,
    private readonly deps: SlotDeps,
  ) {
    this.state = server.error !== undefined ? 'error' : !server.enabled ? 'disabled' : server.untrusted ? 'untrusted' : 'connecting';
    this.lastError = server.error !== undefined ? `invalid configuration: ${server.error}` : this.state === 'untrusted' ? untrustedHint(server) : undefined;
  }

  /** Connects (once); resolves when the attempt settled, whatever its outcome. */
  async start(): Promise<void> {
    if (this.started || this.state === 'closed' || this.state === 'stopped' || this.server.error !== undefined || !this.server.enabled || this.server.untrusted) return;
    this.started = true;
    await this.attempt();
  }

  /**
   * Connects now, whatever the state (`host.startServer`): a stopped, failed or config-disabled
   * server too. Never an invalid or untrusted entry (the caller refuses those), never a closed one.
   */
  async startNow(): Promise<void> {
    if (this.state === 'closed' || this.server.error !== undefined || this.server.untrusted) return;
    if (this.state === 'ready') return;
    if (this.state === 'connecting' && this.attempting !== undefined) return this.attempting;
    this.started = true;
    await this.disconnect();
    this.retries = 0;
    await this.attempt();
  }

  /** Closes the connection on purpose: state `stopped`, no retries until started again. */
  async stop(): Promise<void> {
    if (this.state === 'closed') return;
    await this.disconnect();
    this.retries = 0;
    this.setState('stopped');
  }

  /** Drops the connection (if any) and connects again now, with the retry count reset. */
  async restart(): Promise<void> {
    if (this.state === 'closed') return;
    await this.disconnect();
    this.retries = 0;
    if (this.server.error === undefined && !this.server.untrusted) await this.attempt();
  }

  /** Stops retrying and closes the client. Idempotent. */
  async close(): Promise<void> {
    this.closedForGood = true;
    await this.disconnect();
    this.setState('closed');
  }

  private attempt(): Promise<void> {
    const p = this.connectOnce().finally(() => {
      if (this.attempting === p) this.attempting = undefined;
    });
    this.attempting = p;
    return p;
  }

  private async connectOnce(): Promise<void> {
    if (this.closedForGood) return;
    const gen = ++this.generation;
    this.clearTimer();
    const abort = (this.abort = new AbortController());
    this.setState('connecting');
    const timeoutMs = this.server.config.requestTimeoutMs;
    let client: HostClient | undefined;
    let recalled: 'handshake' | undefined;
    try {
      const pinned = this.server.config.protocolVersion;
      recalled = pinned === undefined && this.knownEra === undefined ? await this.recallEra() : undefined;
      const known = this.knownEra ?? recalled;
      const era = pinned !== undefined ? { protocolVersion: pinned } : known !== undefined ? { knownEra: known } : {};
      client = await this.deps.connect(this.connectConfig(), { timeoutMs, ...withTasksExtension(this.deps.clientOptions), ...era, signal: abort.signal });
      if (gen !== this.generation) return void (await client.close().catch(() => {}));
      this.pending = client;
      this.attach(client, gen);
      const tools = client.serverCapabilities?.tools ? await client.listTools({ timeoutMs, signal: abort.signal }) : [];
      if (gen !== this.generation) return; // disconnect() closed `pending`
      this.pending = undefined;
      this.client = client;
      this.knownEra = client.era === 'modern' || client.era === 'handshake' ? client.era : undefined;
      if (pinned === undefined) await this.deps.eraMemory?.opened(this.server, client.era, client.serverInfo, recalled !== undefined).catch(() => {});
      this.tools = tools;
      this.lastError = undefined;
      this.lastConnectedAt = this.deps.now();
      this.retries = 0;
      this.nextRetryAt = undefined;
      this.setState('ready');
    } catch (err) {
      if (gen !== this.generation) return;
      this.knownEra = undefined;
      await this.deps.eraMemory?.failed(this.server).catch(() => {});
      this.detach?.();
      this.pending = undefined;
      await client?.close().catch(() => {});
      this.failed(err);
    }
  }

  /** The verdict an earlier process kept for this entry (era-memory.ts); none when it cannot be read. */
  private recallEra(): Promise<'handshake' | undefined> {
    return this.deps.eraMemory?.recall(this.server).catch(() => undefined) ?? Promise.resolve(undefined);
  }

  /** The connect() config, a sandbox's refusals reported to this slot. */
  private connectConfig(): ServerConfig {
    const config = toConnectConfig(this.server);
    if (config.transport === 'stdio' && config.sandbox !== undefined) {
      config.sandbox.onDenied = (d) => {
        const line = denialText(d);
        this.denials.record(line);
        this.deps.onDiagnostic(this, `sandbox: ${line}`);
      };
    }
    return config;
  }

  private attach(client: HostClient, gen: number): void {
    const onClose = (err: unknown): void => {
      if (gen !== this.generation || this.state === 'closed') return;
      this.detach?.();
      this.client = undefined;
      this.tools = [];
      this.failed(err ?? new Error('connection closed'));
    };
    const onTools = (): void => void this.refreshTools(gen);
    const onResources = (): void => this.deps.onListChanged(this, 'resources');
    const onPrompts = (): void => this.deps.onListChanged(this, 'prompts');
    watchNotifications(client, (method, params) => {
      if (gen === this.generation) this.deps.onNotification?.(this, method, params);
    });
    client.on('close', onClose);
    client.on('toolsListChanged', onTools);
    client.on('resourcesListChanged', onResources);
    client.on('promptsListChanged', onPrompts);
    this.detach = () => {
      client.off('close', onClose);
      client.off('toolsListChanged', onTools);
      client.off('resourcesListChanged', onResources);
      client.off('promptsListChanged', onPrompts);
      this.detach = undefined;
    };
  }

  /** Re-lists tools after `notifications/tools/list_changed`; bursts coalesce into one more listing. */
  refreshTools(gen = this.generation): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const client = this.client;
        if (client === undefined || gen !== this.generation) return;
        try {
          const tools = await client.listTools({ timeoutMs: this.server.config.requestTimeoutMs });
          if (gen !== this.generation || this.client !== client) return;
          this.tools = tools;
          this.deps.onChange(this);
        } catch (err) {
          this.deps.onDiagnostic(this, `tools/list after list_changed failed: ${errorText(err, this.redaction.text)}; keeping the previous tools`);
        }
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** How this server's secrets are taken out of what the host hands out (`redaction.ts`). */
  get redaction(): ServerRedaction {
    return (this.redactionCache ??= serverRedaction(this.server));
  }
  private redactionCache: ServerRedaction | undefined;

  private failed(err: unknown): void {
    this.lastError = errorText(err, this.redaction.text);
    if (isAuthRequiredError(err)) {
      // Retrying cannot help until someone authorizes: wait for restart().
      this.setState('auth_required');
      return;
    }
    this.setState('error');
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    const max = this.deps.backoff.maxRetries ?? DEFAULT_BACKOFF.maxRetries;
    if (this.retries >= max) {
      this.nextRetryAt = undefined;
      return;
    }
    const delay = backoffDelay(this.retries, this.deps.backoff, this.deps.random);
    this.retries++;
    this.nextRetryAt = this.deps.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.attempt();
    }, delay);
    this.timer.unref?.();
    this.deps.onChange(this);
  }

  private async disconnect(): Promise<void> {
    this.generation++;
    this.clearTimer();
    this.abort?.abort();
    this.detach?.();
    const clients = [this.client, this.pending];
    this.client = undefined;
    this.pending = undefined;
    this.tools = [];
    this.nextRetryAt = undefined;
    await Promise.all(clients.map((c) => c?.close().catch(() => {})));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.deps.onChange(this);
  }
}

/**
 * An error as one safe line: message (secrets taken out by `redact` before anything is cut,
 * control characters stripped, capped) and code.
 */
export function errorText(err: unknown, redact: (s: string) => string = (s) => s): string {
  const e = err as Partial<McpWireError> | undefined;
  const message = sanitizeText(redact(String(e?.message ?? err)), 500, true) || 'unknown error';
  return typeof e?.code === 'string' ? `${message} (${e.code})` : message;
}
