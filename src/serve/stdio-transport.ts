/**
 * The server side of the stdio transport (basic.transports): the gateway reads newline-delimited
 * JSON-RPC from its own stdin and writes it to its own stdout, one message per line, nothing else
 * (logs go to stderr). A line that is not JSON is answered with a -32700 error whose id is null,
 * since its id cannot be read; the framer's size bound applies to every line.
 */
import { NdjsonFramer } from '../jsonrpc/framer.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import { LineWriter } from '../transport/line-writer.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic } from '../transport/types.js';

export interface ServerStdioOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } as const;

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
  /** The answers of one tick in one write to stdout (line-writer.ts). */
  private readonly writer: LineWriter;

  constructor(options: ServerStdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.writer = new LineWriter(this.stdout);
    this.framer = new NdjsonFramer({
      onMessage: (value, text) => this.onmessage?.(value, undefined, text),
      onDiagnostic: (d) => {
        this.ondiagnostic?.({ code: d.code, message: d.message, ...(d.excerpt !== undefined ? { excerpt: d.excerpt } : {}) });
        if (d.code === 'MCPWIRE_FRAME_MALFORMED') void this.writer.send(PARSE_ERROR);
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

  /** Every answer settled in this turn goes out in the same write; while stdout is over its mark, senders wait for 'drain'. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.writer.send(message, options?.serialized);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writer.end();
    this.onclose?.();
  }
}
