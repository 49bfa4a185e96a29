/**
 * How each package kind runs (docs/reference/server-json of the registry): npm with `npx -y
 * <pkg>@<version>`, PyPI with `uvx <pkg>==<version>`, OCI with `docker run -i --rm <image>`,
 * NuGet with `dnx <pkg>@<version> -- <args>`; `runtimeHint` names another runner, and
 * `runtimeArguments` go before the package. Also: is a runner installed (found on PATH)?
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { PackageSpec } from './types.js';

/** The runner of each kind when the package gives no `runtimeHint`. */
export const DEFAULT_RUNNER: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };

/** The command line of a package: the runner and its arguments. `envNames` are passed into a container. */
export function packageCommand(pkg: PackageSpec, runtimeArgs: string[], packageArgs: string[], envNames: string[]): { command: string; args: string[] } {
  const kind = pkg.registryType;
  const command = pkg.runtimeHint ?? DEFAULT_RUNNER[kind] ?? kind;
  const runner = path.basename(command);
  const v = pkg.version;
  switch (kind) {
    case 'npm': {
      const yes = runner === 'npx' && !runtimeArgs.some((a) => a === '-y' || a === '--yes') ? ['-y'] : [];
      return { command, args: [...yes, ...runtimeArgs, v ? `${pkg.identifier}@${v}` : pkg.identifier, ...packageArgs] };
    }
    case 'pypi':
      return { command, args: [...runtimeArgs, v ? `${pkg.identifier}==${v}` : pkg.identifier, ...packageArgs] };
    case 'oci': {
      const run = runner === 'docker' || runner === 'podman' ? ['run', '-i', '--rm'] : [];
      return { command, args: [...run, ...runtimeArgs, ...envNames.flatMap((n) => ['-e', n]), imageRef(pkg), ...packageArgs] };
    }
    case 'nuget':
      return { command, args: [...runtimeArgs, v ? `${pkg.identifier}@${v}` : pkg.identifier, ...(packageArgs.length ? ['--', ...packageArgs] : [])] };
    default:
      return { command, args: [...runtimeArgs, pkg.identifier, ...packageArgs] };
  }
}

/** The image reference of an OCI package: its identifier, with `:version` when it names no tag or digest. */
export function imageRef(pkg: PackageSpec): string {
  const id = pkg.identifier;
  const last = id.slice(id.lastIndexOf('/') + 1);
  if (last.includes(':') || id.includes('@') || !pkg.version) return id;
  return `${id}:${pkg.version}`;
}

/** Whether `command` can be run: an executable file at that path, or on PATH. */
export function findCommand(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  const candidates = command.includes('/') || command.includes(path.sep) ? [command] : (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, command));
  for (const c of candidates) {
    for (const e of exts) {
      try {
        if (!statSync(c + e).isFile()) continue;
        accessSync(c + e, constants.X_OK);
        return c + e;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
