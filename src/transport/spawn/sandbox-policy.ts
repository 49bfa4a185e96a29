/**
 * What a sandboxed stdio server may touch, resolved from its config: the directories it may
 * read (the system's, its own install/package directory, what the entry grants), those it may
 * write, its network (none, or host names reached through the host's filtering proxy) and the
 * environment names it gets. A pure function of (spec, command, platform, a small fs view), so
 * each platform's grants are tested anywhere; `bwrap.ts` and `seatbelt.ts` turn a policy into
 * the wrapper's arguments.
 */
import path from 'node:path';
import { envValue } from './env-lookup.js';

/** The `sandbox` of a stdio server's config (camelCase, normalized). Every list is optional. */
export interface SandboxSpec {
  filesystem?: { read?: string[]; write?: string[] };
  /** `none` (default): no route out; `{ allow }`: these host names (`*.example.com`, `host:port`) through the host's proxy. */
  network?: 'none' | { allow: string[] };
  /** Names of this process's environment variables the server gets (beside the entry's own `env`). */
  env?: string[];
}

/** Something the sandbox refused that the host could see (the proxy's refusals). */
export interface SandboxDenial {
  kind: 'network';
  /** The host name (or address) the server asked for, and its port. */
  host: string;
  port: number;
  reason: string;
  /** Epoch ms. */
  at: number;
}

/** The transport's sandbox option: the spec, and who hears of refusals. */
export interface SandboxOptions extends SandboxSpec {
  onDenied?: (denial: SandboxDenial) => void;
}

/** A resolved policy: absolute paths, defaults filled in. */
export interface SandboxPolicy {
  /** Read-only: system directories, the server's install directory, `filesystem.read`. */
  read: string[];
  /** Read-write: `filesystem.write`. */
  write: string[];
  network: 'none' | { allow: string[] };
  /** Names passed through from the host's environment. */
  env: string[];
}

/** What the resolution needs from the file system (real paths, and whether a marker file exists). */
export interface PolicyFs {
  realpath(p: string): string | undefined;
  isFile(p: string): boolean;
}

/** Linux: read-only system directories (missing ones are skipped by `--ro-bind-try`). */
export const LINUX_SYSTEM_READ: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** macOS: the system's directories and the usual package prefixes (Homebrew). */
export const DARWIN_SYSTEM_READ: readonly string[] = ['/usr', '/bin', '/sbin', '/System', '/Library', '/private/etc', '/etc', '/opt/homebrew', '/private/var/db/timezone', '/dev'];
/** Environment names every sandboxed server gets when set (no HOME, USER or secrets). */
export const SANDBOX_BASE_ENV: readonly string[] = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ'];

const INTERPRETER = /^(node|nodejs|python[0-9.]*|bun|deno|tsx|ruby|perl|php)(\.exe)?$/;
const PACKAGE_MARKERS = ['package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod'];

/** The system directories of `platform`. */
export function systemRead(platform: NodeJS.Platform): readonly string[] {
  return platform === 'darwin' ? DARWIN_SYSTEM_READ : LINUX_SYSTEM_READ;
}

/**
 * The policy of a server started as `command args` (in `cwd`, with `env`'s PATH): the system
 * directories, its install/package directory (of the command, and of its script when the
 * command is an interpreter), the spec's grants; `extraRead` for the host's own helpers (the
 * relay's Node).
 */
export function resolvePolicy(
  spec: SandboxSpec,
  target: { command: string; args: readonly string[]; cwd: string; env: Readonly<Record<string, string | undefined>>; platform: NodeJS.Platform },
  fs: PolicyFs,
  extraRead: readonly string[] = [],
): SandboxPolicy {
  const system = systemRead(target.platform);
  const read: string[] = [...system];
  const installs = installDirs(target, fs, system);
  const add = (list: string[], p: string) => {
    for (const q of withRealPath(p, fs)) if (!list.includes(q)) list.push(q);
  };
  for (const p of [...new Set(installs), ...extraRead, ...(spec.filesystem?.read ?? [])]) add(read, path.resolve(p));
  const write: string[] = [];
  for (const p of spec.filesystem?.write ?? []) add(write, path.resolve(p));
  const network = spec.network === undefined || spec.network === 'none' ? 'none' : { allow: [...spec.network.allow] };
  const env = [...SANDBOX_BASE_ENV];
  for (const n of spec.env ?? []) if (!env.includes(n)) env.push(n);
  return { read, write, network, env };
}

