/**
 * One downstream call of a 2026-07-28 client kept running across its multi round-trip requests
 * (basic/patterns/mrtr): the downstream server's `elicitation/create`, `sampling/createMessage`
 * and `roots/list` during the call wait here as input requests until the client's retry brings
 * their answers; the call's result waits here until a request of the client is there to take it.
 *
 * - `ask` is the downstream server's request: held under a key unique within the call
 *   (`elicitation-1`, `roots-2`…, basic.patterns.mrtr#5) until answered, the call ends or it is
 *   given up (the downstream request's own signal, the table's expiry). A 2026-07-28 server's
 *   round (`askRound`) keeps the server's own keys: the client answers under them, unchanged.
 * - `next` serves one request of the client: it waits for what comes first — the call's end (its
 *   result or error), or input requests (those that arrive within a short window go together in
 *   one `inputRequests` map) — or the request's cancellation, which cancels the call.
 * - Every request still unanswered goes out again in the next round (basic.patterns.mrtr#25).
 * - While a request is being served its `sink` takes the call's progress and log messages; between
 *   requests they are dropped (no request to carry them).
 */
import { JsonRpcError } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';
import type { ClientCapabilities } from '../mcp/types.js';

export type InputFeature = 'sampling' | 'elicitation' | 'roots';

/** The client feature each input request needs (basic.patterns.mrtr#13). */
export const FEATURE_OF: Readonly<Record<string, InputFeature>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Where a held call's notifications go while one of its requests is served. */
export interface CallSink {
  /** Progress of the call, already carrying the served request's token. */
  progress(params: Record<string, unknown>): void;
  log(server: string | undefined, params: Record<string, unknown>): void;
}

/** What `next` ends with: the call's result, or a round of input requests. */
export type Outcome = { kind: 'result'; value: Record<string, unknown> } | { kind: 'input'; inputRequests: Record<string, { method: string; params?: Record<string, unknown> }> };

/** What the held call needs from its table. */
export interface HeldCallTable {
  /** Takes the call in (it waits for input now); false when the table is full. */
  admit(call: HeldCall): boolean;
  /** The call is over: out of the table. */
  release(call: HeldCall): void;
  readonly coalesceMs: number;
  readonly maxHeld: number;
}

