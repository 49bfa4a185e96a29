/**
 * A tool's view through a `McpHost`, ready for an embedder: the checked `ui://` URI, the HTML
 * and metadata (cached per server when a `ViewCache` is given), the CSP built from the declared
 * domains and the iframe `allow` attribute — with what was granted, for `hostCapabilities.sandbox`.
 */
import type { McpHost } from '../host/host.js';
import { buildAllow, buildCsp, type ViewCsp, type ViewPermissions } from './csp.js';
import { serverTools } from './host-link.js';
import { AppViewError, readView, viewUriOf, type AppView } from './view.js';
import type { ViewCache } from './view-cache.js';

export interface RenderableView {
  view: AppView;
  /** The Content-Security-Policy to serve the view with (an HTTP header, or the proxy's). */
  csp: string;
  /** The inner iframe's `allow` attribute. */
  allow: string;
  /** What the host grants: echoed to the view as `hostCapabilities.sandbox`. */
  granted: { csp: ViewCsp; permissions: ViewPermissions };
  /** Declared CSP entries that are not origins (dropped). */
  rejected: string[];
}

/** The view of `tool` on `server` (errors name the server and what is wrong). */
export async function loadToolView(
  host: McpHost,
  server: string,
  tool: string,
  options: { cache?: ViewCache; signal?: AbortSignal; grantPermissions?: readonly (keyof ViewPermissions)[] } = {},
): Promise<RenderableView> {
  const listed = serverTools(host, server).find((t) => t.name === tool);
  if (listed === undefined) throw new AppViewError(server, `no tool "${tool.slice(0, 128)}" listed`);
  const uri = viewUriOf(server, listed);
  if (uri === undefined) throw new AppViewError(server, `tool "${tool.slice(0, 128)}" has no view (no _meta.ui.resourceUri)`);
  const client = host.client(server);
  if (client === undefined) throw new AppViewError(server, 'not connected');
  const load = () => readView(server, client, uri, { signal: options.signal });
  const view = options.cache ? await options.cache.get(server, uri, load) : await load();
  return renderable(view, options.grantPermissions);
}

/** CSP and `allow` for a view already read. */
export function renderable(view: AppView, grantPermissions: readonly (keyof ViewPermissions)[] = []): RenderableView {
  const csp = buildCsp(view.meta.csp);
  const allow = buildAllow(view.meta.permissions, grantPermissions);
  return { view, csp: csp.policy, allow: allow.allow, granted: { csp: csp.granted, permissions: allow.granted }, rejected: csp.rejected };
}
