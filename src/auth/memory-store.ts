/** The in-memory TokenStore: grants live as long as the process (the default store). */
import type { AuthCallOptions, StoredGrant, TokenStore } from './types.js';

export class MemoryTokenStore implements TokenStore {
  private readonly grants = new Map<string, StoredGrant>();
  private readonly locks = new Map<string, Promise<unknown>>();

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
  async withLock<T>(serverKey: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(serverKey) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(serverKey, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(serverKey) === tail) this.locks.delete(serverKey);
    }
  }
}
