/**
 * The client's health check (basic.utilities.ping#2/#3/#6/#7): a `ping` every `everyMs` while
 * the client is ready, one at a time; a ping unanswered within its timeout is a connection
 * failure, reported and handed to `lost`.
 */
import { ConnectionClosedError, TimeoutError } from '../errors.js';

export interface KeepaliveOptions {
  serverId: string;
  /** Interval in ms; undefined or ≤ 0: no pings. */
  everyMs: number | undefined;
  /** Default: the interval, at most 10 s. */
  timeoutMs: number | undefined;
  ready(): boolean;
  ping(timeoutMs: number): Promise<void>;
  diagnostic(code: string, message: string): void;
  /** The connection is considered lost (fail it with `reason`). */
  lost(reason: ConnectionClosedError): void;
}

export class Keepalive {
  private timer: NodeJS.Timeout | undefined;
  private pinging = false;

  constructor(private readonly o: KeepaliveOptions) {}

  start(): void {
    const every = this.o.everyMs;
    if (every === undefined || every <= 0 || this.timer !== undefined) return;
    const timeoutMs = this.o.timeoutMs ?? Math.min(every, 10_000);
    this.timer = setInterval(() => this.beat(timeoutMs), every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private beat(timeoutMs: number): void {
    if (this.pinging || !this.o.ready()) return;
    this.pinging = true;
    this.o.ping(timeoutMs).then(
      () => {
        this.pinging = false;
      },
      (err: unknown) => {
        this.pinging = false;
        if (!(err instanceof TimeoutError)) return; // closed meanwhile: nothing to add
        // basic.utilities.ping#6/#7: a ping timeout is a connection failure; say so.
        const reason = new ConnectionClosedError(`server did not answer ping within ${timeoutMs} ms; connection considered lost`, {
          serverId: this.o.serverId,
          phase: 'request',
          cause: err,
        });
        this.o.diagnostic('MCPWIRE_PING_TIMEOUT', reason.message);
        this.o.lost(reason);
      },
    );
  }
}
