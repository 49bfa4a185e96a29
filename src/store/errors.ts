/**
 * The shared store's errors. None carries a secret: a Redis URL is shown with its password
 * replaced (`shownUrl`), and a Redis reply is never quoted when it could echo a value.
 */
import { McpWireError } from '../errors.js';

/**
 * `MCPWIRE_STORE_CONFIG` (a bad `store` setting), `MCPWIRE_STORE_UNAVAILABLE` (Redis cannot be
 * reached now), `MCPWIRE_STORE_FENCED` (a write refused because this worker's lease was lost or a
 * newer token was written meanwhile: what it refreshed is not used).
 */
export class StoreError extends McpWireError {
  constructor(code: 'MCPWIRE_STORE_CONFIG' | 'MCPWIRE_STORE_UNAVAILABLE' | 'MCPWIRE_STORE_FENCED', message: string, cause?: unknown) {
    super(code, message, { phase: code === 'MCPWIRE_STORE_CONFIG' ? 'config' : 'auth', ...(cause !== undefined ? { cause } : {}) });
    this.name = 'StoreError';
  }
}

export const isStoreError = (e: unknown): e is StoreError => e instanceof StoreError;
