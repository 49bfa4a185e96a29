/**
 * A 2026-07-28 client's `tools/call`, `prompts/get` or `resources/read` whose downstream server
 * may ask for input (basic/patterns/mrtr, the server's side; only these three methods may
 * answer `input_required`, basic.patterns.mrtr#4): the first request starts the downstream call
 * as a held call (held-call.ts); when the server asks for elicitation, sampling or roots the
 * client gets `resultType: "input_required"` with those requests and a `requestState`
 * (input-rounds.ts); its retry with `inputResponses` and that state answers them and waits for
 * what the call does next — its result, or another round.
 *
 * Only a client that declared at least one of those features in its request's `_meta` is served
 * this way (basic.patterns.mrtr#13: a request it did not declare is never put to it; the
 * downstream server's request is refused then, as for a handshake-era client that did not
 * declare it).
 */
import type { ClientCapabilities } from '../mcp/types.js';
import type { CallSink, HeldCall } from './held-call.js';
import { requestIdentity, type InputRounds } from './input-rounds.js';

/** Whether `caps` let the gateway put any downstream input request to the client. */
export function asksForInput(caps: ClientCapabilities | undefined): caps is ClientCapabilities {
  return caps !== undefined && (caps.elicitation !== undefined || caps.sampling !== undefined || caps.roots !== undefined);
}

export interface InputRequest {
  method: string;
  params: Record<string, unknown> | undefined;
  caps: ClientCapabilities;
  /** The request's signal: its cancellation cancels the call. */
  signal: AbortSignal;
  /** Where the call's progress and log messages go while this request is served. */
  sink: CallSink;
}

/**
 * Serves one request of a modern client: a retry (it carries `requestState`) continues its held
 * call, any other starts `start(call)` (run under `call.controller.signal`).
 */
export async function withInputRounds(rounds: InputRounds, req: InputRequest, start: (call: HeldCall) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const identity = requestIdentity(req.method, req.params);
  let call: HeldCall;
  if (req.params?.requestState !== undefined) {
    call = rounds.find(req.params.requestState, identity);
    const responses = call.check(req.params.inputResponses);
    rounds.redeem(call);
    call.answer(responses);
  } else {
    call = rounds.create(identity, req.caps);
    call.run(start(call));
  }
  const out = await call.next(req.signal, req.sink);
  if (out.kind === 'result') return out.value;
  const requestState = rounds.issue(call);
  await rounds.announce(call);
  return { resultType: 'input_required', inputRequests: out.inputRequests, requestState };
}
