/**
 * Workload identity (SEP-1933, RFC 7523 §2.1): the client is a workload the platform vouches
 * for — a Kubernetes service account, a cloud instance, a CI job — and the platform-issued JWT
 * is the jwt-bearer grant's `assertion`. The token is short-lived and rotated by the platform,
 * so it is read afresh on every use: from a file (a projected token), an environment variable,
 * or the output of a command (argv, never through a shell). Errors name the source, never the
 * value.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { AuthError } from './errors.js';
import type { AssertionSource } from './types.js';

/** Where the assertion comes from: exactly one. */
export type WorkloadAssertionSource = { file: string } | { env: string } | { command: readonly string[] };

/** Options of `workloadAssertion`. */
export interface WorkloadAssertionOptions {
  /** The environment `env` reads (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The command's time limit (default 30 000 ms). */
  timeoutMs?: number;
}

/** A JWT is at most this long here (platform tokens are a few KiB). */
const MAX_ASSERTION_BYTES = 64 * 1024;

/** An AssertionSource that reads the workload's platform-issued JWT from `source` on each use. */
export function workloadAssertion(source: WorkloadAssertionSource, options: WorkloadAssertionOptions = {}): AssertionSource {
  return async (_target, signal) => readJwt(source, 'workload identity token', options, signal);
}

/**
 * Reads a JWT that someone else issues and rotates (a workload's platform token, a user's ID
 * token) from `source` afresh: errors say `what` and the source, never the value.
 */
export async function readJwt(source: WorkloadAssertionSource, what: string, options: WorkloadAssertionOptions = {}, signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted();
  const value = (await read(source, what, options, signal)).trim();
  if (value === '') throw new AuthError(`the ${what} from ${describe(source)} is empty`, 'MCPWIRE_AUTH_ASSERTION');
  if (value.split('.').length !== 3) throw new AuthError(`the ${what} from ${describe(source)} is not a JWT`, 'MCPWIRE_AUTH_ASSERTION');
  return value;
}

function describe(source: WorkloadAssertionSource): string {
  if ('file' in source) return `file ${source.file}`;
  if ('env' in source) return `environment variable ${source.env}`;
  return `command ${source.command[0] ?? ''}`;
}

async function read(source: WorkloadAssertionSource, what: string, options: WorkloadAssertionOptions, signal?: AbortSignal): Promise<string> {
  if ('file' in source) {
    try {
      const text = await readFile(source.file, { encoding: 'utf8', ...(signal ? { signal } : {}) });
      if (text.length > MAX_ASSERTION_BYTES) throw new AuthError(`the ${what} file ${source.file} is larger than ${MAX_ASSERTION_BYTES} bytes`, 'MCPWIRE_AUTH_ASSERTION');
      return text;
    } catch (err) {
      if (err instanceof AuthError) throw err;
      throw new AuthError(`cannot read the ${what} file ${source.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'MCPWIRE_AUTH_ASSERTION');
    }
  }
  if ('env' in source) {
    const v = (options.env ?? process.env)[source.env];
    if (v === undefined) throw new AuthError(`the environment variable ${source.env} (${what}) is not set`, 'MCPWIRE_AUTH_ASSERTION');
    return v;
  }
  return run(source.command, what, options.timeoutMs ?? 30_000, signal);
}

function run(argv: readonly string[], what: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new AuthError(`the ${what} command is empty`, 'MCPWIRE_AUTH_CONFIG'));
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: MAX_ASSERTION_BYTES, windowsHide: true, ...(signal ? { signal } : {}) }, (err, stdout) => {
      if (err) {
        // The command's own output may hold a token: only its exit is reported.
        const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
        const how = e.killed ? 'timed out or was stopped' : typeof e.code === 'number' ? `exited with ${e.code}` : `failed (${e.code ?? 'error'})`;
        reject(new AuthError(`the ${what} command ${file} ${how}`, 'MCPWIRE_AUTH_ASSERTION'));
        return;
      }
      resolve(String(stdout));
    });
  });
}
