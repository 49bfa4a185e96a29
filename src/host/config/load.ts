/**
 * Loading and merging the config layers. Precedence, highest first:
 *
 *   1. native project (`<cwd>/.mcpwire/config.json`)
 *   2. native global (`MCPWIRE_CONFIG_PATH` or the platform config dir)
 *   3. import files, in the order given (default: `defaultImportFiles`)
 *
 * Merging is per server id and whole-entry: the highest layer that defines an id wins, even
 * when its entry is invalid (then the server is disabled with an error — a broken override
 * never silently falls back to a lower layer's command or URL). A native entry that is
 * exactly `{ "enabled": false }` is an override stub: it disables the id and shows the config
 * of the next layer that defines it. A missing file is fine; an unreadable or non-JSON file is
 * a diagnostic for that layer only.
 *
 * Import files are opt-in (`imports: true` or a list): a `.mcp.json` in a cloned repository
 * names commands to run. Project-level entries (the project file, and import files inside the
 * project) are marked `project` and, unless the `trust` decision allows them, `untrusted`:
 * the host never starts those (see `trust.ts`).
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { diagnostic } from './diagnostics.js';
import { nativeFile, nativeSyntax, toJsonText } from './formats.js';
import { importSyntax, type ImportFile } from './imports.js';
import { parseImportLayer, parseNativeLayer, type LayerEntry, type ParsedLayer } from './layer.js';
import { defaultImportFiles, globalConfigPath, projectConfigPath, type PathOptions } from './paths.js';
import { projectRealPath, readTrustStore, serverFingerprint, storeAllows, trustStorePath, untrustedDiagnostic, type TrustOption, type TrustStoreData } from './trust.js';
import type { ConfigDiagnostic, ConfigLoadResult, ConfigSource, ResolvedServer } from './types.js';

/** Options of `loadConfig`; paths default from `PathOptions`. */
export interface LoadConfigOptions extends PathOptions {
  /** Overrides the global file path. */
  globalPath?: string;
  /** Overrides the project file path. */
  projectPath?: string;
  /**
   * Import files, highest precedence first: `true` reads `defaultImportFiles`; `false` or absent
   * (the default) reads none — as in the CLI, where they need `--imports`.
   */
  imports?: ImportFile[] | boolean;
  /**
   * Which project-level servers may start (default `'ask'`: those the trust store allows;
   * `'all'`: every one; a list of project directories: those projects only). The others are
   * marked `untrusted`. Global-config servers are always trusted.
   */
  trust?: TrustOption;
  /** Overrides the trust store file (default `trustStorePath`: beside the global config). */
  trustStorePath?: string;
}

/**
 * The text of one layer, already read. `project`: whether its entries are project-level (need
 * trust); default true for the native project layer and for import files inside the project.
 */
export type LayerText =
  /** `error`: the file could not be converted to JSON text (YAML syntax); reported, no entries. */
  | { kind: 'native'; scope: 'project' | 'global'; file: string; text: string; project?: boolean; error?: string }
  | { kind: 'import'; file: string; format: ImportFile['format']; text: string; project?: boolean };

/** Options of `resolveConfig`: the paths, and the trust decision (see `LoadConfigOptions.trust`). */
export interface ResolveConfigOptions extends PathOptions {
  /** Default `'ask'`; with no `trustStore`, `'ask'` trusts no project server. */
  trust?: TrustOption;
  trustStore?: TrustStoreData;
  /** The project's real path (default: `cwd` resolved). `trust` lists are compared with it. */
  projectDir?: string;
}

