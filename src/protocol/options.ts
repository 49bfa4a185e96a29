/**
 * What a caller of the request engine may set: per request (`RequestOptions`) and per
 * connection (`ConnectionOptions`), and the diagnostics the engine reports.
 */
import type { Phase } from '../errors.js';
import type { RequestId } from '../jsonrpc/types.js';
import type { MessageExtra, TransportDiagnostic } from '../transport/types.js';
import type { ProtocolObserver } from './observer.js';
import type { ProgressCallback } from './registry.js';
import type { CancelSignal } from '../util/cancel.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** basic.utilities.progress#10: at most one onProgress callback per this many ms, by default. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 50;

export interface RequestOptions {
  /**
   * Aborts the request (notifications/cancelled goes out for one already sent). An AbortSignal,
   * or a `Cancel` (src/util/cancel.ts: what a peer's request hands its handler, lighter per request).
   */
  signal?: CancelSignal;
  /** Per-request timeout (ms). Default: the connection's default (60 s). */
  timeoutMs?: number;
  /**
   * Called with `notifications/progress` about this request; asks the server for progress (with a
   * token of ours, unless `params._meta.progressToken` is set: then that one is used as it is).
   * Floods are coalesced (basic.utilities.progress#10): see `progressIntervalMs`.
   */
  onProgress?: ProgressCallback;
  /**
   * At most one `onProgress` call per this many ms (default 50; 0 = every notification). The
   * first notification is delivered at once, later ones within the interval are coalesced to
   * the latest, and one still waiting is delivered before the request settles.
   */
  progressIntervalMs?: number;
  /** Restart the timeout whenever progress arrives (still bounded by `maxTotalTimeoutMs`). */
  resetTimeoutOnProgress?: boolean;
  /** Hard ceiling for the whole request, progress or not. Default: 10 × timeoutMs. */
  maxTotalTimeoutMs?: number;
  /** false for `initialize`, which MUST NOT be cancelled (basic.utilities.cancellation#2). */
  cancellable?: boolean;
  /** Marks the initialize request for the transport (HTTP session set-up, legacy fallback). */
  isInitialize?: boolean;
  /**
   * The request is answered only when it ends (2026-07-28 `subscriptions/listen`): the transport
   * keeps its response stream open (`SendOptions.longLived`). Give it `timeoutMs: Infinity` too.
   */
  longLived?: boolean;
  /**
   * Called synchronously with the JSON-RPC id the request is sent with, before it is sent: the
   * `relatedRequestId` of incoming notifications (`MessageExtra`) names requests by that id.
   */
  onRequestId?: (id: RequestId) => void;
  /**
   * Called with the result of a response that arrives after this request was given up on
   * (aborted or timed out): what the server did anyway, e.g. the task a task-augmented request
   * created, which then must be cancelled by `tasks/cancel` (basic.utilities.cancellation#3).
   */
  onLateResult?: (result: unknown) => void;
}

export interface ConnectionDiagnostic extends TransportDiagnostic {
  serverId?: string;
  /** `MCPWIRE_UNKNOWN_PROGRESS`: the token the notification named (a string or number), for matching by value. */
  progressToken?: unknown;
}

/** The diagnostic code of a progress notification whose token no request in flight carries. */
export const UNKNOWN_PROGRESS = 'MCPWIRE_UNKNOWN_PROGRESS';

export interface ConnectionOptions {
  serverId?: string;
  defaultTimeoutMs?: number;
  observer?: ProtocolObserver;
  /** The lifecycle phase to name in errors. */
  phase?: () => Phase;
  /** Non-fatal problems: malformed lines, unknown responses, batches refused… */
  onDiagnostic?: (d: ConnectionDiagnostic) => void;
  /** Whether a JSON-RPC batch (array) from the peer is acceptable (negotiated 2025-03-26 only). */
  acceptBatches?: () => boolean;
  /** Called once when the transport closes; `error` when it was not a clean close. */
  onClose?: (error?: Error) => void;
  /** A notification no handler is registered for (custom methods), instead of dropping it. */
  onOtherNotification?: (method: string, params: Record<string, unknown> | undefined, extra?: MessageExtra) => void;
}
