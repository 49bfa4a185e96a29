/** MCP Apps for embedders (`mcpwire/apps`): see README.md in this folder and docs/apps.md. */
export { APPS_EXTENSION, APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, APP_VIEW_PROTOCOL_VERSION } from './constants.js';
export { toolViewUri, toolVisibility, isModelVisible, isAppCallable, type ToolVisibility } from '../mcp/ui-meta.js';
export { appsCapability, withAppsExtension, declaresApps } from './capability.js';
export { readView, viewUriOf, viewMetaOf, AppViewError, DEFAULT_MAX_VIEW_BYTES, type AppView, type ViewMeta, type ViewSource } from './view.js';
export { ViewCache, type ViewCacheEvents } from './view-cache.js';
export { buildCsp, buildAllow, isCspOrigin, DEFAULT_VIEW_CSP, type BuiltCsp, type ViewCsp, type ViewPermissions } from './csp.js';
export { AppBridgeHost } from './bridge.js';
export { contentOf } from './bridge-requests.js';
export {
  ViewRequestError,
  type AppBridgeOptions,
  type DisplayMode,
  type HostContext,
  type ViewCallbacks,
  type ViewChannel,
  type ViewContent,
  type ViewProblem,
  type ViewServerLink,
  type ListKind,
} from './bridge-types.js';
export { DEFAULT_VIEW_LIMITS, type ViewLimits } from './limits.js';
export { hostViewServer, publicNameOf, serverTools, viewToolResult } from './host-link.js';
export { loadToolView, renderable, type RenderableView } from './tool-view.js';
export { startAppPage, type AppPage, type AppPageOptions } from './page-server.js';
