/**
 * The 2026-07-28 result cache in Redis, shared by every host pointed at the same store: a
 * result one worker fetched is served to the others while its `ttlMs` lasts
 * (server.utilities.caching#5), within the same authorization context only.
 *
 * Keys (`<prefix>:rc:…`):
 * - an entry `e:<server>:<generation>:<hash>`: `<server>` is a digest of the server's URL and its
 *   configured headers (another server, or the same URL with other credentials, is another
 *   scope); `<hash>` a SHA-256 of the client's cache key (method, canonical params and the
 *   authorization context, itself a digest of the credential: src/mcp/result-cache.ts), so one
 *   user's cached result never reaches another's requests. Set with `PX ttlMs`: Redis drops it
 *   when it goes stale.
 * - a generation per server and family (`g:<server>:<method>`, or per resource URI for reads):
 *   a list_changed or resource updated notification heard by any worker bumps it, and every
 *   entry of the older generation is no longer found by anyone.
 * - the bound in bytes: a size per entry (`sz`), their sum (`bytes`) and the entries by expiry
 *   (`idx`); a put that would pass `maxBytes` first drops the entries closest to expiring.
 *
 * Only HTTP servers share (the same remote server for every worker); a stdio server is a
 * process of this machine, and keeps its results in the client's own cache.
 *
 * Never throws: while Redis is unreachable a get is a miss and a put is not kept
 * (`ResultStore`), and the store's health says so.
 */
import { createHash } from 'node:crypto';
import { cacheKey, cacheableRequest, canonicalJson, freshnessMs, staleBy, type ResultStore } from '../mcp/result-cache.js';
import type { ServerConfig } from '../transport/create.js';
import type { RedisConnection } from './redis-connection.js';

/** Options of `RedisResults`. */
export interface RedisResultsOptions {
  /** Every cached result of the store together at most this many bytes (default 64 MiB). */
  maxBytes?: number;
  /** One result at most this many bytes (default 1 MiB); a larger one is not kept. */
  maxEntryBytes?: number;
  /** A result is kept at most this long whatever its `ttlMs` (default 24 h). */
  maxTtlMs?: number;
}

/** Reads the entry under the family's current generation. KEYS gen; ARGV entry base, hash. */
const GET = `local g = redis.call('GET', KEYS[1]) or '0'
return redis.call('GET', ARGV[1] .. ':' .. g .. ':' .. ARGV[2])`;

/**
 * Keeps an entry within the byte bound. KEYS gen, idx, sz, bytes; ARGV entry base, hash, value,
 * ttl ms, size, max bytes. Forgets entries past their expiry first, then drops the entries
 * closest to expiring while the new one would not fit.
 */
const PUT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function forget(k)
  local n = tonumber(redis.call('HGET', KEYS[3], k) or '0')
  redis.call('HDEL', KEYS[3], k)
  redis.call('ZREM', KEYS[2], k)
  if n > 0 then redis.call('DECRBY', KEYS[4], n) end
end
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 200)) do forget(k) end
local key = ARGV[1] .. ':' .. (redis.call('GET', KEYS[1]) or '0') .. ':' .. ARGV[2]
if redis.call('HEXISTS', KEYS[3], key) == 1 then forget(key) end
local size = tonumber(ARGV[5])
local max = tonumber(ARGV[6])
while tonumber(redis.call('GET', KEYS[4]) or '0') + size > max do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then
    redis.call('SET', KEYS[4], '0')
    break
  end
  redis.call('DEL', first[1])
  forget(first[1])
end
redis.call('SET', key, ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), key)
redis.call('HSET', KEYS[3], key, size)
redis.call('INCRBY', KEYS[4], size)
return 1`;

/** Bumps generations. KEYS the generation keys; ARGV their lifetime (ms). */
const BUMP = `for _, k in ipairs(KEYS) do
  redis.call('INCR', k)
  redis.call('PEXPIRE', k, ARGV[1])
end
return #KEYS`;

const sha = (text: string): string => createHash('sha256').update(text).digest('base64url');

/**
 * The scope of a server's shared results: a digest of its URL and configured headers (their
 * values too: other credentials, other scope); undefined for a stdio server (not shared).
 */
export function sharedResultScope(config: ServerConfig): string | undefined {
  if (config.transport !== 'http') return undefined;
  return sha(canonicalJson({ url: config.url, headers: config.headers ?? {}, legacySse: config.legacySse === true })).slice(0, 32);
}

