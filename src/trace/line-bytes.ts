/**
 * Writing a trace line's head straight into the batch buffer, byte by byte: no string is built
 * for it. In a busy client every string a line allocates is paid again by the young-generation
 * collector, which copies the calls in flight on each scavenge; the numbers of a line (time, id,
 * size, latency) are written as digits, the fields that repeat (server, transport, direction,
 * kind, method) are encoded once and copied.
 *
 * All writers take `(buf, pos, …)` and return the position after what they wrote; the caller has
 * checked there is room (see `MAX_NUMBER_BYTES`).
 */

/** The most bytes `putUint`, `putFixed3` and `putMillis3` write. */
export const MAX_NUMBER_BYTES = 24;

/** Copies `src` (pre-encoded bytes) to `buf` at `pos`. */
export function putBytes(buf: Uint8Array, pos: number, src: Uint8Array): number {
  const n = src.length;
  if (n > 8) {
    buf.set(src, pos);
    return pos + n;
  }
  for (let i = 0; i < n; i++) buf[pos + i] = src[i];
  return pos + n;
}

/** Writes a non-negative safe integer in decimal. */
export function putUint(buf: Uint8Array, pos: number, n: number): number {
  if (n < 10) {
    buf[pos] = 48 + n;
    return pos + 1;
  }
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits++;
  let end = pos + digits;
  for (let v = n; end > pos; v = Math.floor(v / 10)) buf[--end] = 48 + (v % 10);
  return pos + digits;
}

/** `x.toFixed(3)` for a non-negative `x` below 1e12 (as `fixed3` in the tracer). */
export function putFixed3(buf: Uint8Array, pos: number, x: number): number {
  const q = Math.round(x * 1000);
  const whole = Math.floor(q / 1000);
  const frac = q - whole * 1000;
  pos = putUint(buf, pos, whole);
  buf[pos] = 46; // .
  buf[pos + 1] = 48 + Math.floor(frac / 100);
  buf[pos + 2] = 48 + (Math.floor(frac / 10) % 10);
  buf[pos + 3] = 48 + (frac % 10);
  return pos + 4;
}

/** `String(Math.round(x * 1000) / 1000)` for a non-negative `x` below 1e12 (as `millis3`). */
export function putMillis3(buf: Uint8Array, pos: number, x: number): number {
  const q = Math.round(x * 1000);
  const whole = Math.floor(q / 1000);
  let frac = q - whole * 1000;
  pos = putUint(buf, pos, whole);
  if (frac === 0) return pos;
  buf[pos++] = 46; // .
  buf[pos++] = 48 + Math.floor(frac / 100);
  frac %= 100;
  if (frac === 0) return pos;
  buf[pos++] = 48 + Math.floor(frac / 10);
  frac %= 10;
  if (frac === 0) return pos;
  buf[pos++] = 48 + frac;
  return pos;
}

/** Whether `putFixed3` / `putMillis3` write `x` exactly (other values take the string path). */
export function isPlainMillis(x: number): boolean {
  return x >= 0 && x < 1e12;
}

/** Whether `putUint` writes `n` as `String(n)` would. */
export function isPlainUint(n: unknown): n is number {
  return typeof n === 'number' && n >= 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n && !Object.is(n, -0);
}

// The fixed field names of a message line, written as stores of constants: a copy of a few bytes
// (`TypedArray.prototype.set`) costs ~20 ns whatever its length, a byte loop ~2 ns a byte, a
// constant store next to nothing. Each writes exactly its text (`test/trace/trace-fast-path.test.ts`).

/** `{"v":1,"t":` (the format version is one digit: `record.ts`). */
export function putLineStart(buf: Uint8Array, pos: number, version: number): number {
  buf[pos] = 0x7b; // {
  buf[pos + 1] = 0x22; // "
  buf[pos + 2] = 0x76; // v
  buf[pos + 3] = 0x22;
  buf[pos + 4] = 0x3a; // :
  buf[pos + 5] = 48 + version;
  buf[pos + 6] = 0x2c; // ,
  buf[pos + 7] = 0x22;
  buf[pos + 8] = 0x74; // t
  buf[pos + 9] = 0x22;
  buf[pos + 10] = 0x3a;
  return pos + 11;
}

/** `,"bytes":` */
export function putBytesField(buf: Uint8Array, pos: number): number {
  buf[pos] = 0x2c;
  buf[pos + 1] = 0x22;
  buf[pos + 2] = 0x62; // b
  buf[pos + 3] = 0x79; // y
  buf[pos + 4] = 0x74; // t
  buf[pos + 5] = 0x65; // e
  buf[pos + 6] = 0x73; // s
  buf[pos + 7] = 0x22;
  buf[pos + 8] = 0x3a;
  return pos + 9;
}

/** `,"msg":` */
export function putMsgField(buf: Uint8Array, pos: number): number {
  buf[pos] = 0x2c;
  buf[pos + 1] = 0x22;
  buf[pos + 2] = 0x6d; // m
  buf[pos + 3] = 0x73; // s
  buf[pos + 4] = 0x67; // g
  buf[pos + 5] = 0x22;
  buf[pos + 6] = 0x3a;
  return pos + 7;
}

/** `,"latency_ms":` */
export function putLatencyField(buf: Uint8Array, pos: number): number {
  buf[pos] = 0x2c;
  buf[pos + 1] = 0x22;
  buf[pos + 2] = 0x6c; // l
  buf[pos + 3] = 0x61; // a
  buf[pos + 4] = 0x74; // t
  buf[pos + 5] = 0x65; // e
  buf[pos + 6] = 0x6e; // n
  buf[pos + 7] = 0x63; // c
  buf[pos + 8] = 0x79; // y
  buf[pos + 9] = 0x5f; // _
  buf[pos + 10] = 0x6d; // m
  buf[pos + 11] = 0x73; // s
  buf[pos + 12] = 0x22;
  buf[pos + 13] = 0x3a;
  return pos + 14;
}
