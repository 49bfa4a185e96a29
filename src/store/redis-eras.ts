/**
 * Era verdicts in Redis (src/host/era-memory.ts decides what a verdict is and when it holds):
 * every worker, replica and daemon on the store reads the verdict one of them found, so a
 * handshake-era stdio server is probed once for all of them, not once per process.
 *
 * Keys (`<prefix>:era:…`): a record per entry's place `r:<slot>` (the host's JSON record: hashes,
 * an era, the server's `name@version` and when — nothing secret), set with `PX maxAgeMs` so Redis
 * drops it when it is too old to be trusted; `idx`, the places by time written. A write keeps at
 * most `maxRecords` records (the oldest dropped first) in one script, so any number of writers
 * leaves the same bound. A record over `maxRecordBytes` is not kept.
 *
 * Every method rejects with `MCPWIRE_STORE_UNAVAILABLE` while Redis is away: the host then uses
 * its local memory (src/host/era-shared.ts).
 */
import type { RedisConnection } from './redis-connection.js';

/** Options of `RedisEras`. */
export interface RedisErasOptions {
  /** Records kept at most (default 256, as the local file). */
  maxRecords?: number;
  /** A record is dropped this long after it was written (default 7 days, as the local file). */
  maxAgeMs?: number;
  /** One record at most this many bytes (default 1 KiB). */
  maxRecordBytes?: number;
}

/** KEYS record, idx; ARGV slot, value, ttl ms, at, max records, record prefix. */
const PUT = `redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  for _, s in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    redis.call('DEL', ARGV[6] .. s)
    redis.call('ZREM', KEYS[2], s)
  end
end
return 1`;

/** KEYS record, idx; ARGV slot. */
const DROP = `redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])`;

export class RedisEras {
  readonly maxRecords: number;
  readonly maxAgeMs: number;
  private readonly maxRecordBytes: number;

  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
    options: RedisErasOptions = {},
  ) {
    this.maxRecords = Math.max(1, options.maxRecords ?? 256);
    this.maxAgeMs = Math.max(1, options.maxAgeMs ?? 7 * 24 * 3_600_000);
    this.maxRecordBytes = Math.max(64, options.maxRecordBytes ?? 1024);
  }

  /** The record kept at `slot` (a hex digest of the entry's place), if any. */
  async get(slot: string): Promise<string | undefined> {
    const raw = await this.conn.command(['GET', this.key(slot)]);
    return typeof raw === 'string' && raw.length <= this.maxRecordBytes ? raw : undefined;
  }

  /** Keeps `value` at `slot`, written at epoch ms `at`; false when too large to keep. */
  async put(slot: string, value: string, at: number): Promise<boolean> {
    if (Buffer.byteLength(value) > this.maxRecordBytes) return false;
    await this.conn.command(['EVAL', PUT, '2', this.key(slot), this.idx(), slot, value, String(this.maxAgeMs), String(Math.floor(at)), String(this.maxRecords), this.key('')]);
    return true;
  }

  async drop(slot: string): Promise<void> {
    await this.conn.command(['EVAL', DROP, '2', this.key(slot), this.idx(), slot]);
  }

  private key(slot: string): string {
    return `${this.prefix}:era:r:${slot}`;
  }

  private idx(): string {
    return `${this.prefix}:era:idx`;
  }
}
