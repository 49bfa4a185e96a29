/**
 * How a stdio server's `command` is started on each platform, as a pure function of
 * (platform, environment, file system) so that the Windows rules are tested on any machine.
 *
 * POSIX (Linux, macOS): unchanged — the command and its arguments go to `spawn` as given (the
 * kernel finds the program on PATH and reads a `#!` line itself).
 *
 * Windows, as cross-spawn does it (which the official MCP SDK and most hosts use):
 * - the command is looked up on the child's PATH with each PATHEXT extension (`npx` →
 *   `…\nodejs\npx.cmd`); a name with a slash or backslash is only looked up where it points;
 * - a file found without a PATHEXT extension that starts with `#!` runs its interpreter (`#!/usr/bin/env node`
 *   → `node file`);
 * - `.exe`/`.com` programs are spawned directly (no shell);
 * - anything else (`.cmd`, `.bat`) runs as `cmd.exe /d /s /c "<line>"` with arguments passed
 *   verbatim: Node refuses to spawn a batch file without a shell, and the shell must not see an
 *   argument it could read as a second command. Every argument is quoted for the C runtime and
 *   every cmd.exe metacharacter `^`-escaped twice (`escapeCmdArgument`): cmd.exe's parse of the
 *   `/c` line removes one level, and a batch file parses each line that uses an argument again
 *   after putting it in — `%*` (npm's shims, `npx.cmd`), `%1`…`%9`, `%~1` alike, wherever in the
 *   file — so escaped once, `a"&calc` would start a second command there. Every batch file is
 *   escaped as re-parsing, whatever its text says.
 *
 * An argument with a line break (or NUL) cannot reach a batch file intact: refused (EINVAL).
 *
 * Deliberately unlike cross-spawn: the current directory is not searched before PATH (a project
 * directory could plant an `npx.cmd`); the cmd.exe line names the file found, not the bare
 * command (cmd.exe's own search also starts in the current directory); and a command that is
 * not found is spawned as given, so Node reports ENOENT ("command not found") instead of cmd.exe
 * running something else.
 */
import path from 'node:path';
import { envValue } from './env-lookup.js';

/** What resolution reads from the file system (injected in tests). */
export interface CommandFs {
  /** Whether `file` exists and is a regular file. */
  isFile(file: string): boolean;
  /** The first bytes of `file` as latin1 text (for `#!`), or undefined. */
  head(file: string, bytes: number): string | undefined;
}

export interface CommandContext {
  platform: NodeJS.Platform;
  /** The child's environment (its PATH, PATHEXT and ComSpec are the ones used). */
  env: Readonly<Record<string, string | undefined>>;
  /** The child's working directory (relative commands with a slash resolve against it). */
  cwd: string;
  fs: CommandFs;
}

/** What to hand to `spawn`. */
export interface SpawnPlan {
  file: string;
  args: string[];
  /** Arguments already quoted for the target (cmd.exe): Node must not quote them again. */
  windowsVerbatimArguments: boolean;
  /** The program file the command resolved to, when it was looked up (Windows). */
  resolved?: string;
}

const EXECUTABLE = /\.(?:com|exe)$/i;
/** cmd.exe metacharacters (cross-spawn's set): escaped with `^` outside and inside quotes alike. */
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/** The spawn call for `command args` on `ctx.platform`. */
export function planSpawn(command: string, args: readonly string[], ctx: CommandContext): SpawnPlan {
  if (ctx.platform !== 'win32') return { file: command, args: [...args], windowsVerbatimArguments: false };
  const found = resolveWindowsCommand(command, args, ctx);
  if (found === undefined) return { file: command, args: [...args], windowsVerbatimArguments: false };
  if (EXECUTABLE.test(found.file)) return { file: found.file, args: found.args, windowsVerbatimArguments: false, resolved: found.file };
  // cmd.exe ends a command at a line break: such an argument would be cut (and the rest dropped).
  if (found.args.some((a) => /[\r\n\0]/.test(a))) {
    throw Object.assign(new Error(`an argument contains a line break or NUL, which cmd.exe cannot pass to "${found.file}"`), { code: 'EINVAL' });
  }
  const line = [escapeCmdCommand(path.win32.normalize(found.file)), ...found.args.map((a) => escapeCmdArgument(a, true))].join(' ');
  return { file: comspec(ctx.env), args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true, resolved: found.file };
}

