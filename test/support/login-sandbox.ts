/**
 * A user's machine for CLI tests that log in: a home, a platform config dir, a global config
 * file and a project folder of their own (removed by `cleanup`), and `run`, which runs the CLI
 * there and keeps every output for the test's leak check (no secret may ever be printed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCliHere } from './cli-in-process.js';
import { runCliAnswering, type CliRun } from './cli-process.js';

export interface LoginSandbox {
  dir: string;
  /** The global config file (`MCPWIRE_CONFIG_PATH`). */
  global: string;
  env: Record<string, string>;
  /** The default token file: the platform config dir (XDG_CONFIG_HOME/mcpwire/mcp-auth.json). */
  authFile: string;
}

export interface LoginSandboxes {
  /** A fresh sandbox; `env` adds to (or overrides) its environment. */
  sandbox(env?: Record<string, string>): LoginSandbox;
  /** Runs `mcpwire <args>` in the sandbox's project; `onStderr` may answer on stdin (a login's pasted redirect). */
  run(sb: LoginSandbox, args: string[], onStderr?: (text: string, stdin: NodeJS.WritableStream) => void): Promise<CliRun>;
  /** Every CLI output so far (stdout and stderr), for the leak check. */
  readonly outputs: string[];
  /** A temporary folder removed by `cleanup` (for stores and files a test makes beside the sandboxes). */
  tempDir(prefix: string): string;
  cleanup(): void;
}

export function loginSandboxes(prefix: string): LoginSandboxes {
  const dirs: string[] = [];
  const outputs: string[] = [];
  const tempDir = (p: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), p));
    dirs.push(dir);
    return dir;
  };
  return {
    outputs,
    tempDir,
    sandbox(env = {}) {
      const dir = tempDir(prefix);
      const home = path.join(dir, 'home');
      fs.mkdirSync(path.join(dir, 'proj'), { recursive: true });
      fs.mkdirSync(home, { recursive: true });
      const xdg = path.join(home, '.config');
      const global = path.join(dir, 'global', 'config.json');
      return {
        dir,
        global,
        env: { HOME: home, XDG_CONFIG_HOME: xdg, MCPWIRE_CONFIG_PATH: global, MCPWIRE_TRACE: '', MCPWIRE_NO_BROWSER: '1', ...env },
        authFile: path.join(xdg, 'mcpwire', 'mcp-auth.json'),
      };
    },
    async run(sb, args, onStderr) {
      const where = { cwd: path.join(sb.dir, 'proj'), env: { ...process.env, ...sb.env } };
      // answering on stdin needs the process; a run that only prints is run in this one
      const r = onStderr ? await runCliAnswering(args, { ...where, timeoutMs: 90_000, onStderr }) : await runCliHere(args, where);
      outputs.push(r.stdout + r.stderr);
      return r;
    },
    cleanup() {
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}
