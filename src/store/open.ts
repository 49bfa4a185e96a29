/**
 * The token store a setting names: `file` (default, `mcp-auth.json` under its file lock),
 * `memory`, or Redis. The Redis client is loaded only when a Redis store is first used.
 */
import { FileTokenStore } from '../auth/file-store.js';
import { MemoryTokenStore } from '../auth/memory-store.js';
import type { TokenStore } from '../auth/types.js';
import type { StoreHealth } from './redis-connection.js';
import type { RedisEras } from './redis-eras.js';
import type { RedisResults } from './redis-results.js';
import { RedisTokenStore, type RedisTokenStoreOptions } from './redis-tokens.js';
import type { StoreSetting } from './setting.js';

/** A token store that can say how it is (Redis: connected or degraded). */
export type TokenStoreWithHealth = TokenStore & { health(): StoreHealth; close?(): Promise<void> };

export function openTokenStore(setting: StoreSetting, o: { file: string; redis?: RedisTokenStoreOptions }): TokenStoreWithHealth {
  if (setting.kind === 'redis') return new RedisTokenStore(setting, o.redis);
  const since = Date.now();
  const store: TokenStore = setting.kind === 'memory' ? new MemoryTokenStore() : new FileTokenStore(o.file);
  return Object.assign(store, { health: (): StoreHealth => ({ kind: setting.kind, state: 'ok', since, reconnects: 0 }) });
}

/** The shared result cache that goes with a token store: Redis's, else none (each client keeps its own). */
export function sharedResultsOf(tokens: TokenStore | undefined): RedisResults | undefined {
  return tokens instanceof RedisTokenStore ? tokens.results() : undefined;
}

/** The shared era verdicts that go with a token store: Redis's, else none (the host's local memory alone). */
export function sharedErasOf(tokens: TokenStore | undefined): RedisEras | undefined {
  return tokens instanceof RedisTokenStore ? tokens.eras() : undefined;
}