/** The shared result cache of one store; `forServer` gives each client its scoped view. */
export class RedisResults {
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  private readonly maxTtlMs: number;

  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
    options: RedisResultsOptions = {},
  ) {
    this.maxBytes = Math.max(0, options.maxBytes ?? 64 * 1024 * 1024);
    this.maxEntryBytes = Math.min(this.maxBytes, Math.max(0, options.maxEntryBytes ?? 1024 * 1024));
    this.maxTtlMs = Math.max(1, options.maxTtlMs ?? 24 * 3_600_000);
  }

  /** The `ResultStore` of a client of `config`; undefined for a stdio server (it keeps its own). */
  forServer(config: ServerConfig): ResultStore | undefined {
    const scope = sharedResultScope(config);
    return scope === undefined ? undefined : new ScopedResults(this, scope);
  }

  /** @internal */
  genKey(scope: string, method: string, uri?: string): string {
    return `${this.prefix}:rc:g:${scope}:${method}${uri !== undefined ? `:${sha(uri)}` : ''}`;
  }

  /** @internal */
  async get(scope: string, gen: string, hash: string): Promise<string | undefined> {
    const raw = await this.conn.command(['EVAL', GET, '1', gen, `${this.prefix}:rc:e:${scope}`, hash]);
    return typeof raw === 'string' ? raw : undefined;
  }

  /** @internal */
  async put(scope: string, gen: string, hash: string, json: string, ttlMs: number): Promise<boolean> {
    const bytes = Buffer.byteLength(json);
    if (bytes > this.maxEntryBytes) return false;
    const ttl = String(Math.max(1, Math.min(Math.ceil(ttlMs), this.maxTtlMs)));
    const k = (s: string) => `${this.prefix}:rc:${s}`;
    await this.conn.command(['EVAL', PUT, '4', gen, k('idx'), k('sz'), k('bytes'), k(`e:${scope}`), hash, json, ttl, String(bytes), String(this.maxBytes)]);
    return true;
  }

  /** @internal A generation outlives every entry it covers (so that it never goes back). */
  async bump(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.conn.command(['EVAL', BUMP, String(keys.length), ...keys, String(this.maxTtlMs + 60_000)]);
  }
}

/** One server's view of the shared results (the `ResultStore` a client is given). */
class ScopedResults implements ResultStore {
  constructor(
    private readonly shared: RedisResults,
    private readonly scope: string,
  ) {}

  async get<T>(method: string, params: Record<string, unknown> | undefined, authContext: string): Promise<T | undefined> {
    if (!cacheableRequest(method, params)) return undefined;
    try {
      const raw = await this.shared.get(this.scope, this.gen(method, params), sha(cacheKey(method, params, authContext)));
      return raw === undefined ? undefined : (JSON.parse(raw) as T);
    } catch {
      return undefined; // unreachable (the store's health says so) or not JSON: a miss
    }
  }

  async put(method: string, params: Record<string, unknown> | undefined, authContext: string, result: unknown): Promise<boolean> {
    if (!cacheableRequest(method, params) || typeof result !== 'object' || result === null || Array.isArray(result)) return false;
    const r = result as Record<string, unknown>;
    // basic/patterns/mrtr: an interim result is no answer, and carries no hints
    if (r.resultType !== undefined && r.resultType !== 'complete') return false;
    const ttl = freshnessMs(r.ttlMs);
    if (ttl === 0) return false;
    try {
      return await this.shared.put(this.scope, this.gen(method, params), sha(cacheKey(method, params, authContext)), JSON.stringify(result), ttl);
    } catch {
      return false;
    }
  }

  async onNotification(method: string, params: Record<string, unknown> | undefined): Promise<number> {
    const stale = staleBy(method, params);
    if (stale === undefined) return 0;
    const keys = 'uri' in stale ? [this.shared.genKey(this.scope, 'resources/read', stale.uri)] : stale.methods.map((m) => this.shared.genKey(this.scope, m));
    return this.bump(keys);
  }

  invalidateMethod(method: string): Promise<number> {
    return this.bump([this.shared.genKey(this.scope, method)]);
  }

  private async bump(keys: string[]): Promise<number> {
    try {
      await this.shared.bump(keys);
      return keys.length;
    } catch {
      return 0;
    }
  }

  private gen(method: string, params: Record<string, unknown> | undefined): string {
    const uri = method === 'resources/read' && typeof params?.uri === 'string' ? params.uri : undefined;
    return this.shared.genKey(this.scope, method, uri);
  }
}
