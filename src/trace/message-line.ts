/**
 * A message line written from the message's own JSON text (`TraceWriter.message` decided the text
 * is the line's `msg`), byte by byte into the file's batch buffer (`putMessageLine`), and the lines
 * held back until the current turn of the event loop is over (`HeldLines`).
 *
 * Why held back: in a sequential client a response comes in and the next request goes out in the
 * same turn; building both lines there put ~5 µs between reading the response and writing the
 * request to the server's pipe. Against a server that is still finishing its previous answer that
 * delay is what makes the pipe write find it asleep, and waking a sleeping process on another CPU
 * is charged to the writer's system call (in a virtual machine, a costly inter-processor
 * interrupt): tracing cost several times its lines. What is decided on the message object (the
 * redaction walk, whose result must not depend on what the caller does with the object later) is
 * still done at once; the held line keeps only the text, numbers and its pre-encoded segment, and
 * is written in the check phase of the same turn (`setImmediate`, no extra system call), before
 * any other line of its file (`settle` in file-destination.ts), on every flush and at exit.
 */
import { isoBytes, isoMs, lineHeadAt, millis3, tick } from './clock.js';
import { append, BATCH_BYTES, BUF_BYTES, drain, type SharedDestination } from './file-destination.js';
import { MAX_NUMBER_BYTES, isPlainMillis, isPlainUint, putBytes, putFixed3, putMillis3, putUint } from './line-bytes.js';
import { TRACE_FORMAT_VERSION } from './record.js';

/**
 * The pre-encoded middle of a message line: `fields` is `,"server":…` up to `,"method":…` (and
 * `,"id":` when the line has an id), `fieldsText` the same as text; `prefix` is `,"ts":"…"` +
 * `fields` for the millisecond `ms`, rebuilt when the wall-clock text changes, so a line copies
 * one run of bytes.
 */
export interface Segment {
  fields: Uint8Array;
  fieldsText: string;
  ms: number;
  prefix: Uint8Array;
}

const LINE_START = Buffer.from(`{"v":${TRACE_FORMAT_VERSION},"t":`, 'latin1');
const FIELD_LATENCY = Buffer.from(',"latency_ms":', 'latin1');
const FIELD_BYTES = Buffer.from(',"bytes":', 'latin1');
const FIELD_MSG = Buffer.from(',"msg":', 'latin1');

/** Room for the fixed parts of a message line's head and its numbers (see `putMessageLine`). */
const HEAD_ROOM = 64 + 4 * MAX_NUMBER_BYTES + 32;
/** Room for `,"ts":"…"` beside a segment's fields. */
const TS_ROOM = 40;

type Utf8Writer = (buf: Buffer, text: string, offset: number, length: number) => number;
/**
 * `buf.write(text, offset)` without the argument checks of its wrapper (a measurable share of a
 * trace line): Buffer's own `utf8Write`, where this Node has it. The room was checked by the caller.
 */
const writeUtf8: Utf8Writer =
  typeof (Buffer.prototype as { utf8Write?: unknown }).utf8Write === 'function'
    ? (buf, text, offset, length) => (buf as Buffer & { utf8Write(s: string, o: number, l: number): number }).utf8Write(text, offset, length)
    : (buf, text, offset, length) => buf.write(text, offset, length);

/**
 * Whether the byte path takes this line (else the string path): a numeric id and latency it
 * writes as digits (`-1`: none), a text that fits a batch buffer.
 */
export function fitsBytePath(seg: Segment, id: unknown, latency: number | undefined, text: string): boolean {
  if (id !== undefined && !isPlainUint(id)) return false;
  if (latency !== undefined && !isPlainMillis(latency)) return false;
  return HEAD_ROOM + TS_ROOM + seg.fields.length + text.length * 3 + 2 <= BUF_BYTES;
}

