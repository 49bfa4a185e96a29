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
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { diagnostic } from './diagnostics.js';
import type { ImportFile } from './imports.js';
import { parseImportLayer, parseNativeLayer, type LayerEntry, type ParsedLayer } from './layer.js';
import { defaultImportFiles, globalConfigPath, projectConfigPath, type PathOptions } from './paths.js';
import type { ConfigDiagnostic, ConfigLoadResult, ConfigSource, ResolvedServer } from './types.js';

/** Options of `loadConfig`; paths default from `PathOptions`. */
export interface LoadConfigOptions extends PathOptions {
  /** Overrides the global file path. */
  globalPath?: string;
  /** Overrides the project file path. */
  projectPath?: string;
  /** Import files, highest precedence first; `false` reads none. Default `defaultImportFiles`. */
  imports?: ImportFile[] | false;
}

/** The text of one layer, already read. */
export type LayerText =
  | { kind: 'native'; scope: 'project' | 'global'; file: string; text: string }
  | { kind: 'import'; file: string; format: ImportFile['format']; text: string };

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
  const project = options.projectPath ?? projectConfigPath(options);
  const global = options.globalPath ?? globalConfigPath(options);
  const projectText = await read(project, 'project');
  if (projectText !== undefined) layers.push({ kind: 'native', scope: 'project', file: project, text: projectText });
  const globalText = await read(global, 'global');
  if (globalText !== undefined) layers.push({ kind: 'native', scope: 'global', file: global, text: globalText });
  const imports = options.imports === false ? [] : (options.imports ?? defaultImportFiles(options));
  for (const imp of imports) {
    const text = await read(imp.path, `import:${imp.path}`);
    if (text !== undefined) layers.push({ kind: 'import', file: imp.path, format: imp.format, text });
  }
  const result = resolveConfig(layers, options);
  return { servers: result.servers, diagnostics: [...diagnostics, ...result.diagnostics] };
}

/** Pure core of `loadConfig`: parses `layers` (highest precedence first) and merges them. */
export function resolveConfig(layers: readonly LayerText[], options: PathOptions = {}): ConfigLoadResult {
  const ctx = {
    env: options.env ?? process.env,
    workspaceFolder: options.cwd ?? process.cwd(),
    userHome: options.homedir ?? os.homedir(),
  };
  const parsed: ParsedLayer[] = layers.map((l) =>
    l.kind === 'native' ? parseNativeLayer(l.text, l.scope, l.file) : parseImportLayer(l.text, l.format, l.file, ctx),
  );
  const diagnostics = parsed.flatMap((p) => p.diagnostics);
  const ids = [...new Set(parsed.flatMap((p) => p.entries.map((e) => e.server.id)))].sort();
  const servers = ids.map((id) => mergeOne(id, parsed, diagnostics));
  return { servers, diagnostics };
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
