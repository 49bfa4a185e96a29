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
