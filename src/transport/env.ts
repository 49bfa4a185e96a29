/**
 * The environment a stdio server gets: an explicit `env` merged over a minimal, safe inherited
 * set — not the whole parent environment (which holds the host's own secrets) unless asked.
 * A pure function of (platform, parent environment), so each platform's set is tested anywhere.
 */
import { envKey, setEnv } from './spawn/env-lookup.js';

/** POSIX (Linux, macOS): find programs, the home, a temp dir (macOS's per-user TMPDIR), a locale. */
const POSIX_ENV: readonly string[] = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ'];

/**
 * Windows: what Node, npm/npx and most servers need to run at all — the profile folders (npm's
 * cache and global prefix live in APPDATA/LOCALAPPDATA), SystemRoot (without it name resolution
 * and crypto fail), PATH with PATHEXT (how `npx` is found as `npx.cmd`), ComSpec (npm runs its
 * scripts with it), temp dirs and the program folders. Names are matched case-insensitively.
 */
const WINDOWS_ENV: readonly string[] = [
  'APPDATA', 'COMSPEC', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'NUMBER_OF_PROCESSORS', 'OS', 'PATH', 'PATHEXT',
  'PROCESSOR_ARCHITECTURE', 'PROGRAMDATA', 'PROGRAMFILES', 'PROGRAMFILES(X86)', 'PROGRAMW6432', 'SYSTEMDRIVE',
  'SYSTEMROOT', 'TEMP', 'TMP', 'USERDOMAIN', 'USERNAME', 'USERPROFILE', 'WINDIR',
];

/** The names a child inherits on `platform` (without `inheritEnv`). */
export function safeInheritedEnv(platform: NodeJS.Platform = process.platform): readonly string[] {
  return platform === 'win32' ? WINDOWS_ENV : POSIX_ENV;
}

export function childEnv(
  explicit: Record<string, string> | undefined,
  inheritAll = false,
  parent: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (inheritAll) {
    for (const [k, v] of Object.entries(parent)) if (v !== undefined) out[k] = v;
  } else {
    for (const name of safeInheritedEnv(platform)) {
      // The parent's own spelling (`Path` on Windows): the name is the same variable there.
      const k = envKey(parent, name, platform);
      const v = k === undefined ? undefined : parent[k];
      // Functions exported by bash ("() { …") are a known injection vector: never pass them on.
      if (k !== undefined && v !== undefined && !v.startsWith('()')) out[k] = v;
    }
  }
  // Explicit variables win, also over another spelling of the same name on Windows.
  if (explicit) for (const [k, v] of Object.entries(explicit)) setEnv(out, k, v, platform);
  return out;
}
