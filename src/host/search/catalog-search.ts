/**
 * Tool search over a host's live catalog: the index (`tool-index.ts`) is made on the first
 * search and brought in step with the catalog whenever the catalog object changed since — the
 * host replaces it on every change (a server's `list_changed`, a reconnect, add/remove/reload, a
 * server going down), so a search always sees the tools the model could call now. Also runs the
 * search tool of the agent mode (`agent-tools.ts`).
 *
 * The host's own resource and prompt tools (`mcp_resources_list`, …), while the host offers them,
 * are indexed too, as tools of the server `HOST_TOOLS_SERVER`: in the agent mode they are found
 * and called like any other instead of being listed beside the two search tools.
 */
import { OUTCOME_CODES, typedResult, type HostCallResult } from '../outcome.js';
import { hostToolError } from '../host-tool-results.js';
import type { ToolCatalog } from '../tools.js';
import { AGENT_SEARCH_LIMIT, HOST_TOOLS_SERVER, parseSearchArgs, searchToolResult } from './agent-tools.js';
import type { IndexedTool } from './documents.js';
import type { ToolIndex, ToolSearchHit, ToolSearchOptions } from './tool-index.js';

/** What the search reads from the host. */
export interface CatalogSource {
  catalog(): ToolCatalog;
  /** The title (or name) a server introduced itself with, while it is connected. */
  serverTitle(id: string): string | undefined;
  /** The host's own tools offered to a model now that search should find (none when left out). */
  hostTools?(): readonly { name: string; description: string; parameters: Record<string, unknown> }[];
}

export class CatalogSearch {
  private index: Promise<ToolIndex> | undefined;
  private synced: ToolCatalog | undefined;
  private syncedHost = '';

  constructor(private readonly source: CatalogSource) {}

  /** The best matches of `query` among the tools offered to a model now (see `ToolSearchOptions`). */
  async search(query: string, options: ToolSearchOptions = {}): Promise<ToolSearchHit[]> {
    this.index ??= import('./tool-index.js').then((m) => m.createToolIndex()); // the index loads on the first search
    const index = await this.index;
    const catalog = this.source.catalog();
    const host = this.source.hostTools?.() ?? [];
    const hostKey = host.map((d) => d.name).join(' ');
    if (catalog !== this.synced || hostKey !== this.syncedHost) {
      const entries: IndexedTool[] = catalog.tools.map((tool) => ({ tool, original: catalog.byName.get(tool.name)?.tool, serverTitle: this.source.serverTitle(tool.server) }));
      for (const d of host) entries.push({ tool: { name: d.name, description: d.description, parameters: d.parameters, server: HOST_TOOLS_SERVER, tool: d.name, annotations: { readOnlyHint: true } }, original: { name: d.name, description: d.description, inputSchema: d.parameters as { type: 'object' } }, serverTitle: 'MCP host: resources and prompts of the connected servers' });
      index.sync(entries);
      this.synced = catalog;
      this.syncedHost = hostKey;
    }
    return index.search(query, options);
  }

  /** The agent mode's search tool: arguments checked, the hits as its result. Never throws. */
  async runSearchTool(args: unknown): Promise<HostCallResult> {
    const parsed = parseSearchArgs(args);
    if (!parsed.ok) return typedResult(hostToolError(parsed.error), 'invalid_arguments', OUTCOME_CODES.invalidArguments);
    const { query, limit, servers } = parsed.value;
    try {
      const hits = await this.search(query, { limit: limit ?? AGENT_SEARCH_LIMIT, ...(servers !== undefined ? { servers } : {}) });
      return typedResult(searchToolResult(query, hits), 'ok', OUTCOME_CODES.ok);
    } catch (err) {
      return typedResult(hostToolError(`tool search failed: ${err instanceof Error ? err.message : String(err)}`), 'unavailable', 'MCPWIRE_TOOL_SEARCH_UNAVAILABLE');
    }
  }
}

/**
 * One search over a catalog held elsewhere (a host's `catalog`, or the daemon's view of one):
 * a fresh index, the same ranking and filters as `host.searchTools`.
 */
export async function searchCatalog(catalog: ToolCatalog, query: string, options: ToolSearchOptions = {}): Promise<ToolSearchHit[]> {
  return new CatalogSearch({ catalog: () => catalog, serverTitle: () => undefined }).search(query, options);
}