/** Reads every layer, then merges them (see the module comment for the rules). */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ConfigLoadResult> {
  const diagnostics: ConfigDiagnostic[] = [];
  const layers: LayerText[] = [];
  const seen = new Set<string>();
  const read = async (file: string, source: ConfigSource): Promise<string | undefined> => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') diagnostics.push(diagnostic('error', { source, file }, `cannot be read (${code ?? 'error'})`));
      return undefined;
    }
  };
  const project = nativeFile(options.projectPath ?? projectConfigPath(options));
  const global = nativeFile(options.globalPath ?? globalConfigPath(options));
  const projectText = await read(project, 'project');
  if (projectText !== undefined) layers.push(await nativeLayer('project', project, projectText));
  const globalText = await read(global, 'global');
  if (globalText !== undefined) layers.push({ ...(await nativeLayer('global', global, globalText)), project: false });
  const imports = options.imports === true ? defaultImportFiles(options) : options.imports || [];
  for (const imp of imports) {
    const source: ConfigSource = `import:${imp.path}`;
    const text = await read(imp.path, source);
    if (text === undefined) continue;
    const json = await toJsonText(text, importSyntax(imp.format));
    if (!json.ok) {
      diagnostics.push(diagnostic('error', { source, file: imp.path }, json.message));
      continue;
    }
    layers.push({ kind: 'import', file: imp.path, format: imp.format, text: json.text, ...(imp.project !== undefined ? { project: imp.project } : {}) });
  }
  const trust = await trustInputs(options, diagnostics);
  const result = resolveConfig(layers, { ...options, ...trust });
  return { ...result, diagnostics: [...diagnostics, ...result.diagnostics] };
}

/**
 * A native layer from its file's text; YAML (`.yaml`/`.yml`) is converted to JSON text (a YAML
 * syntax error becomes the layer's JSON error: the text handed on is unparsable on purpose).
 */
export async function nativeLayer(scope: 'project' | 'global', file: string, text: string): Promise<LayerText & { kind: 'native' }> {
  if (nativeSyntax(file) === 'json') return { kind: 'native', scope, file, text };
  const json = await toJsonText(text, 'yaml');
  return { kind: 'native', scope, file, text: json.ok ? json.text : '', ...(json.ok ? {} : { error: json.message }) };
}

/** The project's real path, the trust list made real, and the store when the decision is `'ask'`. */
async function trustInputs(options: LoadConfigOptions, diagnostics: ConfigDiagnostic[]): Promise<Pick<ResolveConfigOptions, 'trust' | 'trustStore' | 'projectDir'>> {
  const projectDir = await projectRealPath(projectBase(options));
  const trust = options.trust ?? 'ask';
  if (trust === 'all') return { trust, projectDir };
  if (trust !== 'ask') return { trust: await Promise.all(trust.map((d) => projectRealPath(d, options.cwd))), projectDir };
  const file = options.trustStorePath ?? trustStorePath(options);
  const { data, error } = await readTrustStore(file);
  if (error !== undefined) diagnostics.push({ severity: 'error', source: 'global', file, message: error });
  return { trust, trustStore: data, projectDir };
}

/** The project directory the paths were built from: `cwd`, or the owner of `projectPath`. */
function projectBase(options: PathOptions & { projectPath?: string }): string {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (options.projectPath === undefined) return cwd;
  const dir = path.dirname(path.resolve(cwd, options.projectPath));
  return path.basename(dir) === '.mcpwire' ? path.dirname(dir) : dir;
}

/**
 * Pure core of `loadConfig`: parses `layers` (highest precedence first), marks the project-level
 * entries (and the untrusted ones: see `ResolveConfigOptions`), and merges them.
 */
