/**
 * Shared by `mcp remove`, `mcp enable` and `mcp disable`: how server `id` looks in the merged
 * config (all layers, and the import files when asked), for the hints these commands print
 * ("still defined in the global config", "defined in the project config, use --scope project").
 */
import { loadConfig, type ResolvedServer } from '../host-api.js';
import { pathOptions, type ConfigFlags } from './config-target.js';

/** The effective entry for `id` (quiet: prints no diagnostics). Undefined with `--config`. */
export async function effectiveEntry(flags: ConfigFlags, id: string, withImports = flags.imports === true): Promise<ResolvedServer | undefined> {
  if (flags.config !== undefined) return undefined;
  const result = await loadConfig({ ...pathOptions(), imports: withImports });
  return result.servers.find((s) => s.id === id);
}

/** Human name of where an entry lives. */
export function whereLabel(s: ResolvedServer): string {
  if (s.source === 'project' || s.source === 'global') return `${s.source} config ${s.file}`;
  return `imported config ${s.file}`;
}
