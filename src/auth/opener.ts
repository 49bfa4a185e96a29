/**
 * Opening the authorization URL in the user's browser with the platform's opener (`open` on
 * macOS, `xdg-open` elsewhere on Unix, `explorer.exe` on Windows — `cmd /c start` would
 * re-parse `&` in the URL). Best effort: it never throws; a missing opener resolves `false`
 * and the caller has printed the URL already. The URL is passed as one argv element, never
 * through a shell.
 */
import { spawn } from 'node:child_process';

/** Opens `url` in a browser: `true` when an opener started, `false` otherwise. */
export type BrowserOpener = (url: string) => Promise<boolean>;

/** The platform's opener command for a URL. */
export function openerCommand(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return 'explorer.exe';
  return 'xdg-open';
}

/**
 * Starts the platform opener for `url` (http/https only) detached from this process. Resolves
 * `true` once the opener has started, `false` when it could not (no such program, not a web
 * URL, or `MCPWIRE_NO_BROWSER` set).
 */
export function openBrowser(url: string, env: Record<string, string | undefined> = process.env): Promise<boolean> {
  if (!/^https?:\/\//i.test(url) || env.MCPWIRE_NO_BROWSER) return Promise.resolve(false);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(openerCommand(), [url], { stdio: 'ignore', detached: true, windowsHide: true, env: env as NodeJS.ProcessEnv });
    } catch {
      return resolve(false);
    }
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
