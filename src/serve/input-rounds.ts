/**
 * The gateway's table of held calls (held-call.ts): downstream calls of 2026-07-28 clients that
 * wait for their client's input between multi round-trip requests (basic/patterns/mrtr).
 *
 * - Bounded: at most `maxHeld` calls wait at once (a call that would be one more has its
 *   downstream input request refused; the call goes on without it), and each waits at most
 *   `ttlMs` for the client's retry: then its downstream request is cancelled, its input requests
 *   fail, and it leaves the table (basic.patterns.mrtr#15: the client may never retry).
 * - `requestState` names the held call and the round: `<payload>.<mac>`, the MAC an HMAC-SHA256
 *   with a per-process random key over the payload and the identity of the request (its method
 *   and a digest of its salient params). A retry's state is checked against the retry's own
 *   identity, so state that was altered, made up, or presented on another request fails
 *   verification (basic.patterns.mrtr#7/#9, #10 the originating request); a state is redeemed
 *   once (basic.patterns.mrtr#11): a replay, or a state of a call that ended or expired, is
 *   refused. Both are -32602 (invalid params: the state is a param of the request).
 * - Replicas (`serve --http --store`): the key is derived from the `secret` they share, so a
 *   state verifies on any of them; each call waiting for its client is announced to the `holder`
 *   (src/store/redis-sessions.ts: which replica holds it), so a retry that lands on another
 *   replica is forwarded here (held-forward.ts).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { JsonRpcError } from '../errors.js';
import type { ClientCapabilities } from '../mcp/types.js';
import { HeldCall, type HeldCallTable } from './held-call.js';

export const DEFAULT_MAX_HELD = 128;
export const DEFAULT_INPUT_TTL_MS = 5 * 60_000;
const DEFAULT_COALESCE_MS = 25;

export interface InputRoundsOptions {
  /** Calls waiting for their client's input at once (default 128). */
  maxHeld?: number;
  /** How long a call waits for the client's retry (default 5 min). */
  ttlMs?: number;
  /** Window in which input requests of one call go out together (default 25 ms). */
  coalesceMs?: number;
  /** The secret shared by replicas: the state's key is derived from it (default: a random key of this process). */
  secret?: string;
  /** Told which calls this process holds, for replicas to forward retries here. */
  holder?: CallHolder;
}

/** Where a replica says which held calls are its own (Redis with `serve --store`). */
export interface CallHolder {
  hold(id: string, ttlMs: number): Promise<void>;
  release(id: string): void;
}

/** The call id a `requestState` names (not verified: the holder verifies), or undefined. */
export function heldCallIdOf(state: unknown): string | undefined {
  if (typeof state !== 'string') return undefined;
  const dot = state.indexOf('.');
  if (dot <= 0) return undefined;
  const id = Buffer.from(state.slice(0, dot), 'base64url').toString('utf8').split('.')[0];
  return id !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : undefined;
}

export class InputRounds implements HeldCallTable {
  readonly maxHeld: number;
  readonly ttlMs: number;
  readonly coalesceMs: number;
  private readonly key: Buffer;
  private readonly held = new Map<string, HeldCall>();
  private readonly holder: CallHolder | undefined;
  /** Calls announced to the holder. */
  private readonly announced = new Set<string>();

  constructor(options: InputRoundsOptions = {}) {
    this.key = options.secret !== undefined ? createHmac('sha256', options.secret).update('mcpwire serve request-state key').digest() : randomBytes(32);
    this.holder = options.holder;
    this.maxHeld = Math.max(1, options.maxHeld ?? DEFAULT_MAX_HELD);
    this.ttlMs = Math.max(1, options.ttlMs ?? DEFAULT_INPUT_TTL_MS);
    this.coalesceMs = Math.max(0, options.coalesceMs ?? DEFAULT_COALESCE_MS);
  }

  /** Calls waiting for input now. */
  get size(): number {
    return this.held.size;
  }