export function resolveConfig(layers: readonly LayerText[], options: ResolveConfigOptions = {}): ConfigLoadResult {
  const base = path.resolve(options.cwd ?? process.cwd());
  const ctx = {
    env: options.env ?? process.env,
    workspaceFolder: options.cwd ?? process.cwd(),
    userHome: options.homedir ?? os.homedir(),
    projectRoot: options.projectDir ?? base,
  };
  const parsed: ParsedLayer[] = layers.map((l) => {
    if (l.kind === 'native' && l.error !== undefined) return { entries: [], diagnostics: [diagnostic('error', { source: l.scope, file: l.file }, l.error)] };
    return l.kind === 'native' ? parseNativeLayer(l.text, l.scope, l.file, ctx) : parseImportLayer(l.text, l.format, l.file, ctx);
  });
  layers.forEach((l, i) => {
    if (isProjectLayer(l, base)) markProjectEntries(parsed[i].entries, base, options);
  });
  const diagnostics = parsed.flatMap((p) => p.diagnostics);
  const ids = [...new Set(parsed.flatMap((p) => p.entries.map((e) => e.server.id)))].sort();
  const servers = ids.map((id) => mergeOne(id, parsed, diagnostics));
  const result: ConfigLoadResult = { servers, diagnostics: [...diagnostics, ...untrustedDiagnostic(servers)] };
  // host-wide settings: the highest layer that sets one wins
  const maxParallel = parsed.find((p) => p.host?.maxParallel !== undefined)?.host?.maxParallel;
  if (maxParallel !== undefined) result.host = { maxParallel };
  const serveNames = parsed.find((p) => p.host?.serveNames !== undefined)?.host?.serveNames;
  if (serveNames !== undefined) result.host = { ...result.host, serveNames };
  const registry = parsed.find((p) => p.host?.registry !== undefined)?.host?.registry;
  if (registry !== undefined) result.host = { ...result.host, registry };
  // The store: the highest of the user's own layers; a project's file (a cloned repository) must
  // not choose where the user's tokens go.
  const store = parsed.find((p, i) => p.host?.store !== undefined && !isProjectLayer(layers[i], base))?.host?.store;
  if (store !== undefined) result.host = { ...result.host, store };
  parsed.forEach((p, i) => {
    if (p.host?.store !== undefined && isProjectLayer(layers[i], base)) {
      result.diagnostics.push(diagnostic('warning', { source: 'project', file: layers[i].file, field: 'mcp.store' }, 'not read from a project\'s file (a repository must not choose where your tokens go): set it in your global config, a --config file or MCPWIRE_STORE'));
    }
  });
  // Names marked secret by any layer count in every entry: marking more can only hide more.
  const secretNames = [...new Set(parsed.flatMap((p) => p.host?.secretNames ?? []))];
  if (secretNames.length > 0) {
    result.host = { ...result.host, secretNames };
    for (const s of servers) s.config.secretNames = [...new Set([...(s.config.secretNames ?? []), ...secretNames])];
  }
  return result;
}

function isProjectLayer(l: LayerText, base: string): boolean {
  if (l.project !== undefined) return l.project;
  if (l.kind === 'native') return l.scope === 'project';
  const rel = path.relative(base, path.resolve(base, l.file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Sets `project` on every usable entry of a project layer, and `untrusted` where trust says no. */
function markProjectEntries(entries: LayerEntry[], base: string, options: ResolveConfigOptions): void {
  const project = options.projectDir ?? base;
  const trust = options.trust ?? 'ask';
  for (const { server, disableOnly } of entries) {
    if (disableOnly || server.error !== undefined) continue;
    server.project = project;
    if (trust === 'all') continue;
    if (trust !== 'ask') {
      if (!trust.map((d) => path.resolve(base, d)).includes(project)) server.untrusted = { project, changed: false };
      continue;
    }
    const file = path.relative(base, server.file).split(path.sep).join('/');
    const { ok, known } = storeAllows(options.trustStore, project, serverFingerprint(server, base), server.id, file);
    if (!ok) server.untrusted = { project, changed: known };
  }
}

function mergeOne(id: string, parsed: ParsedLayer[], diagnostics: ConfigDiagnostic[]): ResolvedServer {
  const entries = parsed.map((p) => p.entries.find((e) => e.server.id === id)).filter((e): e is LayerEntry => e !== undefined);
  const top = entries[0];
  if (!top.disableOnly) return top.server;
  const below = entries.find((e) => !e.disableOnly);
  if (below === undefined) {
    diagnostics.push(diagnostic('warning', { source: top.server.source, file: top.server.file, serverId: id }, 'disables a server that no lower layer defines'));
    return top.server;
  }
  return { ...below.server, source: top.server.source, file: top.server.file, enabled: false };
}