/** `p`, and its real path when a symlink leads elsewhere (both must exist inside the sandbox). */
function withRealPath(p: string, fs: PolicyFs): string[] {
  const real = fs.realpath(p);
  return real === undefined || real === p ? [p] : [p, real];
}

/** The server's own install/package directories (outside the system's). */
function installDirs(t: Parameters<typeof resolvePolicy>[1], fs: PolicyFs, system: readonly string[]): string[] {
  const out: string[] = [];
  const exe = findCommand(t.command, t.cwd, t.env, t.platform, fs);
  if (exe !== undefined) {
    const real = fs.realpath(exe) ?? exe;
    if (!underAny(real, system)) out.push(packageRoot(real, fs));
    if (INTERPRETER.test(path.basename(real)) || INTERPRETER.test(path.basename(exe))) {
      const script = t.args.find((a) => !a.startsWith('-'));
      if (script !== undefined) {
        const abs = path.resolve(t.cwd, script);
        if (fs.isFile(abs)) out.push(packageRoot(abs, fs), packageRoot(fs.realpath(abs) ?? abs, fs));
      }
    }
  }
  return out;
}

/**
 * The directory a file belongs to: the top-most `node_modules` above it (a package and its
 * hoisted dependencies), else the nearest directory with a package marker, else a `bin`
 * directory's parent (an install prefix), else its own directory.
 */
export function packageRoot(file: string, fs: PolicyFs): string {
  const parts = file.split(path.sep);
  const nm = parts.indexOf('node_modules');
  if (nm > 0) return parts.slice(0, nm + 1).join(path.sep) || path.sep;
  let dir = path.dirname(file);
  for (;;) {
    if (PACKAGE_MARKERS.some((m) => fs.isFile(path.join(dir, m)))) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const own = path.dirname(file);
  return path.basename(own) === 'bin' ? path.dirname(own) : own;
}

/** The command's file: a path as given (against cwd), else the first match on PATH. */
export function findCommand(command: string, cwd: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform, fs: PolicyFs): string | undefined {
  if (command.includes('/')) return path.resolve(cwd, command);
  for (const dir of (envValue(env, 'PATH', platform) ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    if (fs.isFile(candidate)) return candidate;
  }
  return undefined;
}

/** True when `p` is `dir` or inside it, for some dir of `dirs`. */
export function underAny(p: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => p === d || p.startsWith(d.endsWith('/') ? d : d + '/'));
}

/** The environment of a sandboxed server: the policy's names from `parent`, then `explicit`; HOME and TMPDIR are the private temp dir. */
export function sandboxEnv(policy: SandboxPolicy, explicit: Record<string, string> | undefined, parent: NodeJS.ProcessEnv, tmp: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of policy.env) {
    const v = parent[n];
    if (v !== undefined && !v.startsWith('()')) out[n] = v;
  }
  out.HOME = tmp;
  out.TMPDIR = tmp;
  if (explicit) Object.assign(out, explicit);
  return out;
}

/** One line naming the grants, for status and errors (paths only: no value of the environment). */
export function describePolicy(spec: SandboxSpec): string {
  const parts: string[] = [];
  const r = spec.filesystem?.read ?? [];
  const w = spec.filesystem?.write ?? [];
  parts.push(r.length > 0 ? `read ${r.join(', ')}` : 'read: system and its own package only');
  parts.push(w.length > 0 ? `write ${w.join(', ')}` : 'write: private temp dir only');
  parts.push(spec.network === undefined || spec.network === 'none' ? 'network: none' : `network: ${spec.network.allow.join(', ')} (through the host's proxy)`);
  if ((spec.env ?? []).length > 0) parts.push(`env ${spec.env!.join(', ')}`);
  return parts.join('; ');
}
