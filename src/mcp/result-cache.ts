/**
 * The client-side cache of cacheable results (2026-07-28, server/utilities/caching): list and
 * read results carry `ttlMs` (how long they may be considered fresh) and `cacheScope`. A result
 * is stored under its method, its params in canonical JSON (without `_meta`, which carries the
 * client's own per-request envelope, not what affects the result) and the authorization context
 * it was fetched in; it is served only while fresh, dropped by the notification saying it
 * changed, and the whole is bounded in entries and bytes (least recently used out first).
 *
 * Pure: no timers (freshness is checked on access, server.utilities.caching#10: the TTL is no
 * polling interval), no I/O; the clock is injectable.
 */
import type { RequestOptions } from '../protocol/options.js';
import type { HttpAuthProvider } from '../transport/http-common.js';
import type { ServerConfig } from '../transport/create.js';

export type CacheScope = 'public' | 'private';

/** The methods whose complete results carry caching hints (server.utilities.caching#1). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** Which cached methods a list_changed notification (by method, or the client event it becomes) makes stale. */
const INVALIDATES: Record<string, readonly string[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
  toolsListChanged: ['tools/list'],
  promptsListChanged: ['prompts/list'],
  resourcesListChanged: ['resources/list', 'resources/templates/list'],
};

/** What `listTools` and the other cached reads take besides the request options. */
export interface FreshOption {
  /** Ask the server even when a fresh cached result is held (the new result is kept). */
  fresh?: boolean;
}

/** The options of a read the cache may answer. */
export type ReadOptions = RequestOptions & FreshOption;

/**
 * Where a client's cacheable results live: this process (`ResultCache`, the default) or a store
 * many processes share (src/store: Redis, given as `ClientOptions.resultStore`). A shared store
 * answers asynchronously and never rejects: an unreachable store is a miss, a put not kept.
 */
export interface ResultStore {
  get<T>(method: string, params: Record<string, unknown> | undefined, authContext: string): T | undefined | Promise<T | undefined>;
  put(method: string, params: Record<string, unknown> | undefined, authContext: string, result: unknown): boolean | Promise<boolean>;
  onNotification(method: string, params: Record<string, unknown> | undefined): number | Promise<number>;
  invalidateMethod(method: string): number | Promise<number>;
}

export interface ResultCacheOptions {
  /** At most this many results (default 256). */
  maxEntries?: number;
  /** At most this many bytes of result JSON in all (default 4 MiB); a larger result is not kept. */
  maxBytes?: number;
  /** The clock (ms); default `Date.now`. */
  now?: () => number;
}

interface Entry {
  method: string;
  /** `resources/read`: the URI a `notifications/resources/updated` names. */
  uri: string | undefined;
  /** The result as received, serialized: every hit hands out a fresh copy (callers may mutate). */
  json: string;
  bytes: number;
  /** server.utilities.caching#5: fresh while now < t_received + ttlMs. */
  freshUntil: number;
  scope: CacheScope;
}

export class ResultCache implements ResultStore {
  /** Insertion order is recency: a hit moves its entry to the end, eviction takes the front. */
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(options: ResultCacheOptions = {}) {
    this.maxEntries = Math.max(0, options.maxEntries ?? 256);
    this.maxBytes = Math.max(0, options.maxBytes ?? 4 * 1024 * 1024);
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }
  get bytes(): number {
    return this.totalBytes;
  }

  /**
   * The fresh result of exactly this request in this authorization context, a copy; undefined
   * when there is none or it went stale (server.utilities.caching#9: then it is fetched again).
   */
  get<T>(method: string, params: Record<string, unknown> | undefined, authContext: string): T | undefined {
    if (!cacheableRequest(method, params)) return undefined;
    const key = cacheKey(method, params, authContext);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (!(this.now() < entry.freshUntil)) {
      this.drop(key, entry);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return JSON.parse(entry.json) as T;
  }

  /** Keeps `result` of this request when its hints allow; returns whether it was kept. */
  put(method: string, params: Record<string, unknown> | undefined, authContext: string, result: unknown): boolean {
    if (!cacheableRequest(method, params) || !isRecord(result)) return false;
    // basic/patterns/mrtr: an interim result is no answer to the request, and carries no hints
    if (result.resultType !== undefined && result.resultType !== 'complete') return false;
    const ttl = freshnessMs(result.ttlMs);
    if (ttl === 0) return false;
    const json = JSON.stringify(result);
    const bytes = Buffer.byteLength(json);
    const key = cacheKey(method, params, authContext);
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    if (bytes > this.maxBytes || this.maxEntries === 0) return false;
    const uri = method === 'resources/read' && typeof params?.uri === 'string' ? params.uri : undefined;
    const scope: CacheScope = result.cacheScope === 'public' ? 'public' : 'private';
    this.entries.set(key, { method, uri, json, bytes, freshUntil: this.now() + ttl, scope });
    this.totalBytes += bytes;
    this.evict();
    return true;
  }

  /**
   * A server notification: a list_changed makes that family's lists stale, a resource updated
   * that resource's reads ("the notification invalidates the cached response"). `method` is the
   * notification's method or the client event it became (`toolsListChanged`, `resourceUpdated`…).
   * Returns how many entries it dropped.
   */
  onNotification(method: string, params: Record<string, unknown> | undefined): number {
    const stale = staleBy(method, params);
    if (stale === undefined) return 0;
    if ('uri' in stale) return this.dropWhere((e) => e.method === 'resources/read' && e.uri === stale.uri);
    return this.dropWhere((e) => stale.methods.includes(e.method));
  }

  /**
   * Drops every cached page of `method` (server.utilities.caching#15: a cursor the server no
   * longer accepts means the cached pages go, and the list is fetched from the beginning).
   */
  invalidateMethod(method: string): number {
    return this.dropWhere((e) => e.method === method);
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  private dropWhere(test: (e: Entry) => boolean): number {
    let n = 0;
    for (const [key, entry] of this.entries) {
      if (!test(entry)) continue;
      this.drop(key, entry);
      n++;
    }
    return n;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.totalBytes <= this.maxBytes) return;
      this.drop(key, entry);
    }
  }
}

