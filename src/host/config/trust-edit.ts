/**
 * Changing the trust store (`mcpwire trust [dir]`, `trust --list`, `untrust [dir]`): trusting a
 * project records a hash of every server entry its project-level files define now — the native
 * `.mcpwire/config.json` and the project's import files (`.mcp.json`, `.cursor/mcp.json`,
 * `.vscode/mcp.json`), whether or not a command reads them with `--imports` — so a later change
 * to any of them asks again. See `trust.ts` for the store and the rule.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { readIfExists } from '../../fs/atomic.js';
import { nativeFile, toJsonText } from './formats.js';
import { importSyntax } from './imports.js';
import { nativeLayer, resolveConfig, type LayerText } from './load.js';
import { defaultImportFiles, projectConfigPath, type PathOptions } from './paths.js';
import { projectRealPath, readTrustStore, readTrustStoreForWrite, serverFingerprint, trustStorePath, writeTrustStore, type TrustedProject } from './trust.js';
import type { ConfigDiagnostic, ResolvedServer } from './types.js';

/** Options of the trust store edits: the path environment, and the store file. */
export interface TrustEditOptions extends PathOptions {
  /** Overrides the store file (default `trustStorePath`). */
  trustStorePath?: string;
  /** Clock for `trusted_at` (tests). */
  now?: () => Date;
}

/** What `trustProject` did. */
export interface TrustResult {
  /** The project's real path (the store key). */
  project: string;
  /** The store file written. */
  file: string;
  /** The project servers now trusted, as they are configured. */
  servers: ResolvedServer[];
  /** Problems in the project's files (an invalid entry is not trusted: it cannot start). */
  diagnostics: ConfigDiagnostic[];
}

/** Trusts the project `dir` (relative to `cwd`) as its files are now. */
export async function trustProject(dir: string, options: TrustEditOptions = {}): Promise<TrustResult> {
  const project = await projectRealPath(dir, options.cwd);
  const st = await stat(project).catch(() => undefined);
  if (!st?.isDirectory()) throw new ConfigError(`${project} is not a directory`);
  const { servers, diagnostics } = await projectServers(project, options);
  const file = options.trustStorePath ?? trustStorePath(options);
  const store = await readTrustStoreForWrite(file);
  const entry: TrustedProject = {
    project,
    trustedAt: (options.now?.() ?? new Date()).toISOString(),
    servers: servers.map((s) => ({ id: s.id, file: relativeFile(project, s.file), hash: serverFingerprint(s, project) })),
  };
  store.projects.set(project, entry);
  await writeTrustStore(file, store);
  return { project, file, servers, diagnostics };
}

/** Removes the trust of project `dir`. `removed` is false when it was not trusted. */
export async function untrustProject(dir: string, options: TrustEditOptions = {}): Promise<{ project: string; file: string; removed: boolean }> {
  const project = await projectRealPath(dir, options.cwd);
  const file = options.trustStorePath ?? trustStorePath(options);
  const store = await readTrustStoreForWrite(file);
  if (!store.projects.delete(project)) return { project, file, removed: false };
  await writeTrustStore(file, store);
  return { project, file, removed: true };
}

/** Every trusted project, sorted by path. An invalid store is a `ConfigError`. */
export async function listTrustedProjects(options: TrustEditOptions = {}): Promise<TrustedProject[]> {
  const file = options.trustStorePath ?? trustStorePath(options);
  const { data, error } = await readTrustStore(file);
  if (error !== undefined) throw new ConfigError(error);
  return [...data.projects.values()].sort((a, b) => (a.project < b.project ? -1 : 1));
}

/** Every usable server entry of the project's own files, each file read as a layer of its own. */
async function projectServers(project: string, options: PathOptions): Promise<{ servers: ResolvedServer[]; diagnostics: ConfigDiagnostic[] }> {
  const o = { ...options, cwd: project };
  const layers: LayerText[] = [];
  // The same files, in the same syntaxes (YAML, TOML, JSONC), as loadConfig reads.
  const file = nativeFile(projectConfigPath(o));
  const nativeText = await readIfExists(file);
  if (nativeText !== undefined) layers.push({ ...(await nativeLayer('project', file, nativeText)), project: true });
  for (const imp of defaultImportFiles(o).filter((f) => f.project)) {
    const text = await readIfExists(imp.path).catch(() => undefined);
    const json = text === undefined ? undefined : await toJsonText(text, importSyntax(imp.format));
    if (json?.ok) layers.push({ kind: 'import', file: imp.path, format: imp.format, text: json.text, project: true });
  }
  const servers: ResolvedServer[] = [];
  const diagnostics: ConfigDiagnostic[] = [];
  for (const layer of layers) {
    const r = resolveConfig([layer], { ...o, trust: 'all', projectDir: project });
    servers.push(...r.servers.filter((s) => s.project !== undefined));
    diagnostics.push(...r.diagnostics.filter((d) => !/disables a server that no lower layer defines$/.test(d.message)));
  }
  return { servers, diagnostics };
}

function relativeFile(project: string, file: string): string {
  return path.relative(project, file).split(path.sep).join('/');
}
