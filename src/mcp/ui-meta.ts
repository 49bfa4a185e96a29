/**
 * What the MCP Apps extension (`io.modelcontextprotocol/ui`, stable 2026-01-26) puts on a tool:
 * `_meta.ui.resourceUri` (the view, a `ui://` resource; the deprecated flat key
 * `_meta["ui/resourceUri"]` is read too, the nested one wins) and `_meta.ui.visibility`
 * (`"model"`: the agent may see and call it; `"app"`: its view may call it; default both).
 * Pure reading of untrusted metadata, shared by the host (the agent's tool list), `src/apps`,
 * `serve` and `check`.
 */

/** The extension's identifier in `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one MIME type of a view's HTML (`resources/read` content). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The deprecated flat key of the view's URI. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

export type ToolVisibility = 'model' | 'app';

const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The tool's `_meta.ui` object, if any. */
export function toolUiMeta(tool: unknown): Record<string, unknown> | undefined {
  return obj(obj(obj(tool)?._meta)?.ui);
}

/** The view URI a tool names (nested key first, then the deprecated flat one), as given: not checked to be `ui://`. */
export function toolViewUri(tool: unknown): string | undefined {
  const nested = toolUiMeta(tool)?.resourceUri;
  if (typeof nested === 'string') return nested;
  const flat = obj(obj(tool)?._meta)?.[LEGACY_RESOURCE_URI_KEY];
  return typeof flat === 'string' ? flat : undefined;
}

/**
 * The tool's visibility: the listed known values, or the default `["model","app"]` when absent
 * or not an array. Unknown entries are ignored (an array of only unknown values grants nothing).
 */
export function toolVisibility(tool: unknown): ToolVisibility[] {
  const v = toolUiMeta(tool)?.visibility;
  if (!Array.isArray(v)) return ['model', 'app'];
  return (['model', 'app'] as const).filter((k) => v.includes(k));
}

/** Whether the agent may see and call the tool (apps spec: "MUST NOT include tools … without model"). */
export function isModelVisible(tool: unknown): boolean {
  return toolVisibility(tool).includes('model');
}

/** Whether a view of the tool's own server may call it (apps spec: "MUST reject … without app"). */
export function isAppCallable(tool: unknown): boolean {
  return toolVisibility(tool).includes('app');
}

const ORIGIN = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::(?:\d{1,5}|\*))?\/?$/;
const IPV6_ORIGIN = /^(?:https?|wss?):\/\/\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?\/?$/;

/** Whether `entry` of a view's `_meta.ui.csp` is an origin (`scheme://host[:port]`, a `*.` wildcard subdomain allowed). */
export function isViewCspOrigin(entry: unknown): entry is string {
  return typeof entry === 'string' && (ORIGIN.test(entry) || IPV6_ORIGIN.test(entry));
}

/** The keys of `_meta.ui.csp`, and of `_meta.ui.permissions`, the extension defines. */
export const VIEW_CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
export const VIEW_PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
