/**
 * Which compiler V8 gives WebAssembly in a command's process. undici parses HTTP with llhttp
 * compiled to wasm; V8 compiles it with its baseline compiler (Liftoff) and then optimizes the hot
 * parser function with TurboFan on a worker thread: ~0.25 s of CPU, and a process that is done
 * waits for that compile before it exits (~150 ms after its output). A one-shot command parses a
 * handful of responses: it keeps the baseline code. A command that runs until stopped (a gateway,
 * a relay, a follow) parses many: it keeps the optimizing compile.
 */
import v8 from 'node:v8';

/** Commands that run until stopped. */
export const LONG_RUNNING: ReadonlySet<string> = new Set(['serve', 'tap', 'replay', 'watch', 'log-level', 'app']);

/** Whether `command`'s process keeps WebAssembly on the baseline compiler. */
export function baselineWasm(command: string): boolean {
  return !LONG_RUNNING.has(command);
}

/** Sets V8's WebAssembly tiers for `command`'s process; call before any wasm compiles. */
export function wasmTierFor(command: string): void {
  if (baselineWasm(command)) v8.setFlagsFromString('--liftoff-only');
}
