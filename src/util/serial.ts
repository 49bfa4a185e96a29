/**
 * One at a time: the chain behind single-flight refreshes and per-key locks. Each call runs
 * after every earlier one has settled (fulfilled or rejected) and its own outcome is returned
 * unchanged; a failure never blocks the calls queued behind it. Imports nothing.
 */
export class Serial {
  private tail: Promise<unknown> | undefined;

  /** True while a call runs or waits. */
  get busy(): boolean {
    return this.tail !== undefined;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.tail ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tail = tail;
    void tail.then(() => {
      if (this.tail === tail) this.tail = undefined;
    });
    return run;
  }
}

/** A `Serial` per key, dropped when its queue empties (no growth with the number of keys seen). */
export class KeyedSerial<K> {
  private readonly queues = new Map<K, Serial>();

  run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    let q = this.queues.get(key);
    if (q === undefined) this.queues.set(key, (q = new Serial()));
    const queue = q;
    const out = queue.run(fn);
    const drop = (): void => {
      // After this call's tail settled: drop the queue unless a later call joined it.
      void Promise.resolve().then(() => {
        if (!queue.busy && this.queues.get(key) === queue) this.queues.delete(key);
      });
    };
    out.then(drop, drop);
    return out;
  }

  /** Keys with a call running or waiting (for tests and leak checks). */
  get size(): number {
    return this.queues.size;
  }
}
