/**
 * `mcpwire/apps` — MCP Apps (the `io.modelcontextprotocol/ui` extension) for embedders: opt in
 * (`withAppsExtension`), find and read a tool's view (`loadToolView`, `readView`, `ViewCache`),
 * its CSP and iframe `allow` (`buildCsp`, `buildAllow`), and the host side of the view protocol
 * over any postMessage pair (`AppBridgeHost` with `hostViewServer`). docs/apps.md.
 *
 * ```ts
 * import { withAppsExtension, loadToolView } from 'mcpwire/apps';
 * ```
 */
export * from './apps/index.js';
