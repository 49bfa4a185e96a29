/**
 * What `serve --http` replicas share in Redis (`serve --store redis://…`), one object per replica:
 *
 * - session records `<p>:serve:session:<sid>` — the client's `initialize` params, so any replica
 *   can serve a request carrying that `MCP-Session-Id` (it re-creates the session from them);
 *   they expire `ttlMs` after the session's last request, and DELETE drops them (and publishes
 *   the end on `<p>:serve:ctl`, so every replica lets go of its copy);
 * - replicas `<p>:serve:replica:<id>` — each replica's internal address, renewed every
 *   `heartbeatMs` and expiring after `3 × heartbeatMs`: a replica whose key is gone is dead (its
 *   streams may be taken over, its held calls are lost);
 * - held calls `<p>:serve:held:<callId>` — the replica holding a 2026-07-28 client's downstream
 *   call between its input rounds;
 * - each stream's event history (redis-history.ts) and the subscriber (redis-pubsub.ts).
 */
import { randomBytes } from 'node:crypto';
import { StoreError } from './errors.js';
import { RedisConnection, type RedisConnectionOptions, type StoreHealth } from './redis-connection.js';
import { DEFAULT_HISTORY_BOUNDS, RedisHistory, type HistoryBounds } from './redis-history.js';
import { RedisSubscriber } from './redis-pubsub.js';
import { parseStoreSetting, type StoreSetting } from './setting.js';

export interface RedisServeStateOptions extends RedisConnectionOptions {
  /** Liveness renewal period (default 1 000 ms; a replica is dead 3 periods after its last). */
  heartbeatMs?: number;
  /** History and session bounds. */
  history?: Partial<HistoryBounds>;
}

export class RedisServeState {
  /** This replica's id (random per process). */
  readonly replica = randomBytes(6).toString('hex');
  readonly history: RedisHistory;
  readonly sub: RedisSubscriber;
  readonly ttlMs: number;
  readonly heartbeatMs: number;
  private readonly conn: RedisConnection;
  private readonly base: string;
  private timer: NodeJS.Timeout | undefined;
  private address = '';

  constructor(store: string | StoreSetting, options: RedisServeStateOptions = {}) {
    const setting = typeof store === 'string' ? parseStoreSetting(store, 'serve --store') : store;
    if (setting.kind !== 'redis') throw new StoreError('MCPWIRE_STORE_CONFIG', `serve's shared state needs a redis:// or rediss:// URL, not the ${setting.kind} store`);
    this.conn = new RedisConnection(setting, options);
    this.base = `${setting.prefix}:serve:`;
    const bounds = { ...DEFAULT_HISTORY_BOUNDS, ...options.history };
    this.ttlMs = bounds.ttlMs;
    this.history = new RedisHistory(this.conn, this.base, bounds);
    this.sub = new RedisSubscriber(setting);
    this.heartbeatMs = Math.max(50, options.heartbeatMs ?? 1_000);
  }

  health(): StoreHealth {
    return this.conn.health();
  }

  /**
   * Announces this replica at `address` (its internal `host:port`) and keeps it alive;
   * `recovered` runs when a heartbeat gets through after failing, or after the connection
   * reconnected since the last one (Redis is back: a Redis that restarted empty needs the
   * replica's records again — and an outage shorter than a heartbeat fails none).
   */
  async start(address: string, recovered?: () => void): Promise<void> {
    this.address = address;
    let failing = false;
    let reconnects = this.conn.health().reconnects;
    const beat = () =>
      this.conn.command(['SET', `${this.base}replica:${this.replica}`, this.address, 'PX', String(this.heartbeatMs * 3)]).then(
        () => {
          const now = this.conn.health().reconnects;
          if (failing || now !== reconnects) recovered?.();
          failing = false;
          reconnects = now;
        },
        () => {
          failing = true;
        },
      );
    this.timer = setInterval(() => void beat(), this.heartbeatMs);
    this.timer.unref();
    await beat();
  }

  /** The internal address of a live replica, or undefined when it is gone. */
  async replicaAddress(id: string): Promise<string | undefined> {
    const r = await this.conn.command(['GET', `${this.base}replica:${id}`]);
    return typeof r === 'string' ? r : undefined;
  }

  async saveSession(sid: string, record: Record<string, unknown>): Promise<void> {
    await this.conn.command(['SET', `${this.base}session:${sid}`, JSON.stringify(record), 'PX', String(this.ttlMs)]);
  }

