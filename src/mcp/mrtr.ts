/**
 * Multi round-trip requests (basic/patterns/mrtr), the client's side: an `input_required`
 * result's input requests are answered by the client's handlers (the same as for server→client
 * requests: elicitation, sampling, roots) and the original request is sent again — a new
 * request, so a new JSON-RPC id (basic.patterns.mrtr#20) — with `inputResponses` and the
 * server's `requestState` echoed unchanged (basic.patterns.mrtr#17/#18), or none when it sent
 * none (basic.patterns.mrtr#19). What one round asked for goes into that request's retry only
 * (basic.patterns.mrtr#21). Bounded in rounds; the caller's timeout and signal span them all.
 */
import { AbortError, CapabilityError, ProtocolError, TimeoutError } from '../errors.js';
import type { InputRequests, McpRequestOptions } from './client-options.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../protocol/options.js';
import { timerMs } from '../util/sleep.js';
import { answerInputRequest, missingInputHandler, type ClientFeatureOptions, type ClientFeatureState } from './client-features.js';
import type { InputRequired } from './eras/codec.js';
import { raceAbort } from '../util/abort.js';
import { abortSignalOf } from '../util/cancel.js';

export const DEFAULT_MAX_INPUT_ROUNDS = 8;

export interface RoundTripDeps {
  serverId: string;
  options: ClientFeatureOptions;
  features: ClientFeatureState;
  maxRounds: number;
  defaultTimeoutMs: number | undefined;
  /** Sends `method` once (era params, lifecycle, errors): the raw result. */
  send(method: string, params: Record<string, unknown>, options: McpRequestOptions): Promise<unknown>;
  /** The era's reading: an interim result, or undefined for a final one. */
  interim(method: string, raw: unknown): InputRequired | undefined;
}

/**
 * Follows `first` (the answer to the original send, made at `startedAt`) through its input
 * rounds to a final result.
 */
export async function followInputRounds(
  d: RoundTripDeps,
  method: string,
  params: Record<string, unknown> | undefined,
  options: McpRequestOptions | undefined,
  first: unknown,
  startedAt: number,
): Promise<unknown> {
  let raw = first;
  const timeoutMs = options?.timeoutMs ?? d.defaultTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const endsAt = startedAt + timeoutMs;
  for (let round = 1; ; round++) {
    const asked = d.interim(method, raw);
    if (asked === undefined) return raw;
    if (round > d.maxRounds) {
      throw new ProtocolError(`${method}: the server still asks for input after ${d.maxRounds} round(s); giving up`, {
        serverId: d.serverId,
        phase: 'request',
        code: 'MCPWIRE_INPUT_ROUNDS',
      });
    }
    const left = endsAt - Date.now();
    if (left <= 0) throw new TimeoutError(method, timeoutMs, { serverId: d.serverId, phase: 'request' });
    const inputResponses = await answerAll(d, method, asked, options, left, timeoutMs);
    const retry: Record<string, unknown> = { ...params, inputResponses };
    if (asked.requestState !== undefined) retry.requestState = asked.requestState;
    raw = await d.send(method, retry, { ...options, timeoutMs: Math.max(1, endsAt - Date.now()) });
  }
}

/**
 * Answers every input request: by the request's own `onInputRequests`, the round's requests
 * together under the server's keys; else by the client's handlers, one at a time (each may ask
 * a human). A request the client has no handler for fails the whole request, naming it:
 * retrying without it would ask again.
 */
async function answerAll(d: RoundTripDeps, method: string, asked: InputRequired, options: McpRequestOptions | undefined, leftMs: number, timeoutMs: number): Promise<Record<string, unknown>> {
  const signal = abortSignalOf(options?.signal);
  const requests = Object.entries(asked.inputRequests ?? {});
  const own = options?.onInputRequests;
  const missing = own !== undefined ? [] : requests.map(([key, r]) => [key, missingInputHandler(d.options, d.features, r?.method)] as const).filter(([, m]) => m !== undefined);
  if (missing.length > 0) {
    throw new CapabilityError(`${method}: the server asks for input this client cannot give: ${missing.map(([k, m]) => `"${k}": ${m}`).join('; ')}`, {
      serverId: d.serverId,
      phase: 'request',
    });
  }
  const responses: Record<string, unknown> = {};
  if (requests.length === 0) return responses;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new TimeoutError(method, timeoutMs, { serverId: d.serverId, phase: 'request' })), timerMs(leftMs));
  const onAbort = (): void => deadline.abort(new AbortError(`${method} aborted while answering its input requests`, { serverId: d.serverId, phase: 'request', cause: signal?.reason }));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (own !== undefined) return await raceAbort(own(asked.inputRequests as InputRequests, deadline.signal), deadline.signal);
    for (const [key, r] of requests) {
      deadline.signal.throwIfAborted();
      responses[key] = await raceAbort(answerInputRequest(d.options, d.features, r.method as string, r.params, deadline.signal), deadline.signal);
    }
    return responses;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

