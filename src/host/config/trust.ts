/**
 * Trusting a project. A cloned repository's `.mcpwire/config.json` (or its
 * `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`) names commands and URLs chosen by whoever
 * wrote the repository, so a project-level server is started only once the user has trusted
 * the project. The user's own files (the global config, `~/.cursor/mcp.json`, Claude Desktop,
 * a `--config` file named on the command line) are trusted: the user wrote them.
 *
 * The trust store is `trusted-projects.json` beside the global config file (0600, written
 * atomically like the config). It is keyed by the project's real path (`fs.realpath`, so a
 * symlink reaches the same entry) and records one hash per project server entry — id, file,
 * transport and the whole normalized entry (command, args, env names and values, cwd, url,
 * headers, OAuth, permissions…) — so a changed or added entry is untrusted until trusted again.
 * A native entry with `${VAR}` references is hashed as written (`ResolvedServer.written`), so
 * a variable's value is not part of the hash.
 * The rule is uniform: HTTP project servers need trust too (an imported entry can expand
 * `${env:…}` into headers sent to a URL the repository chose).
 *
 * ```json
 * { "version": 1, "projects": { "/home/me/app": { "trusted_at": "2026-01-01T00:00:00.000Z",
 *   "servers": [{ "id": "fs", "file": ".mcpwire/config.json", "hash": "sha256:…" }] } } }
 * ```
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { readIfExists, writeFileAtomic } from '../../fs/atomic.js';
import { parseJsonText } from './diagnostics.js';
import { isPlainObject } from './schema.js';
import { globalConfigPath, platformPath, type PathOptions } from './paths.js';
import type { ConfigDiagnostic, ResolvedServer } from './types.js';

/**
 * Which project-level servers may start: `'ask'` (default) — those the trust store allows;
 * `'all'` — every one; a list of project directories — the servers of those projects only.
 */
export type TrustOption = 'ask' | 'all' | readonly string[];

/** One trusted server entry of a project. */
export interface TrustedServer {
  id: string;
  /** The config file, relative to the project directory (`/`-separated). */
  file: string;
  /** `sha256:<hex>` of the entry (see `serverFingerprint`). */
  hash: string;
}

/** One trusted project. */
export interface TrustedProject {
  /** The project's real path. */
  project: string;
  /** ISO 8601. */
  trustedAt: string;
  servers: TrustedServer[];
}

/** The trust store, read. */
export interface TrustStoreData {
  projects: Map<string, TrustedProject>;
}

/** Where the store lives: `trusted-projects.json` in the directory of the global config file. */
export function trustStorePath(o: PathOptions = {}): string {
  const global = globalConfigPath(o);
  const p = platformPath(o);
  return p.join(p.dirname(global), 'trusted-projects.json');
}

/** The real path of a project directory (its resolved path when it does not exist). */
export async function projectRealPath(dir: string, cwd: string = process.cwd()): Promise<string> {
  const abs = path.resolve(cwd, dir);
  return realpath(abs).catch(() => abs);
}

/**
 * The hash of one project server entry: id, config file relative to `base` (the project
 * directory the file paths were built from), transport and the whole normalized entry, as
 * canonical JSON (sorted keys). `enabled` is not part of it: enabling changes nothing that runs.
 */
