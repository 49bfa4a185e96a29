/**
 * Bounds on what a view may send: a message's size and a rate (a token bucket: `burst` messages
 * at once, refilled at `perSecond`). A view over the rate has its messages dropped; one that
 * keeps flooding past `maxDropped` is cut off (the bridge closes it).
 */

export interface ViewLimits {
  /** Largest message a view may send, in UTF-8 bytes of its JSON (default 1 MiB). */
  maxMessageBytes?: number;
  /** Sustained messages per second (default 50). */
  perSecond?: number;
  /** Messages at once before the rate applies (default 200). */
  burst?: number;
  /** Dropped messages after which the view is cut off (default 500). */
  maxDropped?: number;
  /** How long a view has to send `ui/initialize` and `ui/notifications/initialized` (default 30 s). */
  initTimeoutMs?: number;
  /** How long teardown waits for the view's answer to `ui/resource-teardown` (default 3 s). */
  teardownTimeoutMs?: number;
}

export const DEFAULT_VIEW_LIMITS: Required<ViewLimits> = {
  maxMessageBytes: 1024 * 1024,
  perSecond: 50,
  burst: 200,
  maxDropped: 500,
  initTimeoutMs: 30_000,
  teardownTimeoutMs: 3_000,
};

/** A token bucket over an injected clock (milliseconds). */
export class RateGate {
  private tokens: number;
  private last: number;
  dropped = 0;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes one token: true when the message may pass. */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped += 1;
    return false;
  }
}
