/**
 * What host tool calls share across calls (`calls.ts`): the `max_parallel` queues (one per
 * server, one for the whole host), the tools seen in earlier catalogs, one `status` listener
 * waking the calls that wait for a server to be ready again, and the store of cut results.
 */
import type { EventEmitter } from 'node:events';
import type { Tool } from '../mcp/types.js';
import { CallQueue } from './call-queue.js';
import { ResultStore, type ResultStoreOptions } from './result-pages.js';
import type { ServerSlot } from './server-slot.js';
import type { ToolCatalog } from './tools.js';

/** Options of `CallState`. */
export interface CallStateOptions {
  results?: ResultStoreOptions;
  /** The host-wide limit of calls in flight across servers, read on every acquire (default: none). */
  maxParallel?: () => number | undefined;
}

/** What lives across calls: one queue per server, the host-wide queue, the store of cut results. */
export class CallState {
  private readonly queues = new Map<string, CallQueue>();
  readonly results: ResultStore;
  /** The host-wide `max_parallel` queue (every call takes a place in it after its server's). */
  readonly hostQueue: CallQueue;

  constructor(options: CallStateOptions = {}) {
    this.results = new ResultStore(options.results);
    this.hostQueue = new CallQueue(() => options.maxParallel?.() ?? Infinity, undefined, "the host's max_parallel queue");
  }

  private readonly wakers = new Map<string, Set<() => void>>();
  /** Tools seen in earlier catalogs: a call to a server that is reconnecting is `unavailable`, not `unknown_tool`. */
  private readonly known = new Map<string, { server: string; tool: Tool }>();
  private knownFrom: ToolCatalog | undefined;

  /** The catalog entry of `publicName`, or the last one seen when its server is not ready now. */
  lookup(catalog: ToolCatalog, slots: ReadonlyMap<string, ServerSlot>, publicName: string): { server: string; tool: Tool } | undefined {
    if (this.knownFrom !== catalog) {
      this.knownFrom = catalog;
      for (const [name, entry] of catalog.byName) this.known.set(name, entry);
    }
    const entry = catalog.byName.get(publicName);
    if (entry !== undefined) return entry;
    const last = this.known.get(publicName);
    const slot = last === undefined ? undefined : slots.get(last.server);
    return slot !== undefined && slot.state !== 'ready' ? last : undefined;
  }

  private watching: unknown;

  /** Calls `wake` on the next `status` event of server `id` (one host listener for all waits). */
  onNextStatus(events: Pick<EventEmitter, 'on' | 'off'> | undefined, id: string, wake: () => void): () => void {
    if (events === undefined) return () => {};
    if (this.watching !== events) {
      this.watching = events;
      events.on('status', (s: { id?: string } | undefined) => {
        const set = s?.id === undefined ? undefined : this.wakers.get(s.id);
        if (set !== undefined) for (const w of [...set]) w();
      });
    }
    let set = this.wakers.get(id);
    if (set === undefined) this.wakers.set(id, (set = new Set()));
    set.add(wake);
    const own = set;
    return () => {
      own.delete(wake);
      if (own.size === 0 && this.wakers.get(id) === own) this.wakers.delete(id);
    };
  }

  /** The queue of server `id`; its limit is read from `slots` on every acquire. */
  queue(id: string, slots: ReadonlyMap<string, ServerSlot>): CallQueue {
    let q = this.queues.get(id);
    if (q === undefined) this.queues.set(id, (q = new CallQueue(() => slots.get(id)?.server.config.maxParallel ?? Infinity, id)));
    return q;
  }
}
