/**
 * The subscriber side of Redis pub/sub for `serve --http` replicas: one extra connection per
 * replica (a subscribed Redis connection takes no other command), many channels on it. node-redis
 * resubscribes by itself after a reconnection; while Redis is away a subscription is simply quiet
 * (the caller's own timers — the owner's liveness check — decide what to do then). A channel
 * asked for while Redis was unreachable (a replica started before Redis) is subscribed once the
 * connection is ready.
 */
import { StoreError } from './errors.js';
import type { StoreSetting } from './setting.js';

type RedisSetting = Extract<StoreSetting, { kind: 'redis' }>;
type Listener = (message: string) => void;

interface SubClient {
  isReady: boolean;
  connect(): Promise<unknown>;
  subscribe(channel: string, fn: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: string, fn: (...a: unknown[]) => void): unknown;
  destroy(): void;
}

export class RedisSubscriber {
  private client: Promise<SubClient> | undefined;
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Channels subscribed on the connection (node-redis keeps them across reconnections). */
  private readonly subscribed = new Set<string>();
  private closed = false;

  constructor(private readonly setting: RedisSetting) {}

  /**
   * Listens on `channel` until the returned function is called. Resolves once subscribed; while
   * Redis is away it rejects (`keep`: false) or keeps the listener to subscribe when Redis is back.
   */
  async subscribe(channel: string, fn: Listener, keep = false): Promise<() => void> {
    const c = await this.open();
    let set = this.listeners.get(channel);
    if (set === undefined) this.listeners.set(channel, (set = new Set()));
    set.add(fn);
    const unsubscribe = () => {
      const s = this.listeners.get(channel);
      if (s === undefined || !s.delete(fn) || s.size > 0) return;
      this.listeners.delete(channel);
      if (this.subscribed.delete(channel) && c.isReady) c.unsubscribe(channel).catch(() => {});
    };
    try {
      await this.attach(c, channel);
    } catch (err) {
      if (keep) return unsubscribe;
      unsubscribe();
      throw new StoreError('MCPWIRE_STORE_UNAVAILABLE', `the store ${this.setting.shown} is unreachable (subscribe)`, err);
    }
    return unsubscribe;
  }

  private async attach(c: SubClient, channel: string): Promise<void> {
    if (this.subscribed.has(channel)) return;
    if (!c.isReady) throw new Error('not connected');
    this.subscribed.add(channel);
    try {
      await c.subscribe(channel, (m) => {
        for (const l of [...(this.listeners.get(channel) ?? [])]) l(m);
      });
    } catch (err) {
      this.subscribed.delete(channel);
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    void this.client?.then((c) => c.destroy()).catch(() => {});
  }

  private open(): Promise<SubClient> {
    if (this.closed) return Promise.reject(new StoreError('MCPWIRE_STORE_UNAVAILABLE', `the store ${this.setting.shown} was closed`));
    this.client ??= (async () => {
      const { createClient } = await import('redis');
      const c = createClient({ url: this.setting.url, socket: { connectTimeout: 5_000, reconnectStrategy: (n: number) => Math.min(2_000, 50 * 2 ** Math.min(n, 6)) } }) as unknown as SubClient;
      c.on('error', () => {});
      // Channels asked for while Redis was away.
      c.on('ready', () => {
        for (const ch of this.listeners.keys()) this.attach(c, ch).catch(() => {});
      });
      await c.connect().catch(() => {});
      return c;
    })();
    return this.client;
  }
}
