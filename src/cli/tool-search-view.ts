/**
 * `mcpwire tools --search "<words>" [--limit N] [--json]`: the configured servers' tools ranked
 * by the host's tool search (docs/host.md, "Tool search"), best first. People get one line per
 * tool — score, `server/tool`, the first line of its description fitted to the terminal — and
 * `--json` an array of `{ server, tool, name, score, description }` (`name`: the host's public
 * name; `tool`: the server's own, what `mcpwire call <id> <tool>` takes).
 */
import { searchCatalog, type McpHost } from '../host-api.js';
import { UsageError } from './args.js';
import { truncate } from './layout.js';
import { outputWidth, printJson, safeText } from './output.js';

/** One entry of `tools --search --json`. */
export interface FoundTool {
  server: string;
  tool: string;
  name: string;
  score: number;
  description: string;
}

/** The whole number of `--limit` (1 to 50; default 10). */
export function searchLimit(v: string | undefined): number {
  if (v === undefined) return 10;
  const n = /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= 50)) throw new UsageError(`--limit: a whole number from 1 to 50 (got "${v}")`);
  return n;
}

/** Prints the ranked tools; the exit code (1 when nothing matched). */
export async function printSearch(host: McpHost, words: string, options: { limit: number; server?: string; json?: boolean }): Promise<number> {
  if (words.trim() === '') throw new UsageError('--search needs words ("mcpwire tools --search \\"take a screenshot\\"")');
  const hits = await searchCatalog(host.catalog, words, { limit: options.limit, ...(options.server !== undefined ? { servers: [options.server] } : {}) });
  const found = hits.map((h): FoundTool => ({ server: h.server, tool: h.tool, name: h.name, score: h.score, description: host.catalog.byName.get(h.name)?.tool.description ?? '' }));
  if (options.json) {
    printJson(found);
    return 0;
  }
  if (found.length === 0) {
    process.stdout.write(`no tool matches "${safeText(words, 200)}"\n`);
    return 1;
  }
  const width = Math.max(40, outputWidth());
  const lines = found.map((f) => {
    const first = safeText(f.description.split('\n')[0] ?? '', 500);
    return truncate(`${f.score.toFixed(2).padStart(7)}  ${safeText(f.server, 64)}/${safeText(f.tool, 128)}${first ? `  ${first}` : ''}`, width);
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
