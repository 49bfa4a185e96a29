/**
 * The time base of traces: one per process, so traces of several servers share it. `t` is
 * `performance.now()` since the first tracer started (3 decimals), `ts` the wall clock to the
 * millisecond, rebuilt only when that millisecond changes.
 */
import { TRACE_FORMAT_VERSION } from './record.js';

let traceStart: number | undefined;
/** Wall-clock ms minus monotonic ms, as of the last time the wall-clock text changed. */
let wallOffset = 0;
export let isoMs = -1;
/** Whether `isoBytes` holds the current wall-clock text (false for a year outside 0000–9999: see `lineHead`). */
export let isoPlain = false;
/** The second `isoText` / `isoBytes` were last written in full (toISOString). */
export let isoSecond = NaN;
let isoText = '';
/**
 * `isoText` encoded (`,"ts":"2025-11-25T10:00:00.123Z"`), one buffer changed in place: within a
 * second only its three millisecond digits are written (see `tick`).
 */
export const isoBytes: Buffer = Buffer.alloc(32);
/** Offset of the millisecond digits in `isoBytes`. */
const MS_AT = 27;

/**
 * Reads the monotonic clock: milliseconds since the first tracer started; keeps `isoBytes` (the
 * wall clock to the millisecond) current, rewriting it only when the millisecond derived from
 * the monotonic clock changes, so most lines read one clock. A sequential client crosses a
 * millisecond every line or two: within a second only the millisecond digits are written (no
 * `Date` object, no string, no buffer: that path's code is cold when an idle client wakes and
 * cost more than the rest of its line); the whole text once a second.
 */
export function tick(at?: number): number {
  const now = at ?? performance.now();
  traceStart ??= now;
  if (Math.floor(now + wallOffset) !== isoMs) {
    const wall = Date.now();
    wallOffset = wall - now;
    isoMs = wall;
    const second = Math.floor(wall / 1000);
    if (second === isoSecond) {
      const ms = wall - second * 1000;
      isoBytes[MS_AT] = 48 + Math.floor(ms / 100);
      isoBytes[MS_AT + 1] = 48 + (Math.floor(ms / 10) % 10);
      isoBytes[MS_AT + 2] = 48 + (ms % 10);
      isoText = '';
    } else {
      const text = `,"ts":"${new Date(wall).toISOString()}"`;
      if (text.length === 32) {
        isoBytes.write(text, 0, 'latin1');
        isoSecond = second;
        isoPlain = true;
      } else {
        // a year outside 0000–9999: the string path, the text written in full every time
        isoSecond = NaN;
        isoPlain = false;
      }
      isoText = text;
    }
  }
  return now - traceStart;
}

/** `isoBytes` as text (for the string path), built when asked for. */
function currentIsoText(): string {
  if (isoText === '') isoText = isoBytes.toString('latin1');
  return isoText;
}

/**
 * `{"v":1,"t":…,"ts":"…"`: the head of every line. `t` is `performance.now()` since the first
 * tracer started, 3 decimals; `ts` is the wall clock to the millisecond (see `tick`).
 */
export function lineHead(): string {
  const t = tick();
  return `{"v":${TRACE_FORMAT_VERSION},"t":${fixed3(t)}${currentIsoText()}`;
}

/** `x.toFixed(3)` for the non-negative `t`, by integer arithmetic (toFixed is several times slower). */
function fixed3(x: number): string {
  const q = Math.round(x * 1000);
  if (!(q < 1e15)) return x.toFixed(3);
  const whole = Math.floor(q / 1000);
  const frac = q - whole * 1000;
  return `${whole}${frac < 10 ? '.00' : frac < 100 ? '.0' : '.'}${frac}`;
}

/**
 * `String(Math.round(x * 1000) / 1000)` (`null` when not finite), by integer arithmetic: turning a
 * fractional number into text is the costliest step of a trace line otherwise.
 */
export function millis3(x: number): string {
  if (!Number.isFinite(x)) return 'null';
  const q = Math.round(x * 1000);
  if (!(q >= 0 && q < 1e15)) return String(q / 1000);
  const whole = Math.floor(q / 1000);
  const frac = q - whole * 1000;
  if (frac === 0) return `${whole}`;
  if (frac % 100 === 0) return `${whole}.${frac / 100}`;
  if (frac % 10 === 0) return `${whole}.${frac < 100 ? '0' : ''}${frac / 10}`;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}
