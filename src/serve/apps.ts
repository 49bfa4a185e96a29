/**
 * MCP Apps through the gateway. A client that declares `io.modelcontextprotocol/ui` renders
 * views: the gateway then declares it to the servers too (never otherwise: a server would hand
 * out views nobody renders), lists tools only an app may call (their views call them through
 * the client) and lets that client call them. Every tool keeps its `_meta.ui`; each server's
 * `ui://` URIs become `ui://<server>/<rest>` — still `ui://`, so hosts accept them, and two
 * servers' views cannot collide — wherever a client meets one: a listed tool's `_meta.ui`,
 * `resources/list`, `resources/templates/list`, a tool result's resource links and embedded
 * resources, a read's contents; `resources/read` of one goes back to its server with the
 * server's own URI.
 */
import { declaresApps, withAppsExtension } from '../apps/capability.js';
import type { ClientOptions } from '../mcp/client-options.js';
import type { ClientCapabilities, Tool } from '../mcp/types.js';
import { isAppCallable, isModelVisible, LEGACY_RESOURCE_URI_KEY, toolUiMeta, toolViewUri } from '../mcp/ui-meta.js';
import type { McpHost } from '../host/host.js';
import { sanitizeText } from '../host/text.js';

export { declaresApps };

/** The servers' client options, with the extension declared when the gateway's client declared it. */
export function appsClientOptions(options: ClientOptions, caps: ClientCapabilities): ClientOptions {
  return declaresApps(caps) ? withAppsExtension(options) : options;
}

/** `ui://<rest>` of `server` as the gateway shows it: `ui://<server>/<rest>`. */
export function gatewayViewUri(server: string, uri: string): string {
  return uri.startsWith('ui://') ? `ui://${server}/${uri.slice('ui://'.length)}` : uri;
}

/** A gateway view URI back to its server and the server's own URI (undefined: not one of ours). */
export function upstreamViewUri(uri: string, isServer: (id: string) => boolean): { server: string; uri: string } | undefined {
  if (!uri.startsWith('ui://')) return undefined;
  const rest = uri.slice('ui://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || !isServer(rest.slice(0, slash))) return undefined;
  return { server: rest.slice(0, slash), uri: `ui://${rest.slice(slash + 1)}` };
}

/** The tool's `_meta` as the gateway lists it: `ui` kept, its view URI (and the deprecated flat key) mapped; undefined when it has no `ui`. */
export function gatewayToolMeta(server: string, tool: Tool): Record<string, unknown> | undefined {
  const ui = toolUiMeta(tool);
  const view = toolViewUri(tool);
  if (ui === undefined && view === undefined) return undefined;
  const out: Record<string, unknown> = { ui: { ...ui, ...(view !== undefined ? { resourceUri: gatewayViewUri(server, view) } : {}) } };
  if (typeof (tool._meta as Record<string, unknown> | undefined)?.[LEGACY_RESOURCE_URI_KEY] === 'string' && view !== undefined) out[LEGACY_RESOURCE_URI_KEY] = gatewayViewUri(server, view);
  return out;
}

/** Tools only an app may call, for a client that renders views (the agent's list has none of them). */
export function appOnlyTools(host: McpHost): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [name, e] of host.catalog.byName) {
    if (isModelVisible(e.tool) || !isAppCallable(e.tool)) continue;
    const t: Record<string, unknown> = { name, description: `MCP ${e.server}/${sanitizeText(e.tool.name, 128, true)}: ${sanitizeText(e.tool.description ?? '', 2000, true)}`, inputSchema: e.tool.inputSchema ?? { type: 'object' } };
    const meta = gatewayToolMeta(e.server, e.tool);
    if (meta !== undefined) t._meta = meta;
    out.push(t);
  }
  return out;
}

/** A resource of `server` as the gateway lists it: a `ui://` URI mapped (two servers' views never collide). */
export function gatewayResource<T extends { uri: string }>(server: string, r: T): T {
  return r.uri.startsWith('ui://') ? { ...r, uri: gatewayViewUri(server, r.uri) } : r;
}

/** A resource template of `server` as the gateway lists it: a `ui://` template mapped like a URI (its expansions read back from that server). */
export function gatewayTemplate<T extends { uriTemplate: string }>(server: string, t: T): T {
  return t.uriTemplate.startsWith('ui://') ? { ...t, uriTemplate: gatewayViewUri(server, t.uriTemplate) } : t;
}

/**
 * A tool result of `server` as the gateway answers it: the `ui://` URIs of its content — a
 * resource link's `uri`, an embedded resource's `resource.uri` — mapped, so a client reads them
 * back through the gateway from that server, as it does the views its tools list.
 */
export function gatewayResultViews(server: string, result: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(result.content)) return result;
  const content = result.content.map((block: unknown) => {
    if (block === null || typeof block !== 'object') return block;
    const b = block as Record<string, unknown>;
    if (b.type === 'resource_link' && typeof b.uri === 'string') return gatewayResource(server, b as { uri: string });
    const res = b.resource as Record<string, unknown> | undefined;
    if (b.type === 'resource' && res !== null && typeof res === 'object' && typeof res.uri === 'string') return { ...b, resource: gatewayResource(server, res as { uri: string }) };
    return b;
  });
  return { ...result, content };
}

/** A `resources/read` result's contents with the server's URI shown as the gateway's. */
export function gatewayReadResult(result: Record<string, unknown>, server: string, own: string): Record<string, unknown> {
  const contents = Array.isArray(result.contents) ? result.contents : [];
  return { ...result, contents: contents.map((c: Record<string, unknown>) => (c?.uri === own ? { ...c, uri: gatewayViewUri(server, own) } : c)) };
}
