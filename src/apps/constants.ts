/** Names of the MCP Apps extension (`io.modelcontextprotocol/ui`) a host uses. */
export { APPS_EXTENSION, APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY } from '../mcp/ui-meta.js';

/** The view protocol's version (the stable spec's date); a view asking for a supported one gets its own back. */
export const APP_VIEW_PROTOCOL_VERSION = '2026-01-26';

/** The view protocol versions the host answers with as asked (the draft's earlier date as well). */
export const APP_VIEW_PROTOCOL_VERSIONS: readonly string[] = [APP_VIEW_PROTOCOL_VERSION, '2025-11-21'];
