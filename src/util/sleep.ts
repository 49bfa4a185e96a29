/**
 * The one abortable wait of the engine. Node's timers take at most 2^31−1 ms: a longer delay
 * (a server's `retry:` of 2^31 ms, say) would fire after 1 ms, so every wait is clamped to that.
 * Imports nothing: every layer may use it.
 */

/** The longest delay a Node timer honours (a larger one fires at once, with a warning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` made safe for setTimeout: not negative, not NaN, at most MAX_TIMER_MS. */
export function timerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return ms > MAX_TIMER_MS ? MAX_TIMER_MS : ms;
}

/**
 * Resolves `true` after `ms`, or `false` as soon as `signal` aborts (at once when it already has).
 * Never rejects; the abort listener is removed either way.
 */
export function wait(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, timerMs(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Resolves after `ms`; rejects when `signal` aborts, with `onAbort()` when given, else the
 * signal's reason.
 */
export async function sleep(ms: number, signal?: AbortSignal, onAbort?: () => unknown): Promise<void> {
  if (await wait(ms, signal)) return;
  throw onAbort !== undefined ? onAbort() : signal!.reason;
}
