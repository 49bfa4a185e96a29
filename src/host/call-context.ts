/**
 * What one agent tool call needs from the host, and the options a caller gives it: types only,
 * shared by the tool calls (`calls.ts`) and the host's own tools (`host-tool-calls.ts`).
 */
import type { EventEmitter } from 'node:events';
import type { CallToolOptions } from '../mcp/client.js';
import type { CallLogListener, CallNotificationListener } from './call-notifications.js';
import type { CallState } from './call-state.js';
import type { RetrySettings } from './config/types.js';
import type { PermissionHook } from './permissions.js';
import type { ServerSlot } from './server-slot.js';
import type { BoundOptions } from './tool-result.js';
import type { ToolCatalog } from './tools.js';

/** What a call needs from the host. */
export interface CallContext {
  catalog: ToolCatalog;
  slots: ReadonlyMap<string, ServerSlot>;
  permission: PermissionHook | 'allow' | undefined;
  bound: BoundOptions;
  /** Queues and cut results (default: fresh for this call: no limit shared, no handle kept). */
  state?: CallState;
  /** The host: its `status` events wake a retry waiting for its server to be ready. */
  events?: Pick<EventEmitter, 'on' | 'off'>;
  /** Jitter of retry delays (default Math.random). */
  random?: () => number;
  /** The retry policy of servers whose config sets none (default: no retries). */
  retry?: RetrySettings;
}

/**
 * Options of one agent tool call. A task-required tool runs as a task (basic/utilities/tasks):
 * still one awaited result; `onTaskStatus` sees its status changes, aborting sends `tasks/cancel`.
 * `onLog` and `onNotification` get the server's notifications tied to this call by the rules of
 * `call-notifications.ts` (by the request's own Streamable HTTP stream, else by progress token, else
 * only while this is the server's one call in flight).
 */
export interface AgentCallOptions
  extends Pick<
    CallToolOptions,
    'signal' | 'timeoutMs' | 'onProgress' | 'progressIntervalMs' | 'onTaskStatus' | 'resetTimeoutOnProgress' | 'maxTotalTimeoutMs' | 'clientCapabilities' | 'onInputRequests'
  > {
  /** `notifications/message` from the server during this call (params: level, logger, data). */
  onLog?: CallLogListener;
  /** Any other notification the engine gives no meaning to (e.g. `notifications/tool_event`). */
  onNotification?: CallNotificationListener;
  /**
   * `_meta` sent with the `tools/call` request (e.g. a trace context, a caller's correlation id);
   * `progressToken` is the host's own and is not taken from here.
   */
  _meta?: Record<string, unknown>;
  /**
   * Who calls: the agent (default) or an MCP Apps view of the tool's own server (`src/apps`).
   * The agent may not call a tool whose `_meta.ui.visibility` lacks `"model"`, a view not one
   * whose visibility lacks `"app"` (both refused, nothing sent).
   */
  caller?: 'agent' | 'app';
}