/**
 * What a server notification makes stale: a list_changed the lists of its family, a resource
 * updated the reads of that URI; undefined for any other notification.
 */
export function staleBy(method: string, params: Record<string, unknown> | undefined): { methods: readonly string[] } | { uri: string } | undefined {
  if (method === 'notifications/resources/updated' || method === 'resourceUpdated') {
    const uri = params?.uri;
    return typeof uri === 'string' ? { uri } : undefined;
  }
  const methods = INVALIDATES[method];
  return methods === undefined ? undefined : { methods };
}

/**
 * How long a result with this `ttlMs` is fresh: absent, zero, negative or not a number means
 * immediately stale (server.utilities.caching#4, #6, #7).
 */
export function freshnessMs(ttlMs: unknown): number {
  return typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0 ? ttlMs : 0;
}

/**
 * Whether a request of `method` with `params` may be answered from, or stored in, the cache:
 * a cacheable method, and not a multi round-trip retry (server.utilities.caching#3: its result
 * depends on inputs that are not part of the key).
 */
export function cacheableRequest(method: string, params: Record<string, unknown> | undefined): boolean {
  if (!CACHEABLE_METHODS.has(method)) return false;
  return params === undefined || (params.inputResponses === undefined && params.requestState === undefined);
}

/**
 * The key of a request (server.utilities.caching#2: another method or other params is another
 * key; #12: another authorization context is another key). `_meta` is left out: it is the
 * client's envelope (version, capabilities, progress token), the same for every request of it.
 */
export function cacheKey(method: string, params: Record<string, unknown> | undefined, authContext: string): string {
  let keyed: unknown = params;
  if (params !== undefined && '_meta' in params) {
    const { _meta: _, ...rest } = params;
    keyed = rest;
  }
  return `${authContext}\u0000${method}\u0000${canonicalJson(keyed ?? {})}`;
}

/** JSON with object keys sorted at every depth: equal params give equal text whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (isRecord(value)) {
    const parts: string[] = [];
    for (const k of Object.keys(value).sort()) {
      const v = value[k];
      if (v === undefined || typeof v === 'function') continue;
      parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * An authorization context's id from the headers a request goes out with: a digest of the
 * credential (never the credential itself, which must not sit in memory maps or reach a trace),
 * or `anonymous` when there is none.
 */
export function authContextId(headers: Record<string, string> | undefined): string {
  if (headers === undefined) return 'anonymous';
  let credential: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') credential = value;
  }
  if (credential === undefined || credential === '') return 'anonymous';
  // node:crypto on first use, not with `import('mcpwire')` (it is a measurable share of the import)
  const { createHash } = process.getBuiltinModule('node:crypto');
  return `auth:${createHash('sha256').update(credential).digest('base64url')}`;
}

/**
 * A request of `method` through `cache`: a fresh result held for it in the current
 * authorization context answers it (unless `fresh`), else `send` does and its result is kept.
 * A result reached through input rounds is not kept (server.utilities.caching#3: the retry
 * carried `inputResponses`, which the key does not hold): `send` is told to count its request
 * ids, one per round. A page the server refuses drops every cached page of that list
 * (server.utilities.caching#15).
 */
export async function readThrough<T>(
  cache: ResultStore,
  method: string,
  params: Record<string, unknown> | undefined,
  options: ReadOptions | undefined,
  authContext: () => Promise<string>,
  send: (options: RequestOptions | undefined) => Promise<T>,
): Promise<T> {
  if (!cacheableRequest(method, params)) return send(options);
  const context = await authContext();
  if (options?.fresh !== true) {
    const hit = await Promise.resolve(cache.get<T>(method, params, context)).catch(() => undefined);
    if (hit !== undefined) return hit;
  }
  let sends = 0;
  const onRequestId = options?.onRequestId;
  const counted: RequestOptions = {
    ...options,
    onRequestId: (id) => {
      sends++;
      onRequestId?.(id);
    },
  };
  let result: T;
  try {
    result = await send(counted);
  } catch (err) {
    if (params?.cursor !== undefined) await Promise.resolve(cache.invalidateMethod(method)).catch(() => 0);
    throw err;
  }
  // kept under the context it was fetched in: not when the credential changed meanwhile
  if (sends === 1 && (await authContext()) === context) await Promise.resolve(cache.put(method, params, context, result)).catch(() => false);
  return result;
}

/**
 * The authorization context of a client's requests now: the configured headers and the auth
 * provider's current credential (`refresh: false`: no round trip, nothing refreshed for this).
 */
export function authContextSource(config: ServerConfig, provider: HttpAuthProvider | undefined): () => Promise<string> {
  const fixed = config.transport === 'stdio' ? undefined : config.headers;
  return async () => authContextId({ ...fixed, ...(provider === undefined ? undefined : await provider.headers({ refresh: false })) });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
