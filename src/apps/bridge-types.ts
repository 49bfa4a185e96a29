/** The shapes of the host side of the MCP Apps view protocol (`bridge.ts`). */
import type { ProtocolObserver } from '../protocol/observer.js';
import type { CallToolResult, Prompt, Resource, ResourceTemplate, ReadResourceResult, Tool } from '../mcp/types.js';
import type { ViewCsp, ViewPermissions } from './csp.js';
import type { ViewLimits } from './limits.js';

/** How host and view exchange messages: the embedder's postMessage pair (or a relay to one). */
export interface ViewChannel {
  /** Delivers one JSON-RPC message to the view. */
  post(message: unknown): void;
  /** Calls `listener` with each message from the view; returns the unsubscribe. */
  onMessage(listener: (message: unknown) => void): () => void;
}

/**
 * The view's own server, as the host lets the view reach it. `callTool` must refuse a tool the
 * view may not call (throw `ViewRequestError`); `hostViewServer` (host-link.ts) does it through
 * a `McpHost`: its permissions, timeouts, redaction and traces apply.
 */
export interface ViewServerLink {
  readonly server: string;
  callTool(name: string, args: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<CallToolResult>;
  listTools(options: { signal?: AbortSignal }): Promise<Tool[]>;
  readResource(uri: string, options: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  listResources(options: { signal?: AbortSignal }): Promise<Resource[]>;
  listResourceTemplates(options: { signal?: AbortSignal }): Promise<ResourceTemplate[]>;
  listPrompts(options: { signal?: AbortSignal }): Promise<Prompt[]>;
  /**
   * Calls `listener` when what the view can list changed on its server (its tools a view may
   * call, its resources, its prompts); returns the unsubscribe. Given: the bridge forwards each
   * change to the view as `notifications/<kind>/list_changed` and offers `listChanged` in
   * `serverTools` / `serverResources`. Absent: neither.
   */
  onListChanged?(listener: (kind: ListKind) => void): () => void;
}

/** The lists a view reads through its host whose changes it can be told of. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** A request from the view the host refuses: answered as a JSON-RPC error (default code -32000). */
export class ViewRequestError extends Error {
  constructor(
    message: string,
    readonly rpcCode = -32000,
  ) {
    super(message);
    this.name = 'ViewRequestError';
  }
}

export type DisplayMode = 'inline' | 'fullscreen' | 'pip';

/** `McpUiHostContext`: what the view may adapt to. All optional. */
export interface HostContext {
  toolInfo?: { id?: string | number; tool: Tool };
  theme?: 'light' | 'dark';
  styles?: Record<string, unknown>;
  displayMode?: DisplayMode;
  availableDisplayModes?: DisplayMode[];
  containerDimensions?: Record<string, number>;
  locale?: string;
  timeZone?: string;
  userAgent?: string;
  platform?: 'web' | 'desktop' | 'mobile';
  deviceCapabilities?: { touch?: boolean; hover?: boolean };
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  [key: string]: unknown;
}

/** A content block of `ui/message` / `ui/update-model-context` (untrusted). */
export type ViewContent = Record<string, unknown>;

/** The embedder's answers to what a view asks; an absent callback is a capability not offered. */
export interface ViewCallbacks {
  /** `ui/open-link`: true when opened (the embedder asks the user first). Offered as `openLinks`. */
  openLink?(url: string): Promise<boolean> | boolean;
  /** `ui/message` (content always an array): true when added to the conversation. Offered as `message`. */
  message?(message: { role: string; content: ViewContent[] }): Promise<boolean> | boolean;
  /** `ui/update-model-context`: each call replaces the last. Offered as `updateModelContext`. */
  updateModelContext?(context: { content?: ViewContent[]; structuredContent?: Record<string, unknown> }): void;
  /** `ui/request-display-mode`: the mode the host switched to (default: the mode asked, when both sides allow it). */
  requestDisplayMode?(mode: DisplayMode): DisplayMode | Promise<DisplayMode>;
  /** `ui/notifications/size-changed`. */
  sizeChanged?(size: { width?: number; height?: number }): void;
  /** `notifications/message` from the view (a log line). Offered as `logging`. */
  log?(params: { level?: string; logger?: string; data?: unknown }): void;
  /** `ui/notifications/request-teardown`: the view asks to be closed. */
  teardownRequested?(): void;
  /** Something went wrong with the view (dropped, oversized, flooding, never initialized). */
  problem?(problem: ViewProblem): void;
}

export interface ViewProblem {
  code: 'oversized' | 'rate' | 'flood' | 'invalid' | 'init-timeout' | 'refused';
  message: string;
}

export interface AppBridgeOptions {
  channel: ViewChannel;
  server: ViewServerLink;
  hostInfo: { name: string; version: string };
  hostContext?: HostContext;
  /** What the host actually granted the view's sandbox (echoed as `hostCapabilities.sandbox`). */
  sandbox?: { csp?: ViewCsp; permissions?: ViewPermissions };
  /**
   * The double-iframe sandbox proxy's content: answered to `ui/notifications/sandbox-proxy-ready`
   * with `ui/notifications/sandbox-resource-ready` (html, the sandbox attribute, csp, permissions).
   */
  sandboxResource?: { html: string; sandbox?: string; csp?: ViewCsp; permissions?: ViewPermissions };
  on?: ViewCallbacks;
  limits?: ViewLimits;
  /** Every message with the view, as a protocol observer (a tracer: its own lane, redacted). */
  observer?: ProtocolObserver;
  /** Milliseconds clock for the rate gate (default `performance.now`). */
  now?: () => number;
}

/** What the view's request handlers (bridge-requests.ts) read and change of the bridge. */
export interface BridgeState {
  readonly hostContext: HostContext;
  readonly appCapabilities: Record<string, unknown>;
  modelContext: { content?: unknown[]; structuredContent?: Record<string, unknown> } | undefined;
  setHostContext(change: Partial<HostContext>): void;
}
