/**
 * Picking configured servers by id for the CLI, with errors that say what to do: an unknown id
 * gets "did you mean" from the configured ids, and an id defined only in an import file
 * (`.mcp.json`, Cursor, VS Code, Claude Desktop — read only with `--imports`) says to add
 * `--imports`. Also the connect-timeout hint that names `--timeout-ms`.
 */
import { loadConfig, type ConfigLoadResult, type ResolvedServer } from '../host-api.js';
import { CliFailure, findServer, pathOptions, type ConfigFlags } from './config-target.js';
import { safeText } from './output.js';
import { didYouMean } from './suggest.js';

/** `findServer`, with a "did you mean" and the `--imports` hint when the id is unknown. */
export async function pickServer(config: ConfigLoadResult, id: string, flags: ConfigFlags): Promise<ResolvedServer> {
  try {
    return findServer(config, id);
  } catch (err) {
    if (!(err instanceof CliFailure)) throw err;
    const known = config.servers.map((s) => s.id);
    if (flags.imports !== true && flags.config === undefined) {
      const withImports = await loadConfig({ ...pathOptions(), imports: true }).catch(() => undefined);
      const found = withImports?.servers.find((s) => s.id === id);
      if (found !== undefined) {
        throw new CliFailure(`unknown server "${safeText(id, 64)}": it is defined only in an import file (${found.file}), which is read only with --imports: run the command again with --imports`);
      }
    }
    const hint = didYouMean(id, known);
    throw new CliFailure(`unknown server "${safeText(id, 64)}"${hint}${known.length ? ` (configured: ${known.join(', ')})` : ' (no MCP servers configured; add one with "mcpwire mcp add")'}`);
  }
}

/** Adds what to do to a timeout text: name the option that changes the budget. */
export function timeoutHint(message: string): string {
  if (!/timed out/i.test(message) || /--timeout-ms/.test(message)) return message;
  return `${message} (give it longer with --timeout-ms <ms>)`;
}
