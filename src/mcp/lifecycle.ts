/**
 * The connection lifecycle as a table (basic/lifecycle): states, the transitions allowed from
 * each, and what each state permits. One `transition()` checks it; an illegal transition is a
 * bug and throws.
 */
import { StateError, type Phase } from '../errors.js';
import { bareMessage } from '../protocol/error-text.js';

export type LifecycleState = 'idle' | 'connecting' | 'initializing' | 'ready' | 'closing' | 'closed' | 'failed';

const TRANSITIONS: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = {
  idle: ['connecting', 'closing', 'closed'],
  connecting: ['initializing', 'failed', 'closing'],
  initializing: ['ready', 'failed', 'closing'],
  // ready → initializing: a new HTTP session after the old one expired (SessionExpiredError).
  ready: ['initializing', 'closing', 'failed'],
  closing: ['closed'],
  closed: [],
  failed: ['initializing', 'closing', 'closed'],
};

/** The phase named in errors for each state. */
const PHASE: Readonly<Record<LifecycleState, Phase>> = {
  idle: 'connect',
  connecting: 'connect',
  initializing: 'initialize',
  ready: 'request',
  closing: 'close',
  closed: 'close',
  failed: 'request',
};

export type TransitionListener = (from: LifecycleState, to: LifecycleState) => void;

export class Lifecycle {
  private current: LifecycleState = 'idle';
  constructor(
    private readonly serverId: string | undefined,
    private readonly onTransition?: TransitionListener,
  ) {}

  get state(): LifecycleState {
    return this.current;
  }

  get phase(): Phase {
    return PHASE[this.current];
  }

  canTransition(to: LifecycleState): boolean {
    return TRANSITIONS[this.current].includes(to);
  }

  transition(to: LifecycleState): void {
    const from = this.current;
    if (!TRANSITIONS[from].includes(to)) {
      throw new StateError(`illegal lifecycle transition ${from} → ${to}`, { serverId: this.serverId, phase: PHASE[from] });
    }
    this.current = to;
    this.onTransition?.(from, to);
  }

  /**
   * Why a request with this method cannot be sent now (StateError), or undefined (see
   * `permitsRequest`); `closeReason`: why the connection closed, when it failed.
   */
  refusal(method: string, closeReason: Error | undefined): StateError | undefined {
    if (this.permitsRequest(method)) return undefined;
    const phase = this.phase;
    return new StateError(
      `cannot send "${method}" while the connection is ${this.current}` +
        (this.current === 'initializing' ? ' (only ping is allowed before initialization completes)' : '') +
        (closeReason !== undefined ? `: ${bareMessage(closeReason)}` : ''),
      { serverId: this.serverId, phase, cause: closeReason },
    );
  }

  /**
   * Whether a request with this method may be sent now. basic.lifecycle#1/#5: initialization
   * comes first, and before the server answered `initialize` only pings may be sent.
   */
  permitsRequest(method: string): boolean {
    switch (this.current) {
      case 'ready':
        return true;
      case 'initializing':
        return method === 'initialize' || method === 'ping';
      default:
        return false;
    }
  }
}
