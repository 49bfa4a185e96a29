/**
 * What to tell the user when a server's command is not found, per platform — the two cases
 * that make a command work in a terminal and not in a host:
 * - macOS: an app started from the Dock or Finder gets launchd's PATH (`/usr/bin:/bin:/usr/sbin:/sbin`),
 *   without Homebrew's `/opt/homebrew/bin` or `/usr/local/bin` where `npx`, `uvx`… live;
 * - Windows: the name is looked up on PATH with the PATHEXT extensions only.
 */
import { envValue } from './env-lookup.js';
import { pathExtensions } from './command.js';

const HOMEBREW = ['/opt/homebrew/bin', '/usr/local/bin'];

/** A sentence to add to "command not found", or undefined when there is nothing to add. */
export function notFoundHint(platform: NodeJS.Platform, command: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (/[\\/]/.test(command)) return undefined;
  const pathValue = envValue(env, 'PATH', platform) ?? '';
  if (platform === 'darwin') {
    const dirs = pathValue.split(':');
    if (HOMEBREW.some((d) => dirs.includes(d))) return undefined;
    return `PATH (${pathValue || 'empty'}) has neither /opt/homebrew/bin nor /usr/local/bin, as for an app started from the Dock or Finder: give the full path (e.g. /opt/homebrew/bin/${command}) or set PATH in the server's env`;
  }
  if (platform === 'win32') {
    return `looked up on PATH with the extensions of PATHEXT (${pathExtensions(env).join(';')}); give the full path or add its folder to PATH`;
  }
  return undefined;
}
