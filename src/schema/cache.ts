/**
 * A bounded LRU map: `get` refreshes an entry, `set` evicts the least recently used one past
 * `max`. Used for compiled validators, keyed by content hash, so schemas that are no longer
 * used (a server gone, a tool updated) fall out instead of piling up.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private limit: number) {}

  get max(): number {
    return this.limit;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.trim();
  }

  /** Changes the bound (at least 1), evicting at once; returns the previous bound. */
  resize(limit: number): number {
    const prev = this.limit;
    this.limit = Math.max(1, Math.floor(limit));
    this.trim();
    return prev;
  }

  private trim(): void {
    while (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as K);
  }
}
