/**
 * Reconnect delays: exponential backoff with jitter, so many hosts (or many servers of one
 * host) that lost a server at the same moment do not all come back at the same instant.
 */

/** Backoff settings. */
export interface BackoffOptions {
  /** Delay before the first retry (default 1000 ms). */
  initialDelayMs?: number;
  /** Upper bound of the un-jittered delay (default 30 000 ms). */
  maxDelayMs?: number;
  /** Growth factor per attempt (default 2). */
  factor?: number;
  /** Relative jitter: the delay is scaled by a random factor in [1 - jitter, 1 + jitter] (default 0.2). */
  jitter?: number;
  /** Retries after which the server stays in `error` until restarted (default 8; `Infinity` for ever). */
  maxRetries?: number;
}

/** Defaults of `BackoffOptions`. */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  factor: 2,
  jitter: 0.2,
  maxRetries: 8,
};

/**
 * The delay before retry number `attempt` (0-based): `min(max, initial * factor^attempt)`,
 * scaled by a jitter factor drawn from `random` (default `Math.random`). Never negative.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const o = { ...DEFAULT_BACKOFF, ...options };
  const base = Math.min(o.maxDelayMs, o.initialDelayMs * o.factor ** Math.max(0, attempt));
  const jitter = Math.min(1, Math.max(0, o.jitter));
  const scale = 1 - jitter + 2 * jitter * random();
  return Math.max(0, Math.round(base * scale));
}
