/**
 * Reading and merging environment blocks the way the target platform does. Windows variable
 * names are case-insensitive (`Path`, `PATH` and `path` are one variable), so a lookup in an
 * injected environment object, or a merge of explicit variables over inherited ones, must
 * ignore case there — or the child gets two spellings of PATH and Windows picks one of them.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The value of `name` in `env`, case-insensitively on Windows. */
export function envValue(env: Env, name: string, platform: NodeJS.Platform): string | undefined {
  const exact = env[name];
  if (exact !== undefined || platform !== 'win32') return exact;
  const key = envKey(env, name, platform);
  return key === undefined ? undefined : env[key];
}

/** The key under which `env` holds `name` (its own spelling on Windows), if any. */
export function envKey(env: Env, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return Object.hasOwn(env, name) ? name : undefined;
  const upper = name.toUpperCase();
  for (const k of Object.keys(env)) if (k.toUpperCase() === upper && env[k] !== undefined) return k;
  return undefined;
}

/** Sets `name` in `out`, first removing any other spelling of it on Windows. */
export function setEnv(out: Record<string, string>, name: string, value: string, platform: NodeJS.Platform): void {
  if (platform === 'win32') {
    const upper = name.toUpperCase();
    for (const k of Object.keys(out)) if (k !== name && k.toUpperCase() === upper) delete out[k];
  }
  out[name] = value;
}