export function serverFingerprint(server: ResolvedServer, base: string): string {
  const file = path.relative(base, server.file).split(path.sep).join('/');
  // An entry with `${…}` references is trusted as written: a changed variable (a rotated token)
  // does not make the user trust the project again; a changed reference does.
  const text = canonicalJson(server.written !== undefined ? { id: server.id, file, transport: server.transport, written: server.written } : { id: server.id, file, transport: server.transport, config: server.config });
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Quotes a directory for the hint when a shell would split or expand it. */
function shellArg(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The one-line hint for an untrusted server (or project): what to run to allow it. */
export function untrustedHint(server: Pick<ResolvedServer, 'untrusted' | 'project'>): string {
  const dir = server.untrusted?.project ?? server.project ?? '.';
  const why = server.untrusted?.changed ? 'project server not trusted (changed since the project was trusted)' : 'project server not trusted';
  return `${why}: run \`mcpwire trust ${shellArg(dir)}\` to allow project servers to start`;
}

/** One warning per project naming the enabled servers that were not started. */
export function untrustedDiagnostic(servers: readonly ResolvedServer[]): ConfigDiagnostic[] {
  const held = servers.filter((s) => s.untrusted !== undefined && s.enabled);
  if (held.length === 0) return [];
  const first = held[0].untrusted!;
  const changed = held.some((s) => s.untrusted!.changed);
  const ids = held.map((s) => s.id).join(', ');
  const why = changed ? 'not trusted (changed since the project was trusted)' : 'not trusted';
  return [
    {
      severity: 'warning',
      source: 'project',
      file: first.project,
      message: `project ${first.project}: server(s) ${ids} ${why}, not started; run \`mcpwire trust ${shellArg(first.project)}\` to allow project servers to start`,
    },
  ];
}

/** Reads the store. A missing file is an empty store; an unreadable or invalid one is `error`. */
export async function readTrustStore(file: string): Promise<{ data: TrustStoreData; error?: string }> {
  const data: TrustStoreData = { projects: new Map() };
  let text: string | undefined;
  try {
    text = await readIfExists(file);
  } catch (err) {
    return { data, error: `trust store ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); no project is trusted` };
  }
  if (text === undefined) return { data };
  const doc = parseJsonText(text);
  const root = doc.ok ? doc.value : undefined;
  if (!isPlainObject(root) || root.version !== 1 || !isPlainObject(root.projects)) {
    return { data, error: `trust store ${file}: ${doc.ok ? 'not a version 1 trust store' : doc.message}; no project is trusted` };
  }
  for (const [project, raw] of Object.entries(root.projects)) {
    if (!isPlainObject(raw) || !Array.isArray(raw.servers)) continue;
    const servers = raw.servers.filter(isTrustedServer);
    data.projects.set(project, { project, trustedAt: typeof raw.trusted_at === 'string' ? raw.trusted_at : '', servers });
  }
  return { data };
}

function isTrustedServer(v: unknown): v is TrustedServer {
  return isPlainObject(v) && typeof v.id === 'string' && typeof v.file === 'string' && typeof v.hash === 'string';
}

/** Writes the whole store atomically (0600). */
export async function writeTrustStore(file: string, data: TrustStoreData): Promise<void> {
  const projects: Record<string, unknown> = {};
  for (const p of [...data.projects.values()].sort((a, b) => (a.project < b.project ? -1 : 1))) {
    projects[p.project] = { trusted_at: p.trustedAt, servers: p.servers.map((s) => ({ id: s.id, file: s.file, hash: s.hash })) };
  }
  await writeFileAtomic(file, `${JSON.stringify({ version: 1, projects }, null, 2)}\n`);
}

/** Reads the store for a change: an invalid store is refused rather than overwritten. */
export async function readTrustStoreForWrite(file: string): Promise<TrustStoreData> {
  const { data, error } = await readTrustStore(file);
  if (error !== undefined) throw new ConfigError(`${error.replace(/; no project is trusted$/, '')}; not rewritten (fix or delete it)`);
  return data;
}

/**
 * Whether `server` (a project-level entry of `project`) is allowed by the store; `known`: an entry
 * with this id in this file (relative to the project) was trusted, in another form (it changed).
 */
export function storeAllows(store: TrustStoreData | undefined, project: string, hash: string, id: string, file: string): { ok: boolean; known: boolean } {
  const rec = store?.projects.get(project);
  return { ok: rec?.servers.some((s) => s.hash === hash) ?? false, known: rec?.servers.some((s) => s.id === id && s.file === file) ?? false };
}
