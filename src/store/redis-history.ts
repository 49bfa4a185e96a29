/**
 * The resumption history of `serve --http`'s streams in Redis, so that a GET with
 * `Last-Event-ID` is served by any replica. Per session `<p>:serve:…:<sid>`:
 *
 * - `streams:<sid>` — the session's stream keys, oldest first (at most `maxStreams`: finished
 *   ones go first, then the oldest);
 * - `stream:<sid>:<key>` — a hash: `owner` (the replica writing it), `seq` (its latest event),
 *   `lost` (the highest event let go: a resumption from before it is refused), `done`, `bytes`,
 *   and `requests` (the JSON-RPC requests the stream answers, for a replica that takes it over);
 * - `events:<sid>:<key>` — its events, `<seq>\n<JSON text>`, oldest first;
 * - `bytes:<sid>` — the session's history bytes. Over `maxBytes`, finished streams go first
 *   (whole), then the oldest events of the stream written to, then of the others — the same
 *   order as the in-memory history; an event larger than the bound is not kept at all.
 *
 * Every append runs as one Lua script (bounds and all), which also publishes the event on the
 * stream's channel `ev:<sid>:<key>` (`<seq>\n<done>\n<text>`): a replica relaying that stream to
 * a client that resumed there hears it live. Every key expires `ttlMs` after the last write.
 * The scripts touch keys they compute from the session's: one Redis (or a primary), not Cluster.
 */
import type { RedisConnection } from './redis-connection.js';

export interface HistoryBounds {
  /** Events kept per stream (default 1000). */
  maxEvents: number;
  /** History bytes per session (default 4 MiB). */
  maxBytes: number;
  /** Streams kept per session (default 64). */
  maxStreams: number;
  /** Keys expire this long after the session's last write (default 30 min). */
  ttlMs: number;
}

/** A stream as read back for a resumption. */
export interface StoredStream {
  owner: string;
  seq: number;
  lost: number;
  done: boolean;
  events: { seq: number; text: string }[];
}

/** Deletes a stream whole (KEYS-free helper inlined in the scripts below). */
const DROP_STREAM = `local function dropStream(base, sid, k, sbytes, streams)
  local b = tonumber(redis.call('HGET', base .. 'stream:' .. sid .. ':' .. k, 'bytes') or '0')
  redis.call('DEL', base .. 'stream:' .. sid .. ':' .. k, base .. 'events:' .. sid .. ':' .. k)
  redis.call('LREM', streams, 0, k)
  if b > 0 then redis.call('DECRBY', sbytes, b) end
end
local function dropOldest(meta, events, sbytes)
  local e = redis.call('LPOP', events)
  if not e then return false end
  local nl = string.find(e, '\\n', 1, true)
  local n = #e - nl
  redis.call('HSET', meta, 'lost', string.sub(e, 1, nl - 1))
  redis.call('HINCRBY', meta, 'bytes', -n)
  redis.call('DECRBY', sbytes, n)
  return true
end
`;

/** KEYS meta, streams; ARGV base, sid, key, owner, requests, kind, ttl, maxStreams. */
const OPEN = `${DROP_STREAM}
redis.call('HSET', KEYS[1], 'owner', ARGV[4], 'seq', '0', 'lost', '0', 'bytes', '0', 'requests', ARGV[5], 'kind', ARGV[6])
redis.call('RPUSH', KEYS[2], ARGV[3])
local sbytes = ARGV[1] .. 'bytes:' .. ARGV[2]
local max = tonumber(ARGV[8])
if redis.call('LLEN', KEYS[2]) > max then
  for _, k in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
    if redis.call('LLEN', KEYS[2]) <= max then break end
    if k ~= ARGV[3] and redis.call('HGET', ARGV[1] .. 'stream:' .. ARGV[2] .. ':' .. k, 'done') == '1' then dropStream(ARGV[1], ARGV[2], k, sbytes, KEYS[2]) end
  end
  for _, k in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
    if redis.call('LLEN', KEYS[2]) <= max then break end
    if k ~= ARGV[3] and redis.call('HGET', ARGV[1] .. 'stream:' .. ARGV[2] .. ':' .. k, 'kind') ~= 'get' then dropStream(ARGV[1], ARGV[2], k, sbytes, KEYS[2]) end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 1`;

/** KEYS meta, events, sbytes, streams; ARGV base, sid, key, seq, text, done, maxEvents, maxBytes, ttl, channel. */
const APPEND = `${DROP_STREAM}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = #ARGV[5]
local maxb = tonumber(ARGV[8])
redis.call('HSET', KEYS[1], 'seq', ARGV[4])
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'done', '1') end
if n > maxb then
  redis.call('HSET', KEYS[1], 'lost', ARGV[4])
else
  redis.call('RPUSH', KEYS[2], ARGV[4] .. '\\n' .. ARGV[5])
  redis.call('HINCRBY', KEYS[1], 'bytes', n)
  local total = redis.call('INCRBY', KEYS[3], n)
  while redis.call('LLEN', KEYS[2]) > tonumber(ARGV[7]) do dropOldest(KEYS[1], KEYS[2], KEYS[3]) end
  if total > maxb then
    for _, k in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
      if tonumber(redis.call('GET', KEYS[3]) or '0') <= maxb then break end
      if k ~= ARGV[3] and redis.call('HGET', ARGV[1] .. 'stream:' .. ARGV[2] .. ':' .. k, 'done') == '1' then dropStream(ARGV[1], ARGV[2], k, KEYS[3], KEYS[4]) end
    end
    while tonumber(redis.call('GET', KEYS[3]) or '0') > maxb and dropOldest(KEYS[1], KEYS[2], KEYS[3]) do end
    for _, k in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
      if tonumber(redis.call('GET', KEYS[3]) or '0') <= maxb then break end
      local m = ARGV[1] .. 'stream:' .. ARGV[2] .. ':' .. k
      while tonumber(redis.call('GET', KEYS[3]) or '0') > maxb and dropOldest(m, ARGV[1] .. 'events:' .. ARGV[2] .. ':' .. k, KEYS[3]) do end
    end
  end
end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[9]) end
redis.call('PUBLISH', ARGV[10], ARGV[4] .. '\\n' .. ARGV[6] .. '\\n' .. ARGV[5])
return 1`;

