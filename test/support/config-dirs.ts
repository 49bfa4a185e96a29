/**
 * The folders and files of the configuration tests: a fresh folder with a home and a project
 * in it, and config files written into them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh folder (its real path with `realpath`) holding `home/` and `project/`; the caller removes `dir`. */
export function configDirs(prefix: string, options: { realpath?: boolean } = {}): { dir: string; home: string; cwd: string } {
  const made = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dir = options.realpath ? fs.realpathSync(made) : made;
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'project');
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
  return { dir, home, cwd };
}

/** Writes `content` (text as is, anything else as JSON) to `file`, making its folder; the file. */
export function writeConfig(file: string, content: unknown): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** A native mcpwire config file's content with `servers`. */
export const native = (servers: Record<string, unknown>) => ({ version: 1, mcp: { servers } });
