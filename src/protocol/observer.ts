/**
 * The tap through which tracing (src/trace) and strict checking see every message and event.
 * When no observer is set, the connection pays one `undefined` check per message and nothing else.
 */
import type { MessageKind } from '../jsonrpc/types.js';

export type Direction = 'in' | 'out';

export interface MessageInfo {
  kind: MessageKind;
  method?: string;
  id?: string | number | null;
  /** For results/errors coming in: milliseconds since the request they answer was sent. */
  latencyMs?: number;
  /** For results/errors coming in: the method of the request they answer. */
  requestMethod?: string;
  /**
   * The message's JSON text when one exists already: what the transport writes (given to it as
   * `SendOptions.serialized`) or the text it read and parsed. A tracer may write it instead of
   * serializing the message again, after checking the parsed message (the text of an incoming
   * message is the peer's: spacing, escapes and repeated keys are possible, which the tracer must
   * detect).
   */
  text?: string;
  /** `performance.now()` when the message was sent or received, when the caller read the clock anyway. */
  at?: number;
}

export interface ObservedEvent {
  /** e.g. `lifecycle`, `transport`, `timeout`, `cancel`, `diagnostic`, `late-response`. */
  type: string;
  [key: string]: unknown;
}

export interface ProtocolObserver {
  message(direction: Direction, message: unknown, info: MessageInfo): void;
  event(event: ObservedEvent): void;
}