/** KEYS meta, events; the stream's fields and its events. */
const READ = `return {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}`;

/** KEYS meta; ARGV expected owner, new owner. Takes an unfinished stream over from a replica that is gone: {seq, requests}, or false. */
const CLAIM = `if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'done') ~= '1' then
  redis.call('HSET', KEYS[1], 'owner', ARGV[2])
  return {redis.call('HGET', KEYS[1], 'seq'), redis.call('HGET', KEYS[1], 'requests')}
end
return false`;

/** KEYS streams; ARGV base, sid. Drops every stream of the session. */
const DROP_SESSION = `${DROP_STREAM}
for _, k in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do dropStream(ARGV[1], ARGV[2], k, ARGV[1] .. 'bytes:' .. ARGV[2], KEYS[1]) end
redis.call('DEL', KEYS[1], ARGV[1] .. 'bytes:' .. ARGV[2])
return 1`;

/** KEYS meta, streams; ARGV base, sid, key. A cancelled stream: nothing to resume. */
const FORGET = `${DROP_STREAM}
dropStream(ARGV[1], ARGV[2], ARGV[3], ARGV[1] .. 'bytes:' .. ARGV[2], KEYS[2])
return 1`;

export const DEFAULT_HISTORY_BOUNDS: HistoryBounds = { maxEvents: 1000, maxBytes: 4 * 1024 * 1024, maxStreams: 64, ttlMs: 30 * 60_000 };

export class RedisHistory {
  constructor(
    private readonly conn: RedisConnection,
    /** `<prefix>:serve:` */
    private readonly base: string,
    readonly bounds: HistoryBounds = DEFAULT_HISTORY_BOUNDS,
  ) {}

  /** The channel a stream's events are published on. */
  channel(sid: string, key: string): string {
    return `${this.base}ev:${sid}:${key}`;
  }

  async open(sid: string, key: string, owner: string, kind: 'post' | 'get', requests: string): Promise<void> {
    const b = this.bounds;
    await this.conn.command(['EVAL', OPEN, '2', this.meta(sid, key), this.streams(sid), this.base, sid, key, owner, requests, kind, String(b.ttlMs), String(b.maxStreams)]);
  }

  /** Event `seq` of the stream (`done`: its last); false when the stream is not (or no longer) in the store. */
  async append(sid: string, key: string, seq: number, text: string, done: boolean): Promise<boolean> {
    const b = this.bounds;
    const r = await this.conn.command(['EVAL', APPEND, '4', this.meta(sid, key), this.events(sid, key), `${this.base}bytes:${sid}`, this.streams(sid), this.base, sid, key, String(seq), text, done ? '1' : '', String(b.maxEvents), String(b.maxBytes), String(b.ttlMs), this.channel(sid, key)]);
    return Number(r) === 1;
  }

  async read(sid: string, key: string): Promise<StoredStream | undefined> {
    const r = (await this.conn.command(['EVAL', READ, '2', this.meta(sid, key), this.events(sid, key)])) as [string[], string[]];
    const flat = r?.[0] ?? [];
    if (flat.length === 0) return undefined;
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
    const events = (r[1] ?? []).map((e) => {
      const nl = e.indexOf('\n');
      return { seq: Number(e.slice(0, nl)), text: e.slice(nl + 1) };
    });
    return { owner: f.owner ?? '', seq: Number(f.seq ?? 0), lost: Number(f.lost ?? 0), done: f.done === '1', events };
  }

  /** Takes the stream over from `from` (gone): its latest seq and the requests it answers, or undefined when another replica took it or it is done. */
  async claim(sid: string, key: string, from: string, to: string): Promise<{ seq: number; requests: string } | undefined> {
    const r = (await this.conn.command(['EVAL', CLAIM, '1', this.meta(sid, key), from, to])) as [string, string] | null;
    return Array.isArray(r) ? { seq: Number(r[0]), requests: String(r[1] ?? '[]') } : undefined;
  }

  async forget(sid: string, key: string): Promise<void> {
    await this.conn.command(['EVAL', FORGET, '2', this.meta(sid, key), this.streams(sid), this.base, sid, key]);
  }

  async dropSession(sid: string): Promise<void> {
    await this.conn.command(['EVAL', DROP_SESSION, '1', this.streams(sid), this.base, sid]);
  }

  private meta(sid: string, key: string): string {
    return `${this.base}stream:${sid}:${key}`;
  }

  private events(sid: string, key: string): string {
    return `${this.base}events:${sid}:${key}`;
  }

  private streams(sid: string): string {
    return `${this.base}streams:${sid}`;
  }
}
