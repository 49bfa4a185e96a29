/**
 * What a test file can change for the files that run after it in the same worker (the `shared`
 * project of vitest.config.ts runs file after file in one process): fake timers, `process.env`,
 * process-level listeners (but 'exit' and signals), the exit code, the working directory, the umask, globals.
 * `processState()` reads it; `changed(before, after)` names what differs. The shared project's
 * setup file (shared-guard.ts) fails a file that leaves any of it changed, so a file that sets
 * one of these and restores it in afterEach/afterAll can share a worker.
 */
import { vi } from 'vitest';

export interface ProcessState {
  fakeTimers: boolean;
  env: Record<string, string | undefined>;
  listeners: Record<string, number>;
  exitCode: string | number | null | undefined;
  cwd: string;
  umask: number;
  globals: string[];
}

export function processState(): ProcessState {
  const listeners: Record<string, number> = {};
  for (const e of process.eventNames()) if (typeof e === 'string') listeners[e] = process.listenerCount(e);
  const umask = process.umask(0o022);
  process.umask(umask);
  return {
    fakeTimers: vi.isFakeTimers(),
    env: { ...process.env },
    listeners,
    exitCode: process.exitCode,
    cwd: process.cwd(),
    umask,
    globals: Object.getOwnPropertyNames(globalThis),
  };
}

const ONLY_AT_THE_END = /^(?:exit|SIG[A-Z0-9]+)$/;

/** What differs between two readings, one line each (empty when nothing does). */
export function changed(before: ProcessState, after: ProcessState): string[] {
  const out: string[] = [];
  if (after.fakeTimers !== before.fakeTimers) out.push(`fake timers ${after.fakeTimers ? 'left on' : 'turned off'}`);
  for (const k of new Set([...Object.keys(before.env), ...Object.keys(after.env)])) {
    if (before.env[k] !== after.env[k]) out.push(`process.env.${k} ${k in after.env ? (k in before.env ? 'changed' : 'added') : 'deleted'}`);
  }
  for (const e of new Set([...Object.keys(before.listeners), ...Object.keys(after.listeners)])) {
    // 'exit' and signal listeners run only when the process ends or is signalled, so they change
    // nothing a later file's tests see; modules install them once per process on first use
    // (signal-exit's set of signals, the stdio transport's exit hooks), whichever file that is.
    if (ONLY_AT_THE_END.test(e)) continue;
    const [b, a] = [before.listeners[e] ?? 0, after.listeners[e] ?? 0];
    if (a !== b) out.push(`process '${e}' listeners ${b} -> ${a}`);
  }
  if (after.exitCode !== before.exitCode) out.push(`process.exitCode ${String(before.exitCode)} -> ${String(after.exitCode)}`);
  if (after.cwd !== before.cwd) out.push(`cwd ${before.cwd} -> ${after.cwd}`);
  if (after.umask !== before.umask) out.push(`umask ${before.umask.toString(8)} -> ${after.umask.toString(8)}`);
  // A package may install its own `__`-named global the first time any file imports it (zod:
  // __zod_globalConfig, __zod_globalRegistry); that is the package's, not the file's.
  const had = new Set(before.globals);
  for (const g of after.globals) if (!had.has(g) && !g.startsWith('__')) out.push(`globalThis.${g} added`);
  const has = new Set(after.globals);
  for (const g of before.globals) if (!has.has(g)) out.push(`globalThis.${g} deleted`);
  return out;
}
