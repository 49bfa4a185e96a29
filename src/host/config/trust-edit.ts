/**
 * Changing the trust store (`mcpwire trust [dir]`, `trust --list`, `untrust [dir]`): trusting a
 * project records a hash of every server entry its project-level files define now — the native
 * `.mcpwire/config.json` and the project's import files (`.mcp.json`, `.cursor/mcp.json`,
 * `.vscode/mcp.json`), whether or not a command reads them with `--imports` — so a later change
 * to any of them asks again. See `trust.ts` for the store and the rule. Every change reads and
 * writes the store holding its lock (`edit-lock.ts`): parallel commands never drop each other's.
 */
import { stat } from 'node:fs/promises';
import { sandboxLoosened } from './sandbox.js';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { readIfExists } from '../../fs/atomic.js';
import { lockedEdit } from './edit-lock.js';
import { nativeFile, toJsonText } from './formats.js';
import { importSyntax } from './imports.js';
import { nativeLayer, resolveConfig, type LayerText } from './load.js';
import { defaultImportFiles, projectConfigPath, type PathOptions } from './paths.js';
import { projectRealPath, readTrustStore, readTrustStoreForWrite, serverFingerprint, storeAllows, trustStorePath, writeTrustStore, type TrustedProject, type TrustStoreData } from './trust.js';
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
  /**
   * Entries invalid now only because a `${VAR}` they use is not set: trusted as written (the
   * variables' values are never part of the trust), they start once the variables are set.
   */
  pending: PendingServer[];
  /** Problems in the project's files (an invalid entry is not trusted: it cannot start). */
  diagnostics: ConfigDiagnostic[];
}

/** A project entry that is valid once `unset` are set (see `TrustResult.pending`). */
export interface PendingServer {
  server: ResolvedServer;
  unset: string[];
}

/** What `mcp add` did to the trust of the project entry it wrote (see `trustWrittenEntry`). */
export type WrittenTrust = 'added' | 'kept' | 'dropped' | 'untrusted';

/** Trusts the project `dir` (relative to `cwd`) as its files are now. */
export async function trustProject(dir: string, options: TrustEditOptions = {}): Promise<TrustResult> {
  const project = await projectRealPath(dir, options.cwd);
  const st = await stat(project).catch(() => undefined);
  if (!st?.isDirectory()) throw new ConfigError(`${project} is not a directory`);
  const { servers, pending, diagnostics } = await projectServers(project, options);
  const file = options.trustStorePath ?? trustStorePath(options);
  const entry: TrustedProject = {
    project,
    trustedAt: (options.now?.() ?? new Date()).toISOString(),
    servers: [...servers, ...pending.map((p) => p.server)].map((s) => trustedServer(project, s)),
  };
  await editTrustStore(file, (store) => void store.projects.set(project, entry));
  return { project, file, servers, pending, diagnostics };
}

/** The project entry `id` of the project's native file as it resolves now (pending ones too), and whether the store trusts it. */
export async function projectEntryTrust(dir: string, id: string, options: TrustEditOptions = {}): Promise<{ server: ResolvedServer; trusted: boolean } | undefined> {
  const project = await projectRealPath(dir, options.cwd);
  const server = await nativeProjectEntry(project, id, options);
  if (server === undefined) return undefined;
  const { data } = await readTrustStore(options.trustStorePath ?? trustStorePath(options));
  return { server, trusted: storeAllows(data, project, serverFingerprint(server, project), id, relativeFile(project, server.file)).ok };
}

/**
 * Server `id` was just written in the project's native file by the user (`mcp add`). A new entry
 * is trusted: the user wrote it. A replaced one (`before`: as it was, from `projectEntryTrust`)
 * keeps its trust when it runs the same thing (transport, command and args, url) in a sandbox no
 * looser (sandbox.ts), and drops it when that changed: the new command is asked for with `mcpwire trust`.
 */
export async function trustWrittenEntry(dir: string, id: string, replaced: boolean, before: { server: ResolvedServer; trusted: boolean } | undefined, options: TrustEditOptions = {}): Promise<WrittenTrust> {
  const project = await projectRealPath(dir, options.cwd);
  const after = await nativeProjectEntry(project, id, options);
  let outcome: WrittenTrust;
  if (!replaced) outcome = 'added';
  else if (before === undefined || !before.trusted) return 'untrusted';
  else outcome = after !== undefined && sameRun(before.server, after) ? 'kept' : 'dropped';
  if (after === undefined && outcome !== 'dropped') return 'untrusted';
  const file = options.trustStorePath ?? trustStorePath(options);
  await editTrustStore(file, (store) => {
    const rec = store.projects.get(project) ?? { project, trustedAt: (options.now?.() ?? new Date()).toISOString(), servers: [] };
    const rel = relativeFile(project, (after ?? before!.server).file);
    rec.servers = rec.servers.filter((s) => !(s.id === id && s.file === rel));
    if (outcome !== 'dropped') rec.servers.push(trustedServer(project, after!));
    store.projects.set(project, rec);
  });
  return outcome;
}