  /** A call of a modern request (not in the table until it waits for input). */
  create(identity: string, caps: ClientCapabilities): HeldCall {
    return new HeldCall(randomBytes(16).toString('base64url'), identity, caps, this);
  }

  admit(call: HeldCall): boolean {
    if (this.held.get(call.id) === call) return true;
    if (this.held.size >= this.maxHeld) return false;
    this.held.set(call.id, call);
    return true;
  }

  /** Whether this process holds the call `id`. */
  holds(id: string): boolean {
    return this.held.has(id);
  }

  /** The call waits for its client's retry: the holder learns it is here (before its state goes out). */
  async announce(call: HeldCall): Promise<void> {
    if (this.holder === undefined || this.held.get(call.id) !== call) return;
    this.announced.add(call.id);
    await this.holder.hold(call.id, this.ttlMs).catch(() => undefined);
  }

  release(call: HeldCall): void {
    if (this.announced.delete(call.id)) this.holder?.release(call.id);
    if (call.timer !== undefined) clearTimeout(call.timer);
    call.timer = undefined;
    call.redeemable = false;
    if (this.held.get(call.id) === call) this.held.delete(call.id);
  }

  /** The state of the round going out now; the call waits `ttlMs` for it to come back. */
  issue(call: HeldCall): string {
    call.round++;
    call.redeemable = true;
    const payload = Buffer.from(`${call.id}.${call.round}`).toString('base64url');
    if (call.timer !== undefined) clearTimeout(call.timer);
    call.timer = setTimeout(() => call.cancel(new JsonRpcError(-32603, `the client did not come back with its input within ${this.ttlMs} ms`)), this.ttlMs);
    call.timer.unref();
    return `${payload}.${this.mac(payload, call.identity)}`;
  }

  /**
   * The call a retry's `requestState` names, checked (see the module comment); not redeemed yet:
   * `redeem` does that once the retry's answers have been checked too.
   */
  find(state: unknown, identity: string): HeldCall {
    if (typeof state !== 'string') throw new JsonRpcError(-32602, 'Invalid params: "requestState" must be a string');
    const dot = state.indexOf('.');
    const payload = dot > 0 ? state.slice(0, dot) : '';
    const given = Buffer.from(dot > 0 ? state.slice(dot + 1) : '', 'base64url');
    const expected = Buffer.from(this.mac(payload, identity), 'base64url');
    if (payload === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new JsonRpcError(-32602, 'Invalid params: requestState failed verification (not issued by this gateway for this request)');
    }
    const [id, round] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
    const call = this.held.get(id ?? '');
    if (call === undefined || call.identity !== identity) throw new JsonRpcError(-32602, 'Invalid params: requestState names no call the gateway holds (it ended, expired or was answered)');
    if (!call.redeemable || String(call.round) !== round) throw new JsonRpcError(-32602, 'Invalid params: requestState was already used (a state is redeemed once)');
    return call;
  }

  /** The call's state is used up: its next round gets a new one. */
  redeem(call: HeldCall): void {
    call.redeemable = false;
    if (call.timer !== undefined) clearTimeout(call.timer);
    call.timer = undefined;
  }

  /** The gateway closes: every held call is cancelled. */
  close(): void {
    for (const call of [...this.held.values()]) call.cancel(new JsonRpcError(-32603, 'the gateway is closing'));
  }

  private mac(payload: string, identity: string): string {
    return createHmac('sha256', this.key).update(payload).update('\0').update(identity).digest('base64url');
  }
}

/**
 * The identity of a request for its state (basic.patterns.mrtr#10): the method and a digest of
 * the params that say what it is — all but `_meta`, `inputResponses` and `requestState` —
 * with object keys sorted, so the same request sent again matches.
 */
export function requestIdentity(method: string, params: Record<string, unknown> | undefined): string {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...salient } = params ?? {};
  return `${method}\0${createHash('sha256').update(canonical(salient)).digest('base64url')}`;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
