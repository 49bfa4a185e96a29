/**
 * A cache of views per server (the apps spec: "Host MAY prefetch and cache UI resource
 * content"). A server's entries go when it says its resources changed
 * (`notifications/resources/list_changed`) and when it (re)connects, since a new process may
 * serve new HTML. Bounded: at most `maxEntries` views (oldest out first) and a byte total.
 */
import type { AppView } from './view.js';

/** Host events the cache follows (the `McpHost` emitter's `listChanged` and `stateChange`). */
export interface ViewCacheEvents {
  on(event: 'listChanged' | 'stateChange', listener: (e: { server: string; kind?: string; to?: string }) => void): unknown;
  off(event: 'listChanged' | 'stateChange', listener: (e: { server: string; kind?: string; to?: string }) => void): unknown;
}

export class ViewCache {
  private readonly views = new Map<string, { view?: AppView; pending?: Promise<AppView>; bytes: number }>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(options: { maxEntries?: number; maxBytes?: number } = {}) {
    this.maxEntries = options.maxEntries ?? 64;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  private static key(server: string, uri: string): string {
    return `${server}\u0000${uri}`;
  }

  /** The cached view of `uri` on `server`, or `load()`'s (shared by concurrent callers; a failure is not cached). */
  get(server: string, uri: string, load: () => Promise<AppView>): Promise<AppView> {
    const key = ViewCache.key(server, uri);
    const hit = this.views.get(key);
    if (hit?.view !== undefined) return Promise.resolve(hit.view);
    if (hit?.pending !== undefined) return hit.pending;
    const entry: { view?: AppView; pending?: Promise<AppView>; bytes: number } = { bytes: 0 };
    entry.pending = load().then(
      (view) => {
        if (this.views.get(key) !== entry) return view; // invalidated meanwhile: not kept
        entry.view = view;
        delete entry.pending;
        entry.bytes = Buffer.byteLength(view.html, 'utf8');
        this.bytes += entry.bytes;
        this.trim();
        return view;
      },
      (err: unknown) => {
        if (this.views.get(key) === entry) this.views.delete(key);
        throw err;
      },
    );
    this.views.set(key, entry);
    return entry.pending;
  }

  /** Forgets every view of `server`. */
  invalidate(server: string): void {
    for (const [key, e] of this.views) {
      if (!key.startsWith(`${server}\u0000`)) continue;
      this.bytes -= e.bytes;
      this.views.delete(key);
    }
  }

  /** How many views are held (loaded or loading). */
  get size(): number {
    return this.views.size;
  }

  private trim(): void {
    for (const [key, e] of this.views) {
      if (this.views.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      if (e.view === undefined) continue;
      this.bytes -= e.bytes;
      this.views.delete(key);
    }
  }

  /** Invalidates a server's views on its `resources` list change and whenever it becomes ready (a reconnect). Returns the unsubscribe. */
  follow(host: ViewCacheEvents): () => void {
    const onList = (e: { server: string; kind?: string }) => {
      if (e.kind === 'resources') this.invalidate(e.server);
    };
    const onState = (e: { server: string; to?: string }) => {
      if (e.to === 'ready' || e.to === 'closed' || e.to === 'error') this.invalidate(e.server);
    };
    host.on('listChanged', onList);
    host.on('stateChange', onState);
    return () => {
      host.off('listChanged', onList);
      host.off('stateChange', onState);
    };
  }
}