/** The program file and arguments after PATH/PATHEXT lookup and `#!` detection, or undefined. */
function resolveWindowsCommand(command: string, args: readonly string[], ctx: CommandContext): { file: string; args: string[] } | undefined {
  const file = findOnPath(command, ctx);
  if (file === undefined) return undefined;
  const shebang = hasPathExt(file, ctx) ? undefined : readShebang(file, ctx.fs);
  if (shebang === undefined) return { file, args: [...args] };
  const interpreter = findOnPath(shebang.program, ctx);
  if (interpreter === undefined) return undefined;
  return { file: interpreter, args: [...(shebang.arg !== undefined ? [shebang.arg] : []), file, ...args] };
}

/** PATHEXT of `env`, upper-cased, default `.COM;.EXE;.BAT;.CMD`. */
export function pathExtensions(env: CommandContext['env']): string[] {
  const raw = envValue(env, 'PATHEXT', 'win32') || '.COM;.EXE;.BAT;.CMD';
  return raw.split(';').map((e) => e.trim()).filter((e) => e.startsWith('.'));
}

function hasPathExt(file: string, ctx: CommandContext): boolean {
  const ext = path.win32.extname(file).toUpperCase();
  return ext !== '' && pathExtensions(ctx.env).some((e) => e.toUpperCase() === ext);
}

/**
 * The file `command` names on Windows: with each PATHEXT extension in turn (the name as given
 * first when it already has an extension), in each PATH directory in order — or only where it
 * points when it contains a slash, backslash or drive. Then, as cross-spawn's second attempt,
 * the bare name (a `#!` script). undefined when nothing matches.
 */
export function findOnPath(command: string, ctx: CommandContext): string | undefined {
  if (command === '') return undefined;
  const exts = pathExtensions(ctx.env);
  const withExt = path.win32.extname(command) !== '' ? ['', ...exts] : exts;
  const dirs = /[\\/]|^[a-z]:/i.test(command) ? [undefined] : pathDirectories(ctx.env);
  for (const suffixes of [withExt, ['']]) {
    for (const dir of dirs) {
      const base = dir === undefined ? path.win32.resolve(ctx.cwd, command) : path.win32.join(dir, command);
      for (const ext of suffixes) if (ctx.fs.isFile(base + ext)) return base + ext;
    }
  }
  return undefined;
}

/** PATH's absolute directories (entries may be quoted; relative entries are skipped). */
function pathDirectories(env: CommandContext['env']): string[] {
  const raw = envValue(env, 'PATH', 'win32') ?? '';
  return raw
    .split(';')
    .map((d) => d.trim().replace(/^"(.*)"$/, '$1'))
    .filter((d) => d !== '' && path.win32.isAbsolute(d));
}

/** `#!/usr/bin/env node` → node; `#!/bin/sh -e` → sh with `-e` (cross-spawn's reading). */
export function readShebang(file: string, fs: CommandFs): { program: string; arg?: string } | undefined {
  const head = fs.head(file, 150);
  const m = head?.match(/^#! ?([^\r\n]*)/);
  if (!m) return undefined;
  const [where, arg] = m[1].trim().split(' ');
  const binary = where.split('/').pop() ?? '';
  if (binary === '') return undefined;
  if (binary === 'env') return arg ? { program: arg } : undefined;
  return arg ? { program: binary, arg } : { program: binary };
}

/** cmd.exe itself: ComSpec, else `%SystemRoot%\System32\cmd.exe`. */
function comspec(env: CommandContext['env']): string {
  const explicit = envValue(env, 'COMSPEC', 'win32');
  if (explicit) return explicit;
  return path.win32.join(envValue(env, 'SYSTEMROOT', 'win32') || 'C:\\Windows', 'System32', 'cmd.exe');
}

/** The program path on a cmd.exe line: every metacharacter (spaces too) `^`-escaped. */
export function escapeCmdCommand(command: string): string {
  return command.replace(CMD_META, '^$1');
}

/**
 * One argument on a cmd.exe line: quoted for the C runtime's argv parser (backslashes before a
 * quote or the end doubled, `"` as `\"`), then every cmd.exe metacharacter `^`-escaped — so cmd
 * sees no quote, operator or `%VAR%` of its own — twice for a line that is parsed twice.
 */
export function escapeCmdArgument(arg: string, doubleEscape: boolean): string {
  let s = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  s = `"${s}"`.replace(CMD_META, '^$1');
  return doubleEscape ? s.replace(CMD_META, '^$1') : s;
}
