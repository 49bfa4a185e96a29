/**
 * Tokens in Redis, shared by every worker pointed at the same store, one entry per server key
 * (as `mcp-auth.json` has; the grant records its issuer): `<prefix>:token:<key>` holds the grant
 * (JSON), `<prefix>:gen:<key>` its generation, a counter every write increments.
 *
 * The refresh is single-flight across machines through `withLock` (the provider refreshes inside
 * it, re-reading the grant first):
 * - a lease `<prefix>:lease:<key>` taken with `SET NX PX` (a random holder id, `leaseMs`), renewed
 *   while the holder lives; a holder that dies stops renewing and another worker takes over
 *   once the lease expires;
 * - fencing: a write inside the lease runs as one Lua script that checks the lease is still this
 *   holder's and the generation is still the one seen when it was taken. A worker that lost its
 *   lease (paused past its expiry) or raced a login never overwrites the newer token: its write
 *   fails with `MCPWIRE_STORE_FENCED`, and the provider does not use what it could not store.
 * Writes outside a lease (a login, a logout) are unconditional and bump the generation too.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { AuthCallOptions, StoredGrant, TokenStore } from '../auth/types.js';
import { AbortError } from '../errors.js';
import { KeyedSerial } from '../util/serial.js';
import { sleep } from '../util/sleep.js';
import { StoreError } from './errors.js';
import { RedisEras, type RedisErasOptions } from './redis-eras.js';
import { RedisConnection, type RedisConnectionOptions, type StoreHealth } from './redis-connection.js';
import { RedisResults, type RedisResultsOptions } from './redis-results.js';
import { parseStoreSetting, type StoreSetting } from './setting.js';

/** Options of `RedisTokenStore`. */
export interface RedisTokenStoreOptions extends RedisConnectionOptions {
  /** Lease lifetime; renewed every third of it while held (default 15 000 ms, at least 200). */
  leaseMs?: number;
  /** Most time `withLock` waits for another worker's lease (default 60 000 ms). */
  waitMs?: number;
}

/** Takes the lease when free; the generation seen then (0 for none), or -1 when held by another. */
const ACQUIRE = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return tonumber(redis.call('GET', KEYS[2]) or '0') end return -1`;
/** Extends the lease if still ours: 1, else 0. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** Drops the lease if still ours. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/**
 * The write: KEYS token, gen, lease; ARGV value ('' deletes), holder id ('' = unconditional),
 * generation expected. -1: lease lost; -2: a newer generation was written; else the new generation.
 */
const WRITE = `if ARGV[2] ~= '' then
  if redis.call('GET', KEYS[3]) ~= ARGV[2] then return -1 end
  if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[3]) then return -2 end
