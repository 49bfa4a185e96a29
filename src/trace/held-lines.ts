/**
 * Message lines held to be encoded together. A sequential client sleeps between calls while the
 * server works and wakes with its caches emptied: encoding a line there (the head's bytes, the
 * numbers as digits, the text's UTF-8) ran cold code and touched cold memory once per line. The
 * tracer now keeps what a line needs (its segment, the clock's readings, the numbers, the text:
 * a few stores into preallocated tables, no allocation) and encodes the held lines in one pass,
 * whose code is warm from the second line on, once `HOLD_LINES` are held or `HOLD_CHARS` of text;
 * and before anything else reaches the file's batch (an event or string-path line, another
 * tracer's line of the same file: `append`), before every drain that writes (the periodic flush,
 * `flush()`, `close()`, exit). The bytes are those the line would have had written at once: the
 * same clock readings (`t`, and the wall-clock millisecond `ts` is the text of) taken when the
 * message passed, the same order among every line of the file.
 */
import { isoBytes, isoMs, isoPlain, isoSecond, tick } from './clock.js';
import { BATCH_BYTES, BUF_BYTES, drain, drainSoon, type Held, type SharedDestination } from './file-destination.js';
import { MAX_NUMBER_BYTES, isPlainMillis, isPlainUint, putBytes, putBytesField, putFixed3, putLineStart, putMillis3, putLatencyField, putMsgField, putUint } from './line-bytes.js';
import { TRACE_FORMAT_VERSION } from './record.js';

/**
 * The pre-encoded middle of a message line: `fields` is `,"server":…` up to `,"method":…` (and
 * `,"id":` when the line has an id); it follows `,"ts":"…"`.
 */
export interface Segment {
  fields: Uint8Array;
}

/** Lines held at most before they are encoded (two a sequential call). */
export const HOLD_LINES = 64;
/** UTF-16 units of held text at most before the held lines are encoded (bounds what a turn holds). */
export const HOLD_CHARS = 8 * 1024;
/** `,"ts":"2025-11-25T10:00:00.123Z"`: the only length held lines take (clock.ts's `isoPlain`). */
const TS_BYTES = 32;
/** Room for the fixed parts of a message line's head and its numbers. */
const HEAD_ROOM = 64 + 4 * MAX_NUMBER_BYTES + 32 + TS_BYTES;

type Utf8Buffer = Buffer & { utf8Write(s: string, o: number, l: number): number };
/**
 * Whether this Node's Buffer has its own `utf8Write`: `buf.write(text, offset)` without the
 * argument checks of its wrapper, called in place. The room was checked by the caller.
 */
const HAS_UTF8_WRITE = typeof (Buffer.prototype as { utf8Write?: unknown }).utf8Write === 'function';

/** Numbers held per line, in `nums`: t, the wall-clock ms, id (-1: none), bytes, latency (-1: none). */
const NUMS = 5;

class HeldLines implements Held {
  n = 0;
  /**
   * While `settle` runs: a drain inside it may rotate the file and report an error to the
   * tracer's warning callback, which may trace; such a line takes the string path (`append`,
   * which finds this set) instead of the tables being read.
   */
  settling = false;
  private chars = 0;
  private readonly segs: (Segment | undefined)[] = new Array<Segment | undefined>(HOLD_LINES).fill(undefined);
  private readonly texts: string[] = new Array<string>(HOLD_LINES).fill('');
  private readonly nums = new Float64Array(HOLD_LINES * NUMS);
  /** `,"ts":"…"` of the second `tsSecond`, its millisecond digits rewritten per line. */
  private readonly ts = Buffer.alloc(TS_BYTES);
  private tsSecond = NaN;

  constructor(private readonly shared: SharedDestination) {}

  hold(seg: Segment, t: number, wallMs: number, id: number, bytes: number, latency: number, text: string): void {
    const i = this.n;
    const k = i * NUMS;
    const nums = this.nums;
    nums[k] = t;
    nums[k + 1] = wallMs;
    nums[k + 2] = id;
    nums[k + 3] = bytes;
    nums[k + 4] = latency;
    this.segs[i] = seg;
    this.texts[i] = text;
    this.n = i + 1;
    this.chars += text.length;
    if (this.n === HOLD_LINES || this.chars >= HOLD_CHARS) this.settle();
  }

