/**
 * Delivery of progress callbacks, rate-limited (basic.utilities.progress#10: "Both parties SHOULD
 * implement rate limiting to prevent flooding"). Per request, at most one `onProgress` call per
 * `ProgressState.intervalMs`: the first notification at once, later ones within the interval
 * coalesced to the latest, which is delivered when the interval is over — or before the request
 * settles (`flush`), so the final value is never lost. One timer per connection, armed only while
 * some request has a notification waiting; nothing per notification but a comparison.
 *
 * The connection routes notifications to requests and restarts their timeouts on every one of
 * them; this only decides when callbacks run.
 */
import type { PendingRequest, ProgressParams } from './registry.js';

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