end
if ARGV[1] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('INCR', KEYS[2])`;

interface Lease {
  key: string;
  id: string;
  gen: number;
  lost: boolean;
}

export class RedisTokenStore implements TokenStore {
  private readonly conn: RedisConnection;
  private readonly local = new KeyedSerial<string>();
  private readonly held = new AsyncLocalStorage<Lease>();
  private readonly leaseMs: number;
  private readonly setting: Extract<StoreSetting, { kind: 'redis' }>;

  /** `store`: a `redis://` / `rediss://` URL, or its parsed setting. */
  constructor(
    store: string | StoreSetting,
    private readonly options: RedisTokenStoreOptions = {},
  ) {
    const setting = typeof store === 'string' ? parseStoreSetting(store, 'RedisTokenStore') : store;
    if (setting.kind !== 'redis') throw new StoreError('MCPWIRE_STORE_CONFIG', `RedisTokenStore needs a redis:// or rediss:// URL, not the ${setting.kind} store`);
    this.setting = setting;
    this.conn = new RedisConnection(setting, options);
    this.leaseMs = Math.max(200, options.leaseMs ?? 15_000);
  }

  health(): StoreHealth {
    return this.conn.health();
  }

  private shared: RedisResults | undefined;

  /** The 2026-07-28 result cache in the same Redis, on the same connection (redis-results.ts). */
  results(options?: RedisResultsOptions): RedisResults {
    this.shared ??= new RedisResults(this.conn, this.setting.prefix, options);
    return this.shared;
  }

  private eraRecords: RedisEras | undefined;

  /** The era verdicts in the same Redis, on the same connection (redis-eras.ts). */
  eras(options?: RedisErasOptions): RedisEras {
    this.eraRecords ??= new RedisEras(this.conn, this.setting.prefix, options);
    return this.eraRecords;
  }

  close(): Promise<void> {
    return this.conn.close();
  }

  async get(key: string, options: AuthCallOptions = {}): Promise<StoredGrant | undefined> {
    options.signal?.throwIfAborted();
    const raw = await this.conn.command(['GET', this.k('token', key)]);
    if (raw === null || raw === undefined) return undefined;
    try {
      const g = JSON.parse(String(raw)) as StoredGrant;
      if (typeof g !== 'object' || g === null || typeof g.access_token !== 'string') throw new Error('shape');
      return { ...g };
    } catch {
      // Never quoted: the value holds tokens.
      throw new StoreError('MCPWIRE_STORE_UNAVAILABLE', `the store ${this.setting.shown} holds an entry for ${JSON.stringify(key.slice(0, 100))} that is not a grant`);
    }
  }

  set(key: string, grant: StoredGrant, options: AuthCallOptions = {}): Promise<void> {
    return this.write(key, JSON.stringify(grant), options);
  }

  delete(key: string, options: AuthCallOptions = {}): Promise<void> {
    return this.write(key, '', options);
  }

  /**
   * Runs `fn` holding the lease of `key` across every worker of the store (and, first, this
   * process's queue for it). Re-entrant within `fn`'s async context.
   */
  async withLock<T>(key: string, fn: () => Promise<T>, options: AuthCallOptions = {}): Promise<T> {
    const mine = this.held.getStore();
    if (mine?.key === key) return fn();
    return this.local.run(key, async () => {
      const lease = await this.acquire(key, options.signal);
      const every = Math.max(50, Math.floor(this.leaseMs / 3));
      const timer = setInterval(() => {
        void this.conn.command(['EVAL', RENEW, '1', this.k('lease', key), lease.id, String(this.leaseMs)]).then(
          (r) => {
            if (Number(r) !== 1) lease.lost = true;
          },
          () => {
            /* Redis away: the lease may expire; the fenced write will tell. */
          },
        );
      }, every);
      timer.unref?.();
      try {
        return await this.held.run(lease, fn);
      } finally {
        clearInterval(timer);
        await this.conn.command(['EVAL', RELEASE, '1', this.k('lease', key), lease.id]).catch(() => undefined);
      }
    });
  }

  private async acquire(key: string, signal: AbortSignal | undefined): Promise<Lease> {
    const id = randomBytes(16).toString('hex');
    const deadline = Date.now() + (this.options.waitMs ?? 60_000);
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new AbortError('waiting for the token lease was aborted', { phase: 'auth' });
      const gen = Number(await this.conn.command(['EVAL', ACQUIRE, '2', this.k('lease', key), this.k('gen', key), id, String(this.leaseMs)]));
      if (gen >= 0) return { key, id, gen, lost: false };
      if (Date.now() >= deadline) throw new StoreError('MCPWIRE_STORE_UNAVAILABLE', `timed out waiting for another worker's lease on the token of ${JSON.stringify(key.slice(0, 100))} in ${this.setting.shown}`);
      await sleep(Math.min(25 * 2 ** Math.min(attempt, 5), 500) * (0.5 + Math.random() / 2), signal, () => new AbortError('waiting for the token lease was aborted', { phase: 'auth' }));
    }
  }

  private async write(key: string, value: string, options: AuthCallOptions): Promise<void> {
    options.signal?.throwIfAborted();
    const lease = this.held.getStore();
    const fenced = lease !== undefined && lease.key === key;
    const r = Number(
      await this.conn.command(['EVAL', WRITE, '3', this.k('token', key), this.k('gen', key), this.k('lease', key), value, fenced ? lease.id : '', fenced ? String(lease.gen) : '0']),
    );
    if (r === -1) throw new StoreError('MCPWIRE_STORE_FENCED', `the lease on the token of ${JSON.stringify(key.slice(0, 100))} expired before it was written (another worker took over): this write was refused and its token is not used`);
    if (r === -2) throw new StoreError('MCPWIRE_STORE_FENCED', `a newer token of ${JSON.stringify(key.slice(0, 100))} was written meanwhile: this write was refused and its token is not used`);
    if (fenced) lease.gen = r;
  }

  private k(kind: 'token' | 'gen' | 'lease', key: string): string {
    return `${this.setting.prefix}:${kind}:${key}`;
  }
}
