/**
 * The retry policy of host tool calls: how many times, after how long,
 * and which failures. A failure is retried only when the policy's `retryOn` names its outcome,
 * its code or its JSON-RPC error code (default: the transient outcomes — transport, timeout,
 * server unavailable) AND the call is safe to repeat: the server's config sets
 * `retry_non_idempotent`, or the tool says `idempotentHint` or `readOnlyHint` AND the user marked
 * the server `trust_annotations` — server.tools#6: tool annotations are untrusted unless they
 * come from trusted servers, so a hint of any other server decides nothing. What no retry can change — a success, a cancellation, a
 * denial, a local argument refusal, an unknown tool — is never retried, whatever `retryOn` says.
 * Delays grow from `baseDelayMs` by `multiplier` (default 2) up to `maxDelayMs`, with ±20 %
 * jitter (`backoff.ts`).
 */
import type { ToolAnnotations } from '../mcp/types.js';
import { backoffDelay } from './backoff.js';
import { DEFAULT_RETRY_BASE_DELAY_MS, DEFAULT_RETRY_MAX_DELAY_MS, DEFAULT_RETRY_MULTIPLIER, DEFAULT_RETRY_ON, type RetrySettings } from './config/types.js';
import type { CallOutcome } from './outcome.js';

/** No retries (the default when neither the server's config nor the host sets a `retry`). */
export const NO_RETRY: RetrySettings = Object.freeze({
  maxRetries: 0,
  baseDelayMs: DEFAULT_RETRY_BASE_DELAY_MS,
  maxDelayMs: DEFAULT_RETRY_MAX_DELAY_MS,
  multiplier: DEFAULT_RETRY_MULTIPLIER,
  retryOn: DEFAULT_RETRY_ON,
  retryNonIdempotent: false,
});

/** Outcomes no retry can change: never retried, whatever `retryOn` names. */
const NEVER_RETRIED: ReadonlySet<CallOutcome> = new Set(['ok', 'cancelled', 'denied', 'invalid_arguments', 'unknown_tool']);

/** True when the tool claims that repeating a call is harmless (a claim: see `mayRetry` for when it counts). */
export function isIdempotentTool(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.idempotentHint === true || annotations?.readOnlyHint === true;
}

/** What a failure is, for `retryOn`: its code (`MCPWIRE_TIMEOUT`…) and JSON-RPC error code. */
export interface FailureCodes {
  code?: string;
  rpcCode?: number;
}

/**
 * Whether a failure with `outcome` (and `codes`) of a call to a tool with `annotations` may be
 * retried under `policy` (count aside). `policy.retryOn` defaults to the transient outcomes.
 * `annotationsTrusted`: the server is one whose annotations the user trusts (`trust_annotations`);
 * otherwise (the default) its hints are ignored and only `retryNonIdempotent` allows a retry.
 */
export function mayRetry(
  outcome: CallOutcome,
  annotations: ToolAnnotations | undefined,
  policy: Pick<RetrySettings, 'retryNonIdempotent' | 'retryOn'>,
  codes: FailureCodes = {},
  annotationsTrusted = false,
): boolean {
  if (NEVER_RETRIED.has(outcome)) return false;
  const on = policy.retryOn ?? DEFAULT_RETRY_ON;
  const named = on.includes(outcome) || (codes.code !== undefined && on.includes(codes.code)) || (codes.rpcCode !== undefined && on.includes(codes.rpcCode));
  return named && ((annotationsTrusted && isIdempotentTool(annotations)) || policy.retryNonIdempotent);
}

/** The delay before retry number `retry` (0-based), jittered by `random`. */
export function retryDelay(retry: number, policy: Pick<RetrySettings, 'baseDelayMs' | 'maxDelayMs' | 'multiplier'>, random: () => number = Math.random): number {
  return backoffDelay(retry, { initialDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs, factor: policy.multiplier ?? DEFAULT_RETRY_MULTIPLIER, jitter: 0.2 }, random);
}