interface Pending {
  method: string;
  params: Record<string, unknown> | undefined;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export class HeldCall {
  readonly controller = new AbortController();
  /** The last round whose state went out (0: none yet). */
  round = 0;
  /** That round's state has not been presented yet. */
  redeemable = false;
  /** The TTL timer of the table while no request of the client is here. */
  timer: NodeJS.Timeout | undefined;
  sink: CallSink | undefined;
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private settled: { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown } | undefined;
  private wake: (() => void) | undefined;
  /** Ends the coalescing window early: the call ended or was cancelled. */
  private interrupt: (() => void) | undefined;

  constructor(
    readonly id: string,
    /** The digest of the request the call serves (method and its salient params). */
    readonly identity: string,
    readonly caps: ClientCapabilities,
    private readonly table: HeldCallTable,
  ) {}

  /** Whether the client declared what a request needing `feature` asks for (basic.patterns.mrtr#13). */
  declares(feature: InputFeature): boolean {
    return this.caps[feature] !== undefined && this.settled === undefined && !this.controller.signal.aborted;
  }

  /** The keys of the input requests not answered yet. */
  get waiting(): string[] {
    return [...this.pending.keys()];
  }

  /** Runs the call: its end is kept for the request that is there (or comes) to take it. */
  run(call: Promise<Record<string, unknown>>): void {
    call.then(
      (value) => this.settle({ ok: true, value }),
      (error: unknown) => this.settle({ ok: false, error }),
    );
  }

  /**
   * A 2026-07-28 downstream server's `input_required` round: its input requests go to the client
   * under the server's own keys, and the answers come back under them (held together, so the
   * client gets them in one round). A request the client did not declare is refused
   * (basic.patterns.mrtr#13); an answer left out is not in the map (the server may ask again).
   */
  async askRound(requests: Record<string, { method: string; params?: Record<string, unknown> }>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const entries = Object.entries(requests);
    const undeclared = entries.filter(([, r]) => FEATURE_OF[r.method] === undefined || !this.declares(FEATURE_OF[r.method]!));
    if (undeclared.length > 0) {
      throw new JsonRpcError(-32603, `the server asks for input its client did not declare: ${undeclared.map(([k, r]) => `${JSON.stringify(excerpt(k, 100))} (${excerpt(String(r.method), 100)})`).join(', ')}`);
    }
    const answers = await Promise.all(entries.map(([key, r]) => this.ask(r.method, r.params, signal, key)));
    return Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
  }

  /** A downstream server's request during the call (see the module comment), under `given` when the server named it. */
  ask(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal, given?: string): Promise<unknown> {
    if (this.settled !== undefined || this.controller.signal.aborted) return Promise.reject(new JsonRpcError(-32603, `${method}: the call it belongs to is over`));
    if (given !== undefined && this.pending.has(given)) return Promise.reject(new JsonRpcError(-32603, `${method}: input request ${JSON.stringify(excerpt(given, 100))} is already waiting`));
    if (!this.table.admit(this)) return Promise.reject(new JsonRpcError(-32603, `${method}: the gateway already holds ${this.table.maxHeld} calls waiting for their client's input`));
    const key = given ?? `${FEATURE_OF[method] ?? 'input'}-${++this.seq}`;
    return new Promise((resolve, reject) => {
      const gone = (): void => {
        if (this.pending.delete(key)) reject(signal?.reason);
        this.poke();
      };
      const done = (): void => signal?.removeEventListener('abort', gone);
      this.pending.set(key, {
        method,
        params,
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      if (signal?.aborted) return gone();
      signal?.addEventListener('abort', gone, { once: true });
      this.poke();
    });
  }

  /**
   * Checks the retry's `inputResponses` against what is waiting (basic.patterns.mrtr#22): not an
   * object, or an answer that is not an object or not the shape of its request's result, is
   * -32602. Keys the call did not ask for are ignored (basic.patterns.mrtr#24).
   */
  check(responses: unknown): Record<string, unknown> {
    if (responses === undefined) return {};
    if (responses === null || typeof responses !== 'object' || Array.isArray(responses)) throw new JsonRpcError(-32602, 'Invalid params: "inputResponses" must be an object');
    const given = responses as Record<string, unknown>;
    for (const [key, p] of this.pending) {
      if (!(key in given)) continue;
      const problem = resultProblem(p.method, given[key]);
      if (problem !== undefined) throw new JsonRpcError(-32602, `Invalid params: inputResponses["${key}"] ${problem}`);
    }
    return given;
  }

  /** Hands each answer to its waiting downstream request; what is missing stays waiting. */
  answer(responses: Record<string, unknown>): void {
    for (const [key, p] of [...this.pending]) {
      if (!(key in responses)) continue;
      this.pending.delete(key);
      p.resolve(responses[key]);
    }
  }

  /** Serves one request of the client (see the module comment); the sink is this request's. */
  async next(signal: AbortSignal, sink: CallSink): Promise<Outcome> {
    this.sink = sink;
    const cancel = (): void => this.cancel(signal.reason ?? new JsonRpcError(-32603, 'the request was cancelled'));
    signal.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        if (this.settled !== undefined) return this.end();
        if (this.pending.size > 0) {
          // Requests sent together by the server are answered together: a short window first.
          await this.window();
          if (signal.aborted) throw signal.reason;
          if (this.settled !== undefined) return this.end();
          if (this.pending.size > 0) return { kind: 'input', inputRequests: this.requests() };
          continue;
        }
        await new Promise<void>((r) => (this.wake = r));
      }
    } finally {
      this.sink = undefined;
      signal.removeEventListener('abort', cancel);
    }
  }

  /** Ends the call: the downstream request is cancelled, every waiting input request fails. */
  cancel(reason: unknown): void {
    this.table.release(this);
    if (!this.controller.signal.aborted) this.controller.abort(reason);
    const failure = reason instanceof Error ? reason : new JsonRpcError(-32603, String(reason));
    for (const p of this.pending.values()) p.reject(failure);
    this.pending.clear();
    this.interrupt?.();
    this.poke();
  }

  private end(): Outcome {
    this.table.release(this);
    const s = this.settled!;
    // A request still waiting when the call ended has no one to wait for.
    for (const p of this.pending.values()) p.reject(new JsonRpcError(-32603, `${p.method}: the call it belongs to is over`));
    this.pending.clear();
    if (!s.ok) throw s.error;
    return { kind: 'result', value: s.value };
  }

  private requests(): Record<string, { method: string; params?: Record<string, unknown> }> {
    const out: Record<string, { method: string; params?: Record<string, unknown> }> = {};
    for (const [key, p] of this.pending) out[key] = p.params === undefined ? { method: p.method } : { method: p.method, params: upstreamParams(p.params) };
    return out;
  }

  private settle(s: NonNullable<HeldCall['settled']>): void {
    this.settled ??= s;
    this.interrupt?.();
    this.poke();
  }

  /** The coalescing window: new input requests do not end it; the call's end or cancellation does. */
  private window(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.interrupt?.(), this.table.coalesceMs);
      this.interrupt = () => {
        clearTimeout(timer);
        this.interrupt = undefined;
        resolve();
      };
    });
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/** A downstream request's params as the upstream client sees them: the downstream leg's protocol `_meta` keys stay behind. */
function upstreamParams(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (meta === undefined || meta === null || typeof meta !== 'object') return params;
  const kept = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith('io.modelcontextprotocol/')));
  const { _meta: _dropped, ...rest } = params;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}

/** Why `value` is not a result of `method` (ElicitResult, CreateMessageResult, ListRootsResult), or undefined. */
function resultProblem(method: string, value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object (the result of the request)';
  const v = value as Record<string, unknown>;
  if (method === 'elicitation/create' && !['accept', 'decline', 'cancel'].includes(v.action as string)) return 'must be an ElicitResult ("action": accept, decline or cancel)';
  if (method === 'sampling/createMessage' && (typeof v.role !== 'string' || v.content === undefined)) return 'must be a CreateMessageResult ("role" and "content")';
  if (method === 'roots/list' && !Array.isArray(v.roots)) return 'must be a ListRootsResult ("roots": an array)';
  return undefined;
}
