/**
 * The built CLI (`dist/cli/main.js`; `npm run build` first) as a child process, and the polling
 * the CLI tests do on processes it leaves or must not leave behind. Used by the cli-* and
 * check-* tests; test/support/cli-user.ts adds a user's sandbox (HOME, config, trust) on top.
 */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const cli = path.join(root, 'dist/cli/main.js');
export const node = process.execPath;

/** What a run may write on stdout or stderr by default (a process past it is killed, an in-process run fails). */
export const MAX_BUFFER = 64 * 1024 * 1024;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Default: the repository root. */
  cwd?: string;
  /** The whole environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed (default: stdin closed at once). */
  input?: string;
  /** Default 60 s: the child is killed after it. */
  timeoutMs?: number;
  /** Default MAX_BUFFER (64 MiB) of stdout or stderr. */
  maxBuffer?: number;
}

/** Runs `mcpwire <args>` and resolves with its exit code and output (never rejects). */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      node,
      [cli, ...args],
      { cwd: options.cwd ?? root, env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: options.maxBuffer ?? MAX_BUFFER },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input);
  });
}

/**
 * Runs `mcpwire <args>` with stdin open while `onStderr` is given: it sees all of stderr so far
 * at each chunk and may answer on stdin (a login's pasted redirect); without it stdin is closed
 * at once. Killed after `timeoutMs` (default 60 s); rejects only when the process cannot start.
 */
export function runCliAnswering(
  args: string[],
  options: Omit<CliOptions, 'input' | 'maxBuffer'> & { onStderr?: (stderr: string, stdin: NodeJS.WritableStream) => void } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, ...args], { cwd: options.cwd ?? root, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      options.onStderr?.(stderr, child.stdin);
    });
    if (!options.onStderr) child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Whether process `pid` exists (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `cond` every 50 ms for up to `ms`; resolves with its last value. */
export async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (cond()) return true;
  return cond();
}

/** SIGKILL to each pid still alive (a test's leftovers, whatever it concluded). */
export function killAll(pids: number[]): void {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
}
