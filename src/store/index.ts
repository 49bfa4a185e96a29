/** The shared store's public surface (re-exported by src/host/index.ts). */
export { StoreError, isStoreError } from './errors.js';
export { parseStoreSetting, shownUrl, storeSettingFrom, type StoreSetting } from './setting.js';
export { type StoreHealth } from './redis-connection.js';
export { RedisTokenStore, type RedisTokenStoreOptions } from './redis-tokens.js';
export { openTokenStore, sharedResultsOf, sharedErasOf, type TokenStoreWithHealth } from './open.js';
export { RedisResults, sharedResultScope, type RedisResultsOptions } from './redis-results.js';
