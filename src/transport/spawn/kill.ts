/**
 * How a stdio server and everything it started are ended, per platform — a pure function of
 * (platform, pid, environment), so each platform's ladder is tested anywhere.
 *
 * POSIX (Linux, macOS): the server leads its own process group (spawned `detached`), so a signal
 * to `-pid` reaches a launcher and what it started (`npx` → `node`) together: SIGTERM, then SIGKILL.
 *
 * Windows has no process groups and no signals but a hard kill (`child.kill()` is
 * TerminateProcess of that one process: `npx`'s `node` child would live on). The tree is ended by
 * `taskkill /T` on the server's pid — first without `/F` (a polite close request, which a
 * windowed program may honour), then `/T /F`. taskkill is run from `%SystemRoot%\System32` so a
 * PATH entry cannot stand in for it. A tree can only be walked while its root lives: once the
 * server has exited, its orphans cannot be found by pid (Windows reuses pids), so the ladder
 * ends the tree before the server is gone, never after.
 */
import path from 'node:path';
import { envValue } from './env-lookup.js';

/** One rung of the ladder: a signal to a process (group), or a program to run. */
export type KillStep =
  | { kind: 'signal'; /** negative: the process group */ pid: number; signal: NodeJS.Signals }
  | { kind: 'run'; file: string; args: string[] };

/** Which rung: after stdin was closed and waited for (`terminate`), or the last one (`kill`). */
export type KillStrength = 'terminate' | 'kill';

/** The step that ends the server `pid` and its descendants on `platform`. */
export function killStep(platform: NodeJS.Platform, pid: number, strength: KillStrength, env: Readonly<Record<string, string | undefined>> = process.env): KillStep {
  if (platform === 'win32') {
    const args = ['/PID', String(pid), '/T'];
    if (strength === 'kill') args.push('/F');
    return { kind: 'run', file: taskkillPath(env), args };
  }
  return { kind: 'signal', pid: -pid, signal: strength === 'kill' ? 'SIGKILL' : 'SIGTERM' };
}

/** One rung of the close ladder (basic.lifecycle#15), then how long to wait for the exit. */
export type LadderRung =
  | { kind: 'close-stdin'; waitMs: number }
  | { kind: 'end-tree'; strength: KillStrength; /** undefined: the process has no pid (never spawned) */ step: KillStep | undefined; waitMs?: number };

/**
 * The whole shutdown of a server, per platform: close its stdin and wait; end its group or
 * tree politely (SIGTERM / taskkill /T) and wait; then for good (SIGKILL / taskkill /T /F).
 */
export function shutdownLadder(
  platform: NodeJS.Platform,
  pid: number | undefined,
  waits: { stdinCloseWaitMs: number; sigtermWaitMs: number },
  env: Readonly<Record<string, string | undefined>> = process.env,
): LadderRung[] {
  const step = (strength: KillStrength) => (pid === undefined ? undefined : killStep(platform, pid, strength, env));
  return [
    { kind: 'close-stdin', waitMs: waits.stdinCloseWaitMs },
    { kind: 'end-tree', strength: 'terminate', step: step('terminate'), waitMs: waits.sigtermWaitMs },
    { kind: 'end-tree', strength: 'kill', step: step('kill') },
  ];
}

/** The signal a step stands for in events and errors (taskkill /T ≈ SIGTERM, /T /F ≈ SIGKILL). */
export function stepSignal(strength: KillStrength): NodeJS.Signals {
  return strength === 'kill' ? 'SIGKILL' : 'SIGTERM';
}

/**
 * Whether the server's process group is SIGKILLed once the server has exited (so nothing it
 * started outlives it). POSIX only: on Windows the tree of an exited pid cannot be found.
 */
export function killsGroupAfterExit(platform: NodeJS.Platform): boolean {
  return platform !== 'win32';
}

function taskkillPath(env: Readonly<Record<string, string | undefined>>): string {
  return path.win32.join(envValue(env, 'SYSTEMROOT', 'win32') || 'C:\\Windows', 'System32', 'taskkill.exe');
}
