/**
 * The real file system and process table behind the pure rules of command.ts and kill.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { planSpawn, type CommandFs, type SpawnPlan } from './command.js';
import type { KillStep } from './kill.js';

/** How long the synchronous 'exit' hook lets taskkill run before giving up on it. */
const SYNC_KILL_TIMEOUT_MS = 5000;

export const nodeCommandFs: CommandFs = {
  isFile(file) {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
  head(file, bytes) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r');
      const buf = Buffer.alloc(bytes);
      const n = fs.readSync(fd, buf, 0, bytes, 0);
      return buf.subarray(0, n).toString('latin1');
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  },
};

/** The spawn call for a server's command on this machine (command.ts; may throw EINVAL on Windows). */
export function localSpawnPlan(command: string, args: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd?: string): SpawnPlan {
  return planSpawn(command, args, { platform: process.platform, env, cwd: cwd ?? process.cwd(), fs: nodeCommandFs });
}

/**
 * Performs `step`; false when the target is already gone (or the step could not run).
 * `sync` is for the process 'exit' event, where nothing asynchronous runs any more.
 */
export function runKillStep(step: KillStep, sync = false): boolean {
  if (step.kind === 'signal') {
    try {
      process.kill(step.pid, step.signal);
      return true;
    } catch {
      return false;
    }
  }
  const options = { stdio: 'ignore' as const, windowsHide: true };
  if (sync) return spawnSync(step.file, step.args, { ...options, timeout: SYNC_KILL_TIMEOUT_MS }).error === undefined;
  try {
    const p = spawn(step.file, step.args, options);
    p.once('error', () => {});
    p.unref();
    return true;
  } catch {
    return false;
  }
}