  /** The session's record, or undefined when it is unknown (never was, expired, deleted). */
  async loadSession(sid: string): Promise<Record<string, unknown> | undefined> {
    const r = await this.conn.command(['GET', `${this.base}session:${sid}`]);
    if (typeof r !== 'string') return undefined;
    try {
      const v = JSON.parse(r) as unknown;
      return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The session is alive: its record (and nothing else) lives `ttlMs` more. */
  touchSession(sid: string): void {
    this.conn.command(['PEXPIRE', `${this.base}session:${sid}`, String(this.ttlMs)]).catch(() => undefined);
  }

  /** DELETE: the record and history dropped, every replica told. */
  async deleteSession(sid: string): Promise<void> {
    await this.conn.command(['DEL', `${this.base}session:${sid}`]);
    await this.history.dropSession(sid);
    await this.conn.command(['PUBLISH', `${this.base}ctl`, `end ${sid}`]);
  }

  /** Hears sessions ended on any replica. */
  onSessionEnded(fn: (sid: string) => void): Promise<() => void> {
    return this.sub.subscribe(`${this.base}ctl`, (m) => {
      if (m.startsWith('end ')) fn(m.slice(4));
    }, true);
  }

  /** Tells every replica that session `sid` set its log level (each copy of the session adopts it). */
  async publishLevel(sid: string, level: string): Promise<void> {
    await this.conn.command(['PUBLISH', `${this.base}ctl`, `level ${this.replica} ${sid} ${level}`]);
  }

  /** Hears the log levels sessions set on other replicas. */
  onSessionLevel(fn: (sid: string, level: string) => void): Promise<() => void> {
    return this.sub.subscribe(`${this.base}ctl`, (m) => {
      const [what, replica, sid, level] = m.split(' ');
      if (what === 'level' && replica !== this.replica && sid !== undefined && level !== undefined) fn(sid, level);
    }, true);
  }

  /** Tells every replica that session `sid` subscribed to `uri` here, or unsubscribed (their copies let go of theirs). */
  async publishSubscription(sid: string, what: 'sub' | 'unsub', uri: string): Promise<void> {
    await this.conn.command(['PUBLISH', `${this.base}ctl`, `${what} ${this.replica} ${sid} ${JSON.stringify(uri)}`]);
  }

  /** Hears the subscriptions sessions changed on other replicas. */
  onSessionSubscription(fn: (sid: string, uri: string) => void): Promise<() => void> {
    return this.sub.subscribe(`${this.base}ctl`, (m) => {
      const [what, replica, sid] = m.split(' ', 3);
      if ((what !== 'sub' && what !== 'unsub') || replica === this.replica || sid === undefined) return;
      try {
        const uri: unknown = JSON.parse(m.slice(what.length + replica!.length + sid.length + 3));
        if (typeof uri === 'string') fn(sid, uri);
      } catch {
        /* not ours */
      }
    }, true);
  }

  /** Hands a notification for session `sid` to the replica holding its GET stream (none: dropped). */
  async publishToSession(sid: string, text: string): Promise<void> {
    await this.conn.command(['PUBLISH', `${this.base}note:${sid}`, text]);
  }

  /** Hears the notifications for session `sid` other replicas could not deliver (this replica holds its GET stream). */
  onSessionNote(sid: string, fn: (text: string) => void): Promise<() => void> {
    return this.sub.subscribe(`${this.base}note:${sid}`, fn, true);
  }

  /** Hands the client's answer to a request replica `replica` sent in session `sid` (it came in here). */
  async publishAnswer(replica: string, sid: string, message: string): Promise<void> {
    await this.conn.command(['PUBLISH', `${this.base}answers:${replica}`, `${sid}\n${message}`]);
  }

  /** Hears the answers other replicas took in for requests this replica sent. */
  onAnswer(fn: (sid: string, message: string) => void): Promise<() => void> {
    return this.sub.subscribe(`${this.base}answers:${this.replica}`, (m) => {
      const nl = m.indexOf('\n');
      if (nl > 0) fn(m.slice(0, nl), m.slice(nl + 1));
    }, true);
  }

  /** Records that this replica holds the call `id` (for `ttlMs`). */
  async holdCall(id: string, ttlMs: number): Promise<void> {
    await this.conn.command(['SET', `${this.base}held:${id}`, this.replica, 'PX', String(ttlMs)]);
  }

  releaseCall(id: string): void {
    this.conn.command(['DEL', `${this.base}held:${id}`]).catch(() => undefined);
  }

  /** The replica holding call `id`, or undefined. */
  async holderOf(id: string): Promise<string | undefined> {
    const r = await this.conn.command(['GET', `${this.base}held:${id}`]);
    return typeof r === 'string' ? r : undefined;
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.conn.command(['DEL', `${this.base}replica:${this.replica}`]).catch(() => undefined);
    this.sub.close();
    await this.conn.close();
  }
}
