/**
 * Reads one `text/event-stream` body with eventsource-parser (bounded buffer) and reports how
 * it ended. A thin adapter: the parser does the SSE grammar, this file does bytes → text
 * (multibyte-safe), the size cap and the end/error bookkeeping.
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { BodyReadable } from './http-common.js';

export type { EventSourceMessage };

export interface SseCallbacks {
  onEvent(event: EventSourceMessage): void;
  /** The server's `retry:` field (basic.transports#23): milliseconds to wait before reconnecting. */
  onRetry(ms: number): void;
  /** A malformed line or field: reported, the stream goes on. */
  onProblem(code: string, message: string): void;
}

/** How a stream ended: cleanly (`end`), by an error (network, idle timeout, abort), or oversized. */
export type SseEnd = { kind: 'end' } | { kind: 'error'; error: Error } | { kind: 'too-large'; limit: number };

/**
 * Feeds `body` to an SSE parser until it ends. Never rejects: the caller decides whether an
 * ended stream is finished, resumable, or a failure.
 */
export function readSse(body: BodyReadable, maxEventChars: number, cb: SseCallbacks): Promise<SseEnd> {
  return new Promise<SseEnd>((resolve) => {
    let ended: SseEnd | undefined;
    const finish = (e: SseEnd): void => {
      if (ended !== undefined) return;
      ended = e;
      resolve(e);
    };
    const parser = createParser({
      maxBufferSize: maxEventChars,
      onEvent: (ev) => {
        if (ended !== undefined) return;
        // The parser checks its buffer between chunks only: an event that arrives whole in one
        // chunk is held to the same cap here, so the limit does not depend on the chunking.
        if (ev.data.length > maxEventChars) {
          finish({ kind: 'too-large', limit: maxEventChars });
          body.destroy();
          return;
        }
        cb.onEvent(ev);
      },
      onRetry: (ms) => cb.onRetry(ms),
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') {
          finish({ kind: 'too-large', limit: maxEventChars });
          body.destroy();
        } else if (err.type === 'invalid-retry') {
          cb.onProblem('MCPWIRE_SSE_BAD_RETRY', 'ignored a non-numeric SSE retry field');
        }
        // Unknown fields are legal SSE (ignored by the standard): nothing to report.
      },
    });
    // undici's body ignores setEncoding: decode here, keeping split multibyte characters whole.
    const decoder = new StringDecoder('utf8');
    let first = true;
    /** The text fed so far ends with a CR, which the parser holds (a LF may follow). */
    let endsWithCR = false;
    body.on('data', (chunk: Buffer) => {
      if (ended !== undefined) return;
      try {
        let text = decoder.write(chunk);
        if (first && text.length > 0) {
          // WHATWG SSE: one leading U+FEFF of the stream is ignored (the parser would read it
          // as part of the first field name).
          first = false;
          if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        }
        if (text.length > 0) endsWithCR = text.charCodeAt(text.length - 1) === 0x0d;
        parser.feed(text);
      } catch (error) {
        finish({ kind: 'error', error: error as Error });
        body.destroy();
      }
    });
    body.once('end', () => {
      // A CR at the very end is a whole line ending (no LF can follow now): without this the
      // parser never sees the blank line that completes the last event, and drops it.
      if (ended === undefined && endsWithCR) {
        try {
          parser.feed('\n');
        } catch {
          /* reported as the end below */
        }
      }
      finish({ kind: 'end' });
    });
    body.once('error', (error: Error) => finish({ kind: 'error', error }));
    body.once('close', () => finish({ kind: 'error', error: new Error('stream closed') }));
  });
}
