/**
 * The server side of the stdio transport (basic.transports): the gateway reads newline-delimited
 * JSON-RPC from its own stdin and writes it to its own stdout, one message per line, nothing else
 * (logs go to stderr). A line that is not JSON is answered with a -32700 error whose id is null,
 * since its id cannot be read; the framer's size bound applies to every line.
 */
import { frame, NdjsonFramer } from '../jsonrpc/framer.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic } from '../transport/types.js';

export interface ServerStdioOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } as const;
const RESOLVED: Promise<void> = Promise.resolve();

/** One upstream client over the process's stdin/stdout. */
export class ServerStdioTransport implements Transport {
  readonly kind = 'stdio';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (diagnostic: TransportDiagnostic) => void;
  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private closed = false;
  private readonly framer: NdjsonFramer;
  /** The lines sent in this tick, not yet written: one write (one syscall) for all of them. */
  private out = '';
  private flushScheduled = false;
  private drainWaiters: Array<() => void> = [];
  private awaitingDrain = false;

  constructor(options: ServerStdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.framer = new NdjsonFramer({
      onMessage: (value, text) => this.onmessage?.(value, undefined, text),
      onDiagnostic: (d) => {
        this.ondiagnostic?.({ code: d.code, message: d.message, ...(d.excerpt !== undefined ? { excerpt: d.excerpt } : {}) });
        if (d.code === 'MCPWIRE_FRAME_MALFORMED') this.write(`${JSON.stringify(PARSE_ERROR)}\n`);
      },
    });
  }

  async start(): Promise<void> {
    this.stdin.on('data', (chunk: Buffer | string) => this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    const end = () => void this.close();
    this.stdin.on('end', end);
    this.stdin.on('close', end);
    this.stdin.on('error', end);
    // The client went away while we wrote: nothing more can be sent.
    this.stdout.on('error', end);
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.resolve();
    const text = options?.serialized !== undefined ? `${options.serialized}\n` : frame(message);
    return this.write(text);
  }

  private write(text: string): Promise<void> {
    if (this.closed) return RESOLVED;
    this.out = this.out === '' ? text : this.out + text;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // A promise job: every answer settled in this turn goes out in the same write.
      void RESOLVED.then(this.flush);
    }
    // Backpressure: while stdout is over its mark, senders wait for 'drain'.
    if (this.awaitingDrain) return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    return RESOLVED;
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const data = this.out;
    if (data === '') return;
    this.out = '';
    if (!this.stdout.write(data) && !this.awaitingDrain) {
      this.awaitingDrain = true;
      this.stdout.once('drain', this.releaseDrain);
    }
  };

  private readonly releaseDrain = (): void => {
    this.awaitingDrain = false;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.releaseDrain();
    this.onclose?.();
  }
}
