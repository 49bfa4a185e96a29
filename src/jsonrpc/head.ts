/**
 * Reads the request id from the start of a line that could not be parsed whole (too large, or
 * malformed further on): `{"jsonrpc":"2.0","id":7,"result":…` is recognisably the response to
 * request 7, so the protocol layer can fail that request at once instead of letting it wait for
 * its timeout and then cancel a request the server did answer (basic.utilities.cancellation#1).
 *
 * Bounded: only the first `HEAD_BYTES` bytes are looked at, and only top-level members with
 * primitive values are stepped over. The id is reported only when the object is a response: an
 * `id` member comes before `result`/`error`, and no `method` before them.
 */
import type { RequestId } from './types.js';

/** How much of a line's start is scanned for its id. */
export const HEAD_BYTES = 512;

/** The id of the response whose text starts with `head`, or undefined when it cannot be told. */
export function responseIdFromHead(head: string): RequestId | undefined {
  let i = skipWs(head, head.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (head.charCodeAt(i) !== 0x7b /* { */) return undefined;
  i++;
  let id: RequestId | undefined;
  for (;;) {
    i = skipWs(head, i);
    const keyEnd = stringEnd(head, i);
    if (keyEnd < 0) return undefined;
    const key = head.slice(i + 1, keyEnd - 1);
    // An escaped key (`"i\u0064"`) may name `id`, `result` or `method` in disguise: not readable.
    if (key.indexOf('\\') !== -1) return undefined;
    i = skipWs(head, keyEnd);
    if (head.charCodeAt(i) !== 0x3a /* : */) return undefined;
    i = skipWs(head, i + 1);
    if (key === 'result' || key === 'error') return id;
    if (key === 'method' || key === 'params') return undefined;
    const end = primitiveEnd(head, i);
    if (end < 0) return undefined;
    if (key === 'id') {
      id = readId(head.slice(i, end));
      if (id === undefined) return undefined;
    }
    i = skipWs(head, end);
    if (head.charCodeAt(i) !== 0x2c /* , */) return undefined;
    i++;
  }
}

function readId(token: string): RequestId | undefined {
  let v: unknown;
  try {
    v = JSON.parse(token);
  } catch {
    return undefined;
  }
  if (typeof v === 'string') return v;
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** Index just past the JSON string starting at `i`, or -1 (not a string, or cut off). */
function stringEnd(s: string, i: number): number {
  if (s.charCodeAt(i) !== 0x22 /* " */) return -1;
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** Index just past the string/number/literal starting at `i`; -1 for objects, arrays, cut-offs. */
function primitiveEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return stringEnd(s, i);
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    // number characters and the letters of true/false/null
    if ((d >= 0x30 && d <= 0x39) || d === 0x2d || d === 0x2b || d === 0x2e || (d >= 0x61 && d <= 0x7a) || d === 0x45) j++;
    else break;
  }
  // at the end of the head the token may be cut off: not readable
  return j === i || j >= s.length ? -1 : j;
}
