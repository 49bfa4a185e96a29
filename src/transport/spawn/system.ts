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
 * Performs `step`, calling `onFailure` when it did not work: the signal could not be sent (the
 * group is gone), or the program could not start or exited non-zero (taskkill found nothing
 * to end, or could not end it). `sync` is for the process 'exit' event, where nothing
 * asynchronous runs any more.
 */
export function runKillStep(step: KillStep, onFailure: () => void = () => {}, sync = false): void {
  if (step.kind === 'signal') {
    try {
      process.kill(step.pid, step.signal);
    } catch {
      onFailure();
    }
    return;
  }
  const options = { stdio: 'ignore' as const, windowsHide: true };
  if (sync) {
    const r = spawnSync(step.file, step.args, { ...options, timeout: SYNC_KILL_TIMEOUT_MS });
    if (r.error !== undefined || r.status !== 0) onFailure();
    return;
  }
  let failed = false;
  const fail = () => {
    if (failed) return;
    failed = true;
    onFailure();
  };
  try {
    const p = spawn(step.file, step.args, options);
    p.once('error', fail);
    p.once('exit', (code) => code !== 0 && fail());
    p.unref();
  } catch {
    fail();
  }
}