  /** Encodes the held lines into the batch, in order (a full batch is written soon: `drainSoon`). */
  settle(): void {
    const n = this.n;
    if (n === 0 || this.settling) return;
    this.settling = true;
    try {
      this.encode(n);
    } finally {
      this.n = 0;
      this.chars = 0;
      this.settling = false;
    }
  }

  private encode(n: number): void {
    const shared = this.shared;
    const nums = this.nums;
    const ts = this.ts;
    for (let i = 0; i < n; i++) {
      const k = i * NUMS;
      const seg = this.segs[i]!;
      const text = this.texts[i];
      this.segs[i] = undefined;
      this.texts[i] = '';
      const fields = seg.fields;
      const room = HEAD_ROOM + fields.length + text.length * 3 + 2;
      if (shared.used + room > BUF_BYTES) drain(shared);
      const wall = nums[k + 1];
      const second = Math.floor(wall / 1000);
      if (second !== this.tsSecond) {
        // the clock's text of that second when it still has it (toISOString once a second)
        if (second === isoSecond) ts.set(isoBytes);
        else ts.write(`,"ts":"${new Date(wall).toISOString()}"`, 0, 'latin1');
        this.tsSecond = second;
      }
      const ms = wall - second * 1000;
      ts[TS_BYTES - 5] = 48 + Math.floor(ms / 100);
      ts[TS_BYTES - 4] = 48 + (Math.floor(ms / 10) % 10);
      ts[TS_BYTES - 3] = 48 + (ms % 10);
      const buf = shared.buf;
      let pos = putLineStart(buf, shared.used, TRACE_FORMAT_VERSION);
      pos = putFixed3(buf, pos, nums[k]);
      pos = putBytes(buf, pos, ts);
      pos = putBytes(buf, pos, fields);
      const id = nums[k + 2];
      if (id >= 0) pos = putUint(buf, pos, id);
      pos = putUint(buf, putBytesField(buf, pos), nums[k + 3]);
      const latency = nums[k + 4];
      if (latency >= 0) pos = putMillis3(buf, putLatencyField(buf, pos), latency);
      pos = putMsgField(buf, pos);
      pos += HAS_UTF8_WRITE ? (buf as Utf8Buffer).utf8Write(text, pos, BUF_BYTES - pos) : buf.write(text, pos, BUF_BYTES - pos);
      buf[pos++] = 0x7d; // }
      buf[pos++] = 0x0a; // \n
      shared.used = pos;
    }
    if (shared.used >= BATCH_BYTES) drainSoon(shared);
  }
}

/**
 * Holds a message line whose `msg` is `text` (the message's own JSON text), to be written in the
 * field order of the string path (`TraceWriter.message`): `{"v":1,"t":` and the clock,
 * `,"ts":"…"`, the segment's fields, the numbers as digits, then `text` and `}\n`. The clock is
 * read now. Returns false, having held nothing, when a value needs the string path (a string id,
 * a huge text, a year outside 0000–9999…).
 */
export function holdMessageLine(
  shared: SharedDestination,
  seg: Segment,
  at: number | undefined,
  id: string | number | null | undefined,
  bytes: number,
  latency: number | undefined,
  text: string,
): boolean {
  if (id !== undefined && !isPlainUint(id)) return false;
  if (latency !== undefined && !isPlainMillis(latency)) return false;
  if (HEAD_ROOM + seg.fields.length + text.length * 3 + 2 > BUF_BYTES) return false;
  const t = tick(at);
  if (!isPlainMillis(t) || !isoPlain) return false;
  const held = (shared.held ??= new HeldLines(shared)) as HeldLines;
  if (held.settling) return false;
  held.hold(seg, t, isoMs, id === undefined ? -1 : id, bytes, latency === undefined ? -1 : latency, text);
  return true;
}
