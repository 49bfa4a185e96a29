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
let isoText = '';
/** `isoText` encoded. */
export let isoBytes: Uint8Array = new Uint8Array(0);

/**
 * Reads the monotonic clock: milliseconds since the first tracer started; keeps `isoText` (the
 * wall clock to the millisecond) current, rebuilding it (from `Date.now()`) only when the
 * millisecond derived from the monotonic clock changes, so most lines read one clock.
 */
export function tick(at?: number): number {
  const now = at ?? performance.now();
  traceStart ??= now;
  if (Math.floor(now + wallOffset) !== isoMs) {
    const wall = Date.now();
    wallOffset = wall - now;
    isoMs = wall;
    isoText = `,"ts":"${new Date(wall).toISOString()}"`;
    isoBytes = Buffer.from(isoText, 'latin1');
  }
  return now - traceStart;
}

/**
 * `{"v":1,"t":…,"ts":"…"`: the head of every line. `t` is `performance.now()` since the first
 * tracer started, 3 decimals; `ts` is the wall clock to the millisecond (see `tick`).
 */
export function lineHead(): string {
  const t = tick();
  return `{"v":${TRACE_FORMAT_VERSION},"t":${fixed3(t)}${isoText}`;
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
