/**
 * In-process transport pair for session-level tests and embedding: what one side sends, the
 * other receives (asynchronously, as over a real pipe). Messages are cloned through JSON so a
 * test cannot accidentally share objects between the two sides.
 */
import { ConnectionClosedError } from '../errors.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic, TransportEvent } from './types.js';

export class MemoryTransport implements Transport {
  readonly kind = 'memory';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;
  peer: MemoryTransport | undefined;
  private closed = false;

  async start(): Promise<void> {}

  send(message: JSONRPCMessage | unknown, options?: SendOptions): Promise<void> {
    if (this.closed || this.peer === undefined) {
      return Promise.reject(new ConnectionClosedError('memory transport is closed'));
    }
    const text = options?.serialized ?? JSON.stringify(message);
    const peer = this.peer;
    queueMicrotask(() => {
      if (!peer.closed) peer.onmessage?.(JSON.parse(text), undefined, text);
    });
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.shut(undefined);
    this.peer?.shut(undefined);
  }

  /** Simulates the peer vanishing with an error. */
  fail(error: Error): void {
    this.shut(error);
  }

  private shut(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(error);
  }
}

/** Two connected in-memory transports: `[client side, server side]`. */
export function createMemoryPair(): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
