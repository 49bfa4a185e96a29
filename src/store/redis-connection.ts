/**
 * One Redis connection for the shared store (node-redis, loaded on first use only so that
 * `import('mcpwire')` stays light), with what the host needs when Redis goes away:
 *
 * - commands fail at once while Redis is unreachable (`MCPWIRE_STORE_UNAVAILABLE`, no queue that
 *   grows while it is down); callers keep serving what needs no store (calls on live connections);
 * - it reconnects by itself with capped exponential backoff plus jitter, and recovers without a
 *   restart;
 * - `health()` says what is degraded (state, since when, the last error — its text scrubbed of the
 *   URL's password), for the host's status.
 */
import { StoreError } from './errors.js';
import type { StoreSetting } from './setting.js';

type RedisSetting = Extract<StoreSetting, { kind: 'redis' }>;

/** What the store says about itself in status. */
export interface StoreHealth {
  kind: 'file' | 'memory' | 'redis';
  /** Redis: the URL with its password replaced. */
  url?: string;
  /** `ok`; `connecting` before the first attempt ended; `degraded` while Redis is unreachable (since the start or after a loss). */
  state: 'ok' | 'connecting' | 'degraded';
  /** Epoch ms the current state began. */
  since: number;
  /** The last connection error (scrubbed), while not `ok`. */
  lastError?: string;
  /** Reconnections after a loss, since the start. */
  reconnects: number;
}

/** Options of `RedisConnection`. */
export interface RedisConnectionOptions {
  /** Most time the first command waits for the first connection (default 5 000 ms). */
  connectTimeoutMs?: number;
  /** Backoff cap between reconnection attempts (default 5 000 ms). */
  maxBackoffMs?: number;
}

interface MinimalClient {
  isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  on(event: string, fn: (...a: unknown[]) => void): unknown;
  destroy(): void;
  close?(): Promise<void>;
}

export class RedisConnection {
  private client: MinimalClient | undefined;
  private opening: Promise<MinimalClient> | undefined;
  private state: StoreHealth['state'] = 'connecting';
  private since = Date.now();
  private lastError: string | undefined;
  private reconnects = 0;
  private everReady = false;
  private closed = false;

  constructor(
    readonly setting: RedisSetting,
    private readonly options: RedisConnectionOptions = {},
  ) {}

  health(): StoreHealth {
    return { kind: 'redis', url: this.setting.shown, state: this.state, since: this.since, ...(this.state !== 'ok' && this.lastError !== undefined ? { lastError: this.lastError } : {}), reconnects: this.reconnects };
  }

  /** Sends one command; rejects with `MCPWIRE_STORE_UNAVAILABLE` while Redis is unreachable. */
  async command(args: string[]): Promise<unknown> {
    if (this.closed) throw new StoreError('MCPWIRE_STORE_UNAVAILABLE', `the store ${this.setting.shown} was closed`);
    const client = await this.open();
    if (!client.isReady) throw this.unavailable();
    try {
      return await client.sendCommand(args);
    } catch (err) {
      if (!client.isReady) throw this.unavailable(err);
      // A Redis error reply (a script's own refusal is a value, not an error): named, not quoted.
      throw new StoreError('MCPWIRE_STORE_UNAVAILABLE', `the store ${this.setting.shown} refused ${args[0]}: ${this.scrub(String((err as Error).message ?? err)).slice(0, 200)}`, err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    if (c === undefined) return;
    try {
      if (c.isReady && c.close !== undefined) await c.close();
      else c.destroy();
    } catch {
      c.destroy();
    }
  }

  private unavailable(cause?: unknown): StoreError {
    const why = this.lastError !== undefined ? ` (${this.lastError})` : '';
    return new StoreError('MCPWIRE_STORE_UNAVAILABLE', `the store ${this.setting.shown} is unreachable${why}; retrying in the background`, cause);
  }

  private scrub(text: string): string {
    let out = text;
    try {
      const pass = decodeURIComponent(new URL(this.setting.url).password);
      if (pass !== '') out = out.split(pass).join('***');
    } catch {
      /* the setting was parsed already */
    }
    return out.split(this.setting.url).join(this.setting.shown);
  }

  private setState(state: StoreHealth['state']): void {
    if (state === this.state) return;
    this.state = state;
    this.since = Date.now();
  }

  private open(): Promise<MinimalClient> {
    this.opening ??= this.start();
    return this.opening;
  }

  private async start(): Promise<MinimalClient> {
    const { createClient } = await import('redis');
    const cap = this.options.maxBackoffMs ?? 5_000;
    const client = createClient({
      url: this.setting.url,
      // While Redis is away, commands fail at once instead of queueing without bound.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: this.options.connectTimeoutMs ?? 5_000,
        reconnectStrategy: (retries: number) => Math.round(Math.min(cap, 50 * 2 ** Math.min(retries, 10)) * (0.5 + Math.random() / 2)),
      },
    }) as unknown as MinimalClient;
    this.client = client;
    client.on('error', (err: unknown) => {
      // Without a listener an error event would end the process.
      this.lastError = this.scrub(String((err as Error)?.message ?? err)).slice(0, 200);
      // unreachable, whether it was reachable before or never yet
      this.setState('degraded');
    });
    client.on('reconnecting', () => {
      if (this.everReady) this.setState('degraded');
    });
    client.on('ready', () => {
      if (this.everReady) this.reconnects++;
      this.everReady = true;
      this.lastError = undefined;
      this.setState('ok');
    });
    const connected = client.connect().then(
      () => true,
      (err: unknown) => {
        this.lastError = this.scrub(String((err as Error)?.message ?? err)).slice(0, 200);
        this.setState('degraded');
        return false;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.options.connectTimeoutMs ?? 5_000);
      timer.unref?.();
    });
    // The first attempt failing (refused, unknown host) is an answer: unreachable now, retried in
    // the background; only an attempt that hangs waits out connectTimeoutMs.
    const failed = new Promise<false>((resolve) => client.on('error', () => resolve(false)));
    const ok = await Promise.race([connected, timedOut, failed]);
    clearTimeout(timer);
    if (!ok && !client.isReady) this.setState('degraded');
    return client;
  }
}
