/**
 * Opting in to MCP Apps. A client declares `extensions["io.modelcontextprotocol/ui"] =
 * { mimeTypes: ["text/html;profile=mcp-app"] }` — in `initialize` and, on 2026-07-28, in every
 * request's client-capabilities `_meta` (both come from `ClientOptions.capabilities`) — only
 * when its embedder renders views: servers choose between a view and a text fallback by it.
 */
import type { ClientOptions } from '../mcp/client-options.js';
import type { ClientCapabilities } from '../mcp/types.js';
import { APPS_EXTENSION, APP_MIME_TYPE } from '../mcp/ui-meta.js';

/** The extension's client capability (`mimeTypes` is required). */
export function appsCapability(): { mimeTypes: string[] } {
  return { mimeTypes: [APP_MIME_TYPE] };
}

/** `options` with the apps extension declared (call it only when you render views). */
export function withAppsExtension<T extends Pick<ClientOptions, 'capabilities'>>(options: T): T {
  const given = options.capabilities?.extensions;
  const extensions = given !== null && typeof given === 'object' ? (given as Record<string, unknown>) : {};
  return { ...options, capabilities: { ...options.capabilities, extensions: { ...extensions, [APPS_EXTENSION]: appsCapability() } } };
}

/** Whether `caps` (a client's or a server's) declares the apps extension with the view MIME type. */
export function declaresApps(caps: ClientCapabilities | Record<string, unknown> | undefined): boolean {
  const ext = (caps as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  const ui = ext !== null && typeof ext === 'object' ? (ext as Record<string, unknown>)[APPS_EXTENSION] : undefined;
  if (ui === null || typeof ui !== 'object') return false;
  const types = (ui as { mimeTypes?: unknown }).mimeTypes;
  return Array.isArray(types) && types.includes(APP_MIME_TYPE);
}
