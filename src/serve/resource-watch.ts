/**
 * The downstream side of resource subscriptions at the gateway: a 2026-07-28 client's
 * `subscriptions/listen` naming `resourceSubscriptions` (basic/patterns/subscriptions,
 * server/resources "Subscriptions") is served by subscribing downstream — the server that listed
 * the URI, else every ready server whose `resources.subscribe` capability is set — through its
 * client (`subscribeResource`: `resources/subscribe` for a handshake-era server, its own
 * `subscriptions/listen` for a 2026-07-28 one). Subscriptions are counted per URI: the first
 * watcher subscribes, the last one gone unsubscribes. A server's `notifications/resources/updated`
 * for a URI watched on it goes to `onUpdated` (nothing else of it: the URI is the client's own;
 * a server's `ui://` view is watched under the gateway's `ui://<server>/…` and asked of that
 * server by its own URI, apps.ts). A server that
 * connects again (a new client) is subscribed again to what is watched on it.
 */
import type { McpClient } from '../mcp/client.js';
import type { Downstream } from './downstream.js';
import { gatewayViewUri, upstreamViewUri } from './apps.js';

interface Watched {
  count: number;
  /** The URI as the servers know it: the watched one, or for a mapped `ui://` view its server's own (apps.ts). */
  upstream: string;
  /** The servers subscribed for it. */
  servers: Set<string>;
}

export class ResourceWatch {
  private readonly watched = new Map<string, Watched>();
  /** Clients whose updates are listened to already. */
  private readonly heard = new WeakSet<McpClient>();

  constructor(
    private readonly down: Downstream,
    private readonly onUpdated: (uri: string) => void,
  ) {}

  /** URIs watched now. */
  get size(): number {
    return this.watched.size;
  }

  /** Watches `uri`: true when at least one server subscribed to it (the subscription is honoured). */
  async watch(uri: string): Promise<boolean> {
    const w = this.watched.get(uri);
    if (w !== undefined) {
      w.count++;
      return true;
    }
    const ready = this.down.ready('resources');
    const view = upstreamViewUri(uri, (id) => ready.some(([s]) => s === id)); // a server's ui:// view, as the gateway shows it (apps.ts)
    const entry: Watched = { count: 1, upstream: view?.uri ?? uri, servers: new Set() };
    this.watched.set(uri, entry);
    const owner = view?.server ?? this.down.serverOfUri(uri);
    const candidates = ready.filter(([id, c]) => (owner === undefined || id === owner) && c.serverCapabilities?.resources?.subscribe === true);
    await Promise.all(candidates.map(([id, c]) => this.subscribe(id, c, entry)));
    if (entry.servers.size === 0 && this.watched.get(uri) === entry) {
      this.watched.delete(uri);
      return false;
    }
    return true;
  }

  /** One watcher of `uri` is gone; the last one unsubscribes downstream. */
  unwatch(uri: string): void {
    const w = this.watched.get(uri);
    if (w === undefined || --w.count > 0) return;
    this.watched.delete(uri);
    for (const [id, c] of this.down.ready('resources')) if (w.servers.has(id)) c.unsubscribeResource(w.upstream).catch(() => {});
  }

  /** `server` is ready again (a new client): it is subscribed again to the URIs watched on it. */
  connected(server: string): void {
    const client = this.down.ready('resources').find(([id]) => id === server)?.[1];
    if (client === undefined) return;
    for (const w of this.watched.values()) if (w.servers.has(server)) void this.subscribe(server, client, w);
  }

  private async subscribe(id: string, client: McpClient, entry: Watched): Promise<void> {
    this.listen(id, client);
    try {
      await client.subscribeResource(entry.upstream);
      entry.servers.add(id);
    } catch {
      // this server does not serve it: another may
    }
  }

  private listen(id: string, client: McpClient): void {
    if (this.heard.has(client)) return;
    this.heard.add(client);
    client.on('resourceUpdated', (p: { uri?: unknown }) => {
      // the URI is the one the client named: only a watched one goes up
      const uri = p?.uri;
      if (typeof uri !== 'string') return;
      if (this.watched.get(uri)?.servers.has(id) === true && this.watched.get(uri)!.upstream === uri) return this.onUpdated(uri);
      const shown = gatewayViewUri(id, uri); // a view's update, told under the URI the client watches
      if (shown !== uri && this.watched.get(shown)?.servers.has(id) === true) this.onUpdated(shown);
    });
  }
}
