/**
 * The request timeout of a CLI call, kept by the CLI instead of the request engine so that it
 * can wait for a person: while someone answers a server's question on the terminal (an
 * elicitation form, attention.ts) the countdown is paused, and it starts again in full when
 * they are done. Without this, a long form ended mid-entry with "timed out", losing what was
 * typed. A sign of life from a task-augmented call (a status update) restarts it too, as each
 * of its requests had its own timeout before.
 */
import { onAnswering } from './attention.js';

/** Longest timer Node keeps (2^31−1 ms): the engine's own timeout, out of the way of ours. */
export const ENGINE_TIMEOUT_MS = 2_147_483_647;
/** The request timeout a client has when none is given (the engine's DEFAULT_REQUEST_TIMEOUT_MS). */
export const ENGINE_DEFAULT_TIMEOUT_MS = 60_000;

export class CallDeadline {
  private readonly ac = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;
  private paused = false;
  /** True once the deadline passed (the call was aborted for it). */
  expired = false;
  /** Aborts when the deadline passes or `outer` aborts (Ctrl-C). */
  readonly signal: AbortSignal;

  constructor(
    readonly method: string,
    readonly timeoutMs: number,
    outer: AbortSignal,
  ) {
    this.signal = AbortSignal.any([outer, this.ac.signal]);
    this.arm();
    this.unsubscribe = onAnswering((answering) => {
      this.paused = answering;
      if (answering) this.disarm();
      else this.arm();
    });
  }

  /** The call showed a sign of life: the countdown starts again (unless a person is answering). */
  restart(): void {
    if (!this.paused) this.arm();
  }

  /** The text of the timeout, as the engine words it. */
  message(): string {
    return `request "${this.method}" timed out after ${this.timeoutMs} ms`;
  }

  stop(): void {
    this.disarm();
    this.unsubscribe();
  }

  private arm(): void {
    this.disarm();
    if (this.expired || !Number.isFinite(this.timeoutMs)) return;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.ac.abort(new Error(this.message()));
    }, Math.min(this.timeoutMs, ENGINE_TIMEOUT_MS));
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
