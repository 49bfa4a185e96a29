/**
 * Reading a tool's view: the `ui://` resource its `_meta.ui.resourceUri` names, fetched with
 * `resources/read` (apps spec: "Host MUST use resources/read"), its content's `mimeType` exactly
 * `text/html;profile=mcp-app` (anything else refused), the HTML in `text` or base64 `blob`, and
 * the view's `_meta.ui` (csp, permissions, domain, prefersBorder) from the content item, else —
 * the draft's fallback — from the `resources/list` entry of the same URI.
 */
import { McpWireError } from '../errors.js';
import type { ReadResourceResult, Resource } from '../mcp/types.js';
import { APP_MIME_TYPE, toolViewUri } from '../mcp/ui-meta.js';

/** A view's metadata (`McpUiResourceMeta`), as declared: untrusted. */
export interface ViewMeta {
  csp?: unknown;
  permissions?: unknown;
  domain?: string;
  prefersBorder?: boolean;
}

/** A view ready to render. */
export interface AppView {
  server: string;
  uri: string;
  html: string;
  meta: ViewMeta;
  /** Where `meta` came from: the content item, the resources/list entry, or nowhere. */
  metaFrom: 'content' | 'listing' | 'none';
}

/** What reading a view needs from its server. */
export interface ViewSource {
  readResource(uri: string, options?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  /** For the listing's `_meta.ui` (the fallback); optional. */
  listResources?(options?: { signal?: AbortSignal }): Promise<Resource[]>;
}

/** A view could not be had: `MCPWIRE_APP_VIEW`, with the server and what went wrong. */
export class AppViewError extends McpWireError {
  constructor(server: string, message: string, cause?: unknown) {
    super('MCPWIRE_APP_VIEW', `app view of server "${server}": ${message}`, { serverId: server, phase: 'request', cause });
    this.name = 'AppViewError';
  }
}

/** Default cap on a view's HTML (bytes). */
export const DEFAULT_MAX_VIEW_BYTES = 8 * 1024 * 1024;

const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const safe = (s: string) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);

/** The view URI of `tool`, checked to be `ui://` (undefined: the tool has no view). */
export function viewUriOf(server: string, tool: unknown): string | undefined {
  const uri = toolViewUri(tool);
  if (uri === undefined) return undefined;
  if (!uri.startsWith('ui://')) throw new AppViewError(server, `the tool's _meta.ui.resourceUri ${safe(uri)} is not a ui:// URI`);
  return uri;
}

/** The view's `_meta.ui` fields of one object (a content item or a listing entry). */
export function viewMetaOf(holder: unknown): ViewMeta | undefined {
  const ui = obj(obj(obj(holder)?._meta)?.ui);
  if (ui === undefined) return undefined;
  const meta: ViewMeta = {};
  if (ui.csp !== undefined) meta.csp = ui.csp;
  if (ui.permissions !== undefined) meta.permissions = ui.permissions;
  if (typeof ui.domain === 'string') meta.domain = ui.domain.slice(0, 512);
  if (typeof ui.prefersBorder === 'boolean') meta.prefersBorder = ui.prefersBorder;
  return meta;
}

/** Reads and checks the view at `uri` of `server` (see the module comment). */
export async function readView(server: string, source: ViewSource, uri: string, options: { signal?: AbortSignal; maxBytes?: number } = {}): Promise<AppView> {
  if (!uri.startsWith('ui://')) throw new AppViewError(server, `${safe(uri)} is not a ui:// URI`);
  let read: ReadResourceResult;
  try {
    read = await source.readResource(uri, { signal: options.signal });
  } catch (err) {
    throw new AppViewError(server, `resources/read ${safe(uri)} failed: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  const contents = Array.isArray(read?.contents) ? read.contents : [];
  const item = contents.find((c) => obj(c)?.uri === uri) ?? contents[0];
  if (item === undefined) throw new AppViewError(server, `resources/read ${safe(uri)} returned no content`);
  const mime = (item as { mimeType?: unknown }).mimeType;
  if (mime !== APP_MIME_TYPE) {
    throw new AppViewError(server, `resource ${safe(uri)} has MIME type ${typeof mime === 'string' ? safe(mime) : 'none'}; a view must be "${APP_MIME_TYPE}" (not rendered)`);
  }
  const html = htmlOf(server, uri, item as unknown as Record<string, unknown>, options.maxBytes ?? DEFAULT_MAX_VIEW_BYTES);
  const fromContent = viewMetaOf(item);
  if (fromContent !== undefined) return { server, uri, html, meta: fromContent, metaFrom: 'content' };
  const fromListing = await listingMeta(source, uri, options.signal);
  return fromListing === undefined ? { server, uri, html, meta: {}, metaFrom: 'none' } : { server, uri, html, meta: fromListing, metaFrom: 'listing' };
}

function htmlOf(server: string, uri: string, item: Record<string, unknown>, maxBytes: number): string {
  let html: string;
  if (typeof item.text === 'string') html = item.text;
  else if (typeof item.blob === 'string') {
    if (item.blob.length > (maxBytes * 4) / 3 + 4) throw new AppViewError(server, `view ${safe(uri)} is larger than ${maxBytes} bytes`);
    html = Buffer.from(item.blob, 'base64').toString('utf8');
  } else throw new AppViewError(server, `view ${safe(uri)} has neither text nor blob`);
  if (Buffer.byteLength(html, 'utf8') > maxBytes) throw new AppViewError(server, `view ${safe(uri)} is larger than ${maxBytes} bytes`);
  return html;
}

/** The draft's fallback: `_meta.ui` of the resources/list entry for `uri` (servers may leave views out of the list). */
async function listingMeta(source: ViewSource, uri: string, signal?: AbortSignal): Promise<ViewMeta | undefined> {
  if (source.listResources === undefined) return undefined;
  try {
    const list = await source.listResources({ signal });
    return viewMetaOf(list.find((r) => r.uri === uri));
  } catch {
    return undefined; // a server without resources/list: no fallback
  }
}
