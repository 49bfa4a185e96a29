/**
 * Delivery of progress callbacks, rate-limited (basic.utilities.progress#10: "Both parties SHOULD
 * implement rate limiting to prevent flooding"). Per request, at most one `onProgress` call per
 * `ProgressState.intervalMs`: the first notification at once, later ones within the interval
 * coalesced to the latest, which is delivered when the interval is over — or before the request
 * settles (`flush`), so the final value is never lost. One timer per connection, armed only while
 * some request has a notification waiting; nothing per notification but a comparison.
 *
 * `routeProgress` takes a notification to its request and restarts its timeout; the gate only
 * decides when callbacks run.
 */
import type { TransportDiagnostic } from '../transport/types.js';
import { UNKNOWN_PROGRESS } from './options.js';
import type { PendingRequest, ProgressParams, RequestRegistry } from './registry.js';

/**
 * A `notifications/progress` to the request whose token it carries: restarts that request's
 * countdown when asked (basic.lifecycle#18) and offers it to the gate. An unknown token is
 * reported with the token (`UNKNOWN_PROGRESS`), for its owner to recognise it by value.
 */
export function routeProgress(
  params: Record<string, unknown> | undefined,
  registry: RequestRegistry,
  gate: ProgressGate,
  diagnostic: (d: TransportDiagnostic, progressToken?: unknown) => void,
): void {
  const token = params?.progressToken;
  const entry = typeof token === 'number' || typeof token === 'string' ? registry.byToken(token) : undefined;
  if (entry === undefined) {
    // basic.utilities.progress#5: tokens must reference active requests; ignore others.
    diagnostic({ code: UNKNOWN_PROGRESS, message: `progress for unknown or finished token ${JSON.stringify(token)} ignored` }, token);
    return;
  }
  const p = params as ProgressParams;
  if (typeof p.progress !== 'number') {
    diagnostic({ code: 'MCPWIRE_BAD_PROGRESS', message: 'progress notification without a numeric "progress" ignored' });
    return;
  }
  // Every notification restarts the countdown, whether its callback is coalesced or not.
  if (entry.resetOnProgress && entry.dueList !== undefined) registry.restart(entry);
  const st = entry.progress;
  if (st === undefined) return; // the caller's own token, without a callback
  if (p.progress <= st.last) {
    // basic.utilities.progress#3: progress MUST increase; report but still deliver.
    diagnostic({ code: 'MCPWIRE_PROGRESS_NOT_INCREASING', message: `progress for request ${entry.id} did not increase (${st.last} → ${p.progress})` });
  }
  st.last = p.progress;
  gate.offer(entry, p);
}

export class ProgressGate {
  /** Requests whose latest progress waits for its interval. */
  private readonly waiting = new Set<PendingRequest>();
  private timer: NodeJS.Timeout | undefined;
  /** When `timer` fires (performance.now() ms); Infinity when not armed. */
  private timerAt = Infinity;

  /** `onCallbackError`: an `onProgress` callback threw (reported, never rethrown). */
  constructor(private readonly onCallbackError: (err: unknown) => void) {}

  /** A progress notification for `entry` (which has `progress` state): deliver now or later. */
  offer(entry: PendingRequest, p: ProgressParams): void {
    const st = entry.progress!;
    const now = st.intervalMs > 0 ? performance.now() : 0;
    if (now < st.nextAt) {
      st.pending = p;
      this.waiting.add(entry);
      if (st.nextAt < this.timerAt) this.arm(st.nextAt, now);
      return;
    }
    if (st.pending !== undefined) {
      st.pending = undefined;
      this.waiting.delete(entry);
    }
    st.nextAt = now + st.intervalMs;
    this.deliver(entry, p);
  }

  /** The request is settling: delivers the notification still waiting, if any. */
  flush(entry: PendingRequest): void {
    const st = entry.progress!;
    const p = st.pending;
    if (p === undefined) return;
    st.pending = undefined;
    this.waiting.delete(entry);
    if (this.waiting.size === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Infinity;
    }
    this.deliver(entry, p);
  }

  private deliver(entry: PendingRequest, p: ProgressParams): void {
    try {
      entry.progress!.onProgress(p);
    } catch (err) {
      this.onCallbackError(err);
    }
  }

  private arm(at: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.due, Math.max(1, Math.ceil(at - now)));
    // Progress arrives through the transport, which holds the event loop; this need not.
    this.timer.unref?.();
  }

  /** Delivers every waiting notification whose interval is over, then re-arms for the next. */
  private readonly due = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const entry of this.waiting) {
      const st = entry.progress!;
      if (st.nextAt - now < 1) {
        this.waiting.delete(entry);
        const p = st.pending!;
        st.pending = undefined;
        st.nextAt = now + st.intervalMs;
        this.deliver(entry, p);
      } else if (st.nextAt < next) {
        next = st.nextAt;
      }
    }
    if (next < this.timerAt) this.arm(next, now);
  };
}