/** Reads the store, applies `change` and writes it back, holding the store's lock; `change` returning false writes nothing. */
function editTrustStore(file: string, change: (store: TrustStoreData) => boolean | void): Promise<boolean> {
  return lockedEdit(file, async () => {
    const store = await readTrustStoreForWrite(file);
    if (change(store) === false) return false;
    await writeTrustStore(file, store);
    return true;
  });
}

/** Whether two entries run the same thing (transport, command and arguments, URL) and `b`'s sandbox grants no more than `a`'s. */
function sameRun(a: ResolvedServer, b: ResolvedServer): boolean {
  const run = (s: ResolvedServer) => JSON.stringify([s.transport, s.config.command ?? null, s.config.args ?? [], s.config.url ?? null]);
  return run(a) === run(b) && !sandboxLoosened(a.config.sandbox, b.config.sandbox);
}

function trustedServer(project: string, s: ResolvedServer): TrustedProject['servers'][number] {
  return { id: s.id, file: relativeFile(project, s.file), hash: serverFingerprint(s, project) };
}

/** Entry `id` of the project's native file (a pending one too), or undefined. */
async function nativeProjectEntry(project: string, id: string, options: PathOptions): Promise<ResolvedServer | undefined> {
  const native = nativeFile(projectConfigPath({ ...options, cwd: project }));
  const { servers, pending } = await projectServers(project, options);
  return [...servers, ...pending.map((p) => p.server)].find((s) => s.id === id && s.file === native);
}

/** Removes the trust of project `dir`. `removed` is false when it was not trusted. */
export async function untrustProject(dir: string, options: TrustEditOptions = {}): Promise<{ project: string; file: string; removed: boolean }> {
  const project = await projectRealPath(dir, options.cwd);
  const file = options.trustStorePath ?? trustStorePath(options);
  const removed = await editTrustStore(file, (store) => store.projects.delete(project));
  return { project, file, removed };
}

/** Every trusted project, sorted by path. An invalid store is a `ConfigError`. */
export async function listTrustedProjects(options: TrustEditOptions = {}): Promise<TrustedProject[]> {
  const file = options.trustStorePath ?? trustStorePath(options);
  const { data, error } = await readTrustStore(file);
  if (error !== undefined) throw new ConfigError(error);
  return [...data.projects.values()].sort((a, b) => (a.project < b.project ? -1 : 1));
}

/**
 * Every usable server entry of the project's own files, each file read as a layer of its own,
 * and the native entries that are usable once the `${VAR}`s they lack are set (`pending`).
 */
async function projectServers(project: string, options: PathOptions): Promise<{ servers: ResolvedServer[]; pending: PendingServer[]; diagnostics: ConfigDiagnostic[] }> {
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
  const pending: PendingServer[] = [];
  const diagnostics: ConfigDiagnostic[] = [];
  for (const layer of layers) {
    const r = resolveConfig([layer], { ...o, trust: 'all', projectDir: project });
    servers.push(...r.servers.filter((s) => s.project !== undefined));
    const waiting = layer.kind === 'native' ? pendingServers(layer, r.diagnostics, { ...o, projectDir: project }) : [];
    pending.push(...waiting);
    const held = new Set(waiting.map((p) => p.server.id));
    diagnostics.push(...r.diagnostics.filter((d) => !/disables a server that no lower layer defines$/.test(d.message) && !(d.serverId !== undefined && held.has(d.serverId))));
  }
  return { servers, pending, diagnostics };
}

const UNSET = /environment variable "([A-Za-z_][A-Za-z0-9_]*)" is not set and has no default/;

/**
 * The entries of a native layer that failed only for unset variables: resolved again with a
 * stand-in value for each, they are valid; they are trusted as written (`written`, which the
 * fingerprint hashes, holds the references, never a value).
 */
function pendingServers(layer: LayerText, diagnostics: readonly ConfigDiagnostic[], options: PathOptions & { projectDir: string }): PendingServer[] {
  const unset = new Map<string, Set<string>>();
  for (const d of diagnostics) {
    const name = d.serverId !== undefined && d.severity === 'error' ? UNSET.exec(d.message)?.[1] : undefined;
    if (name !== undefined) unset.set(d.serverId!, (unset.get(d.serverId!) ?? new Set()).add(name));
  }
  if (unset.size === 0) return [];
  const env: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  for (const names of unset.values()) for (const n of names) env[n] = 'unset';
  const again = resolveConfig([layer], { ...options, env, trust: 'all' });
  const failed = new Set(again.diagnostics.filter((d) => d.severity === 'error' && d.serverId !== undefined).map((d) => d.serverId!));
  return again.servers
    .filter((s) => unset.has(s.id) && !failed.has(s.id) && s.written !== undefined && s.error === undefined)
    .map((server) => ({ server, unset: [...unset.get(server.id)!].sort() }));
}

function relativeFile(project: string, file: string): string {
  return path.relative(project, file).split(path.sep).join('/');
}
