/**
 * Running the built CLI (`dist/cli/main.js`) as a user would, in a sandbox of its own: temp HOME,
 * XDG_CONFIG_HOME, MCPWIRE_CONFIG_PATH and project dir (the cwd), the project trusted before each
 * run (as `mcpwire trust` would). Used by the cli-browse / cli-call / cli-errors / cli-tty tests.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trustProject } from '../../src/host/config/index.js';
import { runCliHere } from './cli-in-process.js';
import { node, root, runCli, type CliRun } from './cli-process.js';

export { cli, node, root } from './cli-process.js';
export const everythingJs = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');
export const everythingEntry = () => ({ transport: 'stdio', command: node, args: [everythingJs, 'stdio'] });

export interface Sandbox {
  dir: string;
  proj: string;
  home: string;
  globalFile: string;
  projectFile: string;
  env: Record<string, string>;
}

const made: string[] = [];
export function cleanup(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

export function sandbox(servers: Record<string, unknown> = {}): Sandbox {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-cli-user-'));
  made.push(dir);
  const proj = path.join(dir, 'proj');
  const home = path.join(dir, 'home');
  fs.mkdirSync(proj, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const globalFile = path.join(dir, 'global', 'config.json');
  const sb: Sandbox = {
    dir,
    proj,
    home,
    globalFile,
    projectFile: path.join(proj, '.mcpwire', 'config.json'),
    env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: globalFile, MCPWIRE_TRACE: '', MCPWIRE_COLUMNS: '' },
  };
  if (Object.keys(servers).length > 0) writeJson(sb.projectFile, { version: 1, mcp: { servers } });
  return sb;
}

export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export type Run = CliRun;

/** Trusts the sandbox's project as it is now (as `mcpwire trust` would), in this process. */
export async function trust(sb: Sandbox): Promise<void> {
  await trustProject(sb.proj, { cwd: sb.proj, env: { ...process.env, ...sb.env }, homedir: sb.home });
}

/** Runs `mcpwire <args>` in the sandbox's project dir; `input` goes to its stdin. */
export async function run(sb: Sandbox, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  await trust(sb);
  return runCliHere(args, { cwd: sb.proj, env: { ...process.env, ...sb.env, ...options.env }, ...(options.input !== undefined ? { input: options.input } : {}) });
}

/** Runs a shell command line (bash) in the sandbox's project dir. */
export function sh(sb: Sandbox, line: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd: sb.proj, env: { ...process.env, ...sb.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}
