/** The in-memory TokenStore: grants live as long as the process (the default store). */
import { KeyedSerial } from '../util/serial.js';
import type { AuthCallOptions, StoredGrant, TokenStore } from './types.js';

export class MemoryTokenStore implements TokenStore {
  private readonly grants = new Map<string, StoredGrant>();
  private readonly locks = new KeyedSerial<string>();

  async get(serverKey: string, options?: AuthCallOptions): Promise<StoredGrant | undefined> {
    options?.signal?.throwIfAborted();
    const g = this.grants.get(serverKey);
    return g === undefined ? undefined : { ...g };
  }

  async set(serverKey: string, grant: StoredGrant, options?: AuthCallOptions): Promise<void> {
    options?.signal?.throwIfAborted();
    this.grants.set(serverKey, { ...grant });
  }

  async delete(serverKey: string, options?: AuthCallOptions): Promise<void> {
    options?.signal?.throwIfAborted();
    this.grants.delete(serverKey);
  }

  /** Serializes `fn` per key within this process. */
  withLock<T>(serverKey: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(serverKey, fn);
  }
}