/**
 * A message line whose `msg` is `text`, written straight into the batch in the field order of the
 * string path (`TraceWriter.message`): `{"v":1,"t":` and the clock, the segment's prefix, the
 * numbers as digits (`id` and `latency` -1: none), then `text` and `}\n`. Returns false, having
 * written nothing, when the time is not plain (`fitsBytePath` checked the rest).
 */
export function putMessageLine(shared: SharedDestination, seg: Segment, at: number, id: number, bytes: number, latency: number, text: string): boolean {
  const t = tick(at);
  if (!isPlainMillis(t)) return false;
  if (seg.ms !== isoMs) {
    seg.prefix = Buffer.concat([isoBytes, seg.fields]);
    seg.ms = isoMs;
  }
  const prefix = seg.prefix;
  const room = HEAD_ROOM + prefix.length + text.length * 3 + 2;
  if (room > BUF_BYTES) return false;
  if (shared.used + room > BUF_BYTES) drain(shared);
  const buf = shared.buf;
  let pos = putBytes(buf, shared.used, LINE_START);
  pos = putFixed3(buf, pos, t);
  pos = putBytes(buf, pos, prefix);
  if (id >= 0) pos = putUint(buf, pos, id);
  pos = putUint(buf, putBytes(buf, pos, FIELD_BYTES), bytes);
  if (latency >= 0) pos = putMillis3(buf, putBytes(buf, pos, FIELD_LATENCY), latency);
  pos = putBytes(buf, pos, FIELD_MSG);
  pos += writeUtf8(buf, text, pos, BUF_BYTES - pos);
  buf[pos++] = 0x7d; // }
  buf[pos++] = 0x0a; // \n
  shared.used = pos;
  if (pos >= BATCH_BYTES) drain(shared);
  return true;
}

/** The same line as a string (a time `putMessageLine` does not write as digits). */
function messageLineText(seg: Segment, at: number, id: number, bytes: number, latency: number, text: string): string {
  let head = lineHeadAt(at) + seg.fieldsText;
  if (id >= 0) head += id;
  head += ',"bytes":' + bytes;
  if (latency >= 0) head += ',"latency_ms":' + millis3(latency);
  return `${head},"msg":${text}}\n`;
}

/** Held lines beyond which they are written at once (bounds the texts kept alive). */
const MAX_HELD = 256;

/**
 * The message lines of one file held back until the check phase of the current turn, in order,
 * kept in parallel arrays filled again (nothing allocated per line).
 */
export class HeldLines {
  count = 0;
  private scheduled = false;
  private readonly segs: (Segment | undefined)[] = [];
  private readonly ats: number[] = [];
  private readonly ids: number[] = [];
  private readonly sizes: number[] = [];
  private readonly latencies: number[] = [];
  private readonly texts: string[] = [];

  constructor(private readonly shared: SharedDestination) {}

  /** Holds a line (`fitsBytePath` said yes); `at`: when the message was sent or received. */
  add(seg: Segment, at: number, id: number | undefined, bytes: number, latency: number | undefined, text: string): void {
    const i = this.count++;
    this.segs[i] = seg;
    this.ats[i] = at;
    this.ids[i] = id === undefined ? -1 : id;
    this.sizes[i] = bytes;
    this.latencies[i] = latency === undefined ? -1 : latency;
    this.texts[i] = text;
    if (this.count >= MAX_HELD) this.writeAll();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.onImmediate);
    }
  }

  private readonly onImmediate = (): void => {
    this.scheduled = false;
    if (this.count > 0) this.writeAll();
  };

  /** Writes every held line into the batch, oldest first. */
  writeAll(): void {
    const n = this.count;
    this.count = 0;
    const shared = this.shared;
    for (let i = 0; i < n; i++) {
      const seg = this.segs[i]!;
      if (!putMessageLine(shared, seg, this.ats[i], this.ids[i], this.sizes[i], this.latencies[i], this.texts[i])) {
        append(shared, messageLineText(seg, this.ats[i], this.ids[i], this.sizes[i], this.latencies[i], this.texts[i]));
      }
      this.segs[i] = undefined;
      this.texts[i] = '';
    }
  }
}
