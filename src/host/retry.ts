/**
 * The retry policy of host tool calls (seed 003 `RetryPolicy`): how many times, after how long,
 * and which failures. A failure is retried only when it is transient (`isTransient`: transport,
 * timeout, server unavailable) AND the call is safe to repeat: the tool says `idempotentHint` or
 * `readOnlyHint` (untrusted hints, but the server's own claim about repeating), or the server's
 * config sets `retry_non_idempotent`. A tool error (`isError`), a JSON-RPC error, a denial, a
 * cancellation or a local argument refusal is never retried. Delays grow exponentially from
 * `baseDelayMs` (×2) up to `maxDelayMs`, with ±20 % jitter (`backoff.ts`).
 */
import type { ToolAnnotations } from '../mcp/types.js';
import { backoffDelay } from './backoff.js';
import { DEFAULT_RETRY_BASE_DELAY_MS, DEFAULT_RETRY_MAX_DELAY_MS, type RetrySettings } from './config/types.js';
import { isTransient, type CallOutcome } from './outcome.js';

/** No retries (the default when a server's config has no `retry`). */
export const NO_RETRY: RetrySettings = Object.freeze({ maxRetries: 0, baseDelayMs: DEFAULT_RETRY_BASE_DELAY_MS, maxDelayMs: DEFAULT_RETRY_MAX_DELAY_MS, retryNonIdempotent: false });

/** True when the tool declares that repeating a call is harmless. */
export function isIdempotentTool(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.idempotentHint === true || annotations?.readOnlyHint === true;
}

/** Whether a failure with `outcome` of a call to a tool with `annotations` may be retried under `policy` (count aside). */
export function mayRetry(outcome: CallOutcome, annotations: ToolAnnotations | undefined, policy: Pick<RetrySettings, 'retryNonIdempotent'>): boolean {
  return isTransient(outcome) && (isIdempotentTool(annotations) || policy.retryNonIdempotent);
}

/** The delay before retry number `retry` (0-based), jittered by `random`. */
export function retryDelay(retry: number, policy: Pick<RetrySettings, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  return backoffDelay(retry, { initialDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs, factor: 2, jitter: 0.2 }, random);
}

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
