/**
 * A table of live entries keyed by JSON-RPC ids, for tables whose keys come and go all the time
 * (the requests in flight), without a `Map`.
 *
 * Why not a `Map`: V8 rebuilds a Map's hash table once deletions have used up its room, and
 * the table it leaves is linked to the new one (so that live iterators can follow). Under steady
 * churn — a request added, another settled, thousands of times a second — those tables form a
 * chain that only a full collection breaks, and what they still hold keeps settled requests
 * reachable. Measured on the client at 64 requests in flight over stdio: a quarter of everything
 * allocated survived each young-generation collection and was then promoted (~100 MB promoted
 * per 200,000 calls, scavenges of 4–6 ms, a mark-compact every 20,000 calls); with this table,
 * ~1 MB, scavenges under 0.5 ms, and a third less client CPU per call (docs/performance.md).
 *
 * How: a non-negative integer id (what a client's counter gives) lives in a slot of a
 * power-of-two array, `id & mask`; deleting empties the slot and allocates nothing. The slot
 * array grows while it is more than half full; an id whose slot is taken by another live id (a
 * long-lived request the counter has lapped), and any other id (a string, a negative or huge
 * number), goes to a `Map` beside it, used rarely. Iteration gives insertion order.
 */

/** Slots to begin with; the array doubles up to `MAX_SLOTS`. */
const INITIAL_SLOTS = 64;
const MAX_SLOTS = 1 << 16;
const EMPTY = -1;

/** An id the slots take: an integer from 0 to 2^31 − 1. */
function isSlotId(id: unknown): id is number {
  return typeof id === 'number' && (id | 0) === id && id >= 0;
}

/**
 * The slots of a table nothing was added to yet: one empty slot, never written (the first `set`
 * allocates the real ones). A connection serving one request (a gateway's stateless POST) makes
 * tables it never fills; three arrays each would be allocated for nothing.
 */
const UNALLOCATED = new Int32Array(1).fill(EMPTY);
const NO_ORDER = new Float64Array(1);

export class IdTable<K extends string | number, V> {
  private mask = 0;
  /** The id in each slot, or EMPTY. */
  private ids = UNALLOCATED;
  private values: (V | undefined)[] = [undefined];
  /** When each slot's entry was added (insertion order for `entries`). */
  private order = NO_ORDER;
  private inSlots = 0;
  /** Ids the slots do not take, with when they were added. */
  private others: Map<K, { value: V; order: number }> | undefined;
  private added = 0;

  get size(): number {
    return this.inSlots + (this.others?.size ?? 0);
  }

  get(id: K): V | undefined {
    if (isSlotId(id)) {
      const i = id & this.mask;
      if (this.ids[i] === id) return this.values[i];
    }
    return this.others === undefined ? undefined : this.others.get(id)?.value;
  }

  has(id: K): boolean {
    if (isSlotId(id) && this.ids[id & this.mask] === id) return true;
    return this.others !== undefined && this.others.has(id);
  }

  /** Adds `id`, or replaces its value (keeping its place in the order). */
  set(id: K, value: V): void {
    const other = this.others?.get(id);
    if (other !== undefined) {
      other.value = value;
      return;
    }
    if (isSlotId(id)) {
      if (this.ids === UNALLOCATED) this.allocate();
      let i = id & this.mask;
      if (this.ids[i] === id) {
        this.values[i] = value;
        return;
      }
      if (this.ids[i] !== EMPTY && this.inSlots * 2 >= this.ids.length && this.ids.length < MAX_SLOTS) {
        this.grow();
        i = id & this.mask;
      }
      if (this.ids[i] === EMPTY) {
        this.ids[i] = id;
        this.values[i] = value;
        this.order[i] = this.added++;
        this.inSlots++;
        return;
      }
    }
    (this.others ??= new Map()).set(id, { value, order: this.added++ });
  }

  delete(id: K): boolean {
    if (isSlotId(id)) {
      const i = id & this.mask;
      if (this.ids[i] === id) {
        this.ids[i] = EMPTY;
        this.values[i] = undefined;
        this.inSlots--;
        return true;
      }
    }
    return this.others !== undefined && this.others.delete(id);
  }

  /** Every entry, in the order added. */
  entries(): [K, V][] {
    const all: { id: K; value: V; order: number }[] = [];
    const ids = this.ids;
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) all.push({ id: ids[i] as unknown as K, value: this.values[i] as V, order: this.order[i] });
    if (this.others !== undefined) for (const [id, o] of this.others) all.push({ id, value: o.value, order: o.order });
    all.sort((a, b) => a.order - b.order);
    return all.map((e) => [e.id, e.value]);
  }

  private allocate(): void {
    this.ids = new Int32Array(INITIAL_SLOTS).fill(EMPTY);
    this.values = new Array<V | undefined>(INITIAL_SLOTS).fill(undefined);
    this.order = new Float64Array(INITIAL_SLOTS);
    this.mask = INITIAL_SLOTS - 1;
  }

  /** Twice the slots; every slot id finds a free slot there (distinct ids mod n stay distinct mod 2n). */
  private grow(): void {
    const n = this.ids.length * 2;
    const ids = new Int32Array(n).fill(EMPTY);
    const values = new Array<V | undefined>(n).fill(undefined);
    const order = new Float64Array(n);
    const mask = n - 1;
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i];
      if (id === EMPTY) continue;
      const j = id & mask;
      ids[j] = id;
      values[j] = this.values[i];
      order[j] = this.order[i];
    }
    this.ids = ids;
    this.values = values;
    this.order = order;
    this.mask = mask;
  }
}
