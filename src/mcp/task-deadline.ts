/**
 * The deadline of a task-augmented tool call (tasks.ts `callTool`): the caller's abort or the
 * call's total time passing aborts one signal that every request of the exchange carries.
 */
import { AbortError, TimeoutError } from '../errors.js';
import { timerMs } from '../util/sleep.js';

/**
 * A task call's own signal: the caller's abort or the total deadline (a timer, so fake timers
 * drive it). `error()` turns the abort into what the caller sees.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly endsAt: number;
  private timedOut = false;
  private readonly onCallerAbort: () => void;

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly totalMs: number,
    private readonly tool: string,
    private readonly serverId: string,
    onAbort: () => void,
  ) {
    this.endsAt = Date.now() + totalMs;
    this.onCallerAbort = () => {
      onAbort();
      this.controller.abort(caller!.reason);
    };
    this.timer = setTimeout(() => {
      this.timedOut = true;
      onAbort();
      this.controller.abort(new TimeoutError(`tools/call ${JSON.stringify(tool).slice(0, 130)} (task)`, totalMs, { serverId, phase: 'request', total: true }));
      // A total beyond Node's timer range (ten times an unbounded request timeout) would fire at once.
    }, timerMs(totalMs));
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return Math.max(1, this.endsAt - Date.now());
  }

  error(err: unknown): Error {
    if (this.timedOut) return this.controller.signal.reason as TimeoutError;
    if (err instanceof AbortError) return err;
    return new AbortError(`tools/call ${JSON.stringify(this.tool).slice(0, 130)} (task) aborted: ${String((this.caller?.reason as Error)?.message ?? this.caller?.reason ?? 'aborted')}`, {
      serverId: this.serverId,
      phase: 'request',
      cause: this.caller?.reason,
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
