/**
 * The environment a stdio server gets: an explicit `env` merged over a minimal, safe inherited
 * set — not the whole parent environment (which holds the host's own secrets) unless asked.
 */

/** Variables a child needs to find programs, its home, a temp dir and a locale. */
export const SAFE_INHERITED_ENV: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PATHEXT', 'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'TMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES', 'COMSPEC', 'WINDIR',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ'];

export function childEnv(
  explicit: Record<string, string> | undefined,
  inheritAll = false,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (inheritAll) {
    for (const [k, v] of Object.entries(parent)) if (v !== undefined) out[k] = v;
  } else {
    for (const k of SAFE_INHERITED_ENV) {
      const v = parent[k];
      // Functions exported by bash ("() { …") are a known injection vector: never pass them on.
      if (v !== undefined && !v.startsWith('()')) out[k] = v;
    }
  }
  if (explicit) Object.assign(out, explicit);
  return out;
}
