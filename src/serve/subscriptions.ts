/**
 * `subscriptions/listen` at the gateway (2026-07-28, basic/patterns/subscriptions): a modern
 * client's long-lived request for list changes, in place of the handshake era's unsolicited
 * `notifications/{tools,resources,prompts}/list_changed`.
 *
 * - The first message of a subscription is `notifications/subscriptions/acknowledged` with the
 *   subset honoured (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`, and of
 *   `resourceSubscriptions` the URIs a downstream server subscribed to: resource-watch.ts) and
 *   `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's id
 *   (basic.patterns.subscriptions#2); every later notification carries it.
 * - `notifications/resources/updated` goes to each subscription that named its URI.
 * - Only what was asked for is sent (basic.patterns.subscriptions#1).
 * - It ends when the client cancels it (stdio: `notifications/cancelled`; HTTP: closing the
 *   stream) — no answer then — or when the gateway closes: a `complete` answer (#5, #6).
 *
 * A 2025-11-25 client's `resources/subscribe` and `resources/unsubscribe` (server/resources
 * "Subscriptions") use the same downstream watch (one subscription per URI however many clients
 * watch it); its `notifications/resources/updated` come without a subscription id. A session
 * watches at most 256 URIs; its watches end with it.
 */
import type { IncomingRequestContext } from '../protocol/incoming.js';
import type { RequestId } from '../jsonrpc/types.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const KINDS = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' } as const;
export type ListKind = keyof typeof KINDS;

interface Open {
  kinds: Set<ListKind>;
  uris: ReadonlySet<string>;
  end(): void;
}

/** What serves resource subscriptions downstream (resource-watch.ts). */
export interface ResourceWatcher {
  watch(uri: string): Promise<boolean>;
  unwatch(uri: string): void;
}

/** The most URIs one handshake-era session subscribes to with `resources/subscribe`. */
export const MAX_SESSION_SUBSCRIPTIONS = 256;

export class Subscriptions {
  private readonly open = new Map<RequestId, Open>();
  /** URIs this handshake-era session subscribed to (`resources/subscribe`). */
  private readonly subscribed = new Set<string>();

  constructor(
    private readonly notify: (method: string, params: Record<string, unknown>) => Promise<void>,
    private readonly watcher?: ResourceWatcher,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one `subscriptions/listen` request until it ends (see the module comment). */
  async listen(params: Record<string, unknown> | undefined, ctx: IncomingRequestContext): Promise<Record<string, unknown>> {
    const asked = (params?.notifications ?? {}) as Record<string, unknown>;
    const kinds = new Set<ListKind>();
    const honoured: Record<string, boolean | string[]> = {};
    for (const [kind, field] of Object.entries(KINDS) as [ListKind, string][]) {
      if (asked[field] !== true) continue;
      kinds.add(kind);
      honoured[field] = true;
    }
    const uris = await this.watchAll(asked.resourceSubscriptions);
    if (uris.size > 0) honoured.resourceSubscriptions = [...uris];
    const release = (): void => {
      for (const uri of uris) this.watcher?.unwatch(uri);
    };
    const meta = { [SUBSCRIPTION_ID]: ctx.id };
    await this.notify('notifications/subscriptions/acknowledged', { _meta: meta, notifications: honoured }).catch((err: unknown) => {
      release();
      throw err;
    });
    return new Promise((resolve, reject) => {
      const stop = (): void => {
        this.open.delete(ctx.id);
        release();
        reject(ctx.signal.reason ?? new Error('subscription cancelled'));
      };
      if (ctx.signal.aborted) return stop();
      ctx.signal.addEventListener('abort', stop, { once: true });
      this.open.set(ctx.id, {
        kinds,
        uris,
        end: () => {
          ctx.signal.removeEventListener('abort', stop);
          this.open.delete(ctx.id);
          release();
          resolve({ _meta: meta });
        },
      });
    });
  }

  /** A list changed: each subscription that asked for it hears so. */
  changed(kind: ListKind): void {
    for (const [id, s] of this.open) if (s.kinds.has(kind)) this.notify(`notifications/${kind}/list_changed`, { _meta: { [SUBSCRIPTION_ID]: id } }).catch(() => {});
  }

  /** `resources/subscribe` of a 2025-11-25 client: false when no server behind the gateway subscribed to `uri`. */
  async subscribe(uri: string): Promise<boolean> {
    if (this.subscribed.has(uri)) return true;
    if (this.watcher === undefined) return false;
    if (this.subscribed.size >= MAX_SESSION_SUBSCRIPTIONS) throw new RangeError(`at most ${MAX_SESSION_SUBSCRIPTIONS} resource subscriptions per session`);
    this.subscribed.add(uri);
    const ok = await this.watcher.watch(uri).catch(() => false);
    if (!ok) this.subscribed.delete(uri);
    return ok;
  }

  /** `resources/unsubscribe`: the session stops watching `uri` (nothing when it did not). */
  unsubscribe(uri: string): void {
    if (this.subscribed.delete(uri)) this.watcher?.unwatch(uri);
  }

  /** The session ended: its `resources/subscribe` watches end. */
  releaseAll(): void {
    for (const uri of this.subscribed) this.watcher?.unwatch(uri);
    this.subscribed.clear();
  }

  /** A watched resource changed: each subscription that named it hears so, and a handshake-era session that subscribed to it. */
  updated(uri: string): void {
    if (this.subscribed.has(uri)) this.notify('notifications/resources/updated', { uri }).catch(() => {});
    for (const [id, s] of this.open) if (s.uris.has(uri)) this.notify('notifications/resources/updated', { _meta: { [SUBSCRIPTION_ID]: id }, uri }).catch(() => {});
  }

  /** The URIs of `resourceSubscriptions` some downstream server subscribed to (bounded: at most 256 asked). */
  private async watchAll(asked: unknown): Promise<Set<string>> {
    const out = new Set<string>();
    if (this.watcher === undefined || !Array.isArray(asked)) return out;
    const uris = [...new Set(asked.filter((u): u is string => typeof u === 'string'))].slice(0, 256);
    const watcher = this.watcher;
    const ok = await Promise.all(uris.map((u) => watcher.watch(u)));
    uris.forEach((u, i) => ok[i] && out.add(u));
    return out;
  }

  /** The gateway ends every subscription gracefully: each gets its `complete` answer. */
  endAll(): void {
    for (const s of [...this.open.values()]) s.end();
  }
}
