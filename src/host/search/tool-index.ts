/**
 * The tool-search index: BM25 ranking (minisearch, loaded on first use so `mcpwire/host` stays
 * light) over the documents of `documents.ts`, kept in step with the host's catalog by
 * difference: `sync()` adds new tools, drops gone ones and re-indexes a tool whose text changed,
 * so a `list_changed`, a reconnect or a reload costs the changed tools only.
 *
 * Ranking: every field counts, a match in the tool's name counts most, then its title (`BOOST`);
 * a query's words are stemmed like the index's and marked with their synonym groups (`words.ts`),
 * so a tool with the very word outranks one with a synonym; words of five letters or more also
 * match as a prefix (`screensh` → screenshot). No fuzzy matching: it costs ~10× per query at
 * 10,000 tools and an agent's queries have few typos. A tool matching more of the query's terms
 * ranks above one matching fewer (minisearch multiplies by the number of matched terms).
 */
import type MiniSearch from 'minisearch';
import type { ToolAnnotations } from '../../mcp/types.js';
import { isModelVisible } from '../../mcp/ui-meta.js';
import { documentKey, toolDocument, type IndexedTool, type ToolDocument } from './documents.js';
import { splitWords, termsOf } from './words.js';

/** Field weights of the ranking (see the module comment). */
export const BOOST: Readonly<Record<Exclude<keyof ToolDocument, 'id'>, number>> = { name: 3, title: 2, description: 1, params: 0.5, server: 0.7 };
const FIELDS = Object.keys(BOOST) as (keyof typeof BOOST)[];
/** Query words this long also match as a prefix (`screensh` → screenshot). */
const PREFIX_MIN = 5;

/** Default and largest number of hits of one search. */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

/** Options of one search. */
export interface ToolSearchOptions {
  /** At most this many hits (default 10, at most 50). */
  limit?: number;
  /** Only tools of these servers (ids). */
  servers?: readonly string[];
  /** Only tools whose server claims `readOnlyHint: true` (a claim: it narrows, it grants nothing). */
  readOnly?: boolean;
}

/** One tool found, best first. */
export interface ToolSearchHit {
  /** The public name: what `callTool` (or the call tool) takes. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** Relevance (BM25-based; only the order means something). */
  score: number;
  /** The adapted description (`MCP <server>/<tool>` then the server's text). */
  description: string;
  /** The full input schema, as the host lists it. */
  parameters: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

type Engine = MiniSearch<ToolDocument>;
let engineClass: Promise<typeof MiniSearch> | undefined;

/** Loads minisearch once (a dynamic import: only programs that search pay for it). */
function loadEngine(): Promise<typeof MiniSearch> {
  engineClass ??= import('minisearch').then((m) => m.default);
  return engineClass;
}

/** The search index over a catalog (see the module comment). Make one with `createToolIndex()`. */
export class ToolIndex {
  private readonly engine: Engine;
  private readonly keys = new Map<string, string>();
  private readonly entries = new Map<string, IndexedTool>();

  constructor(Engine: typeof MiniSearch) {
    this.engine = new Engine<ToolDocument>({
      fields: FIELDS,
      idField: 'id',
      tokenize: splitWords,
      processTerm: termsOf,
      searchOptions: { boost: BOOST, combineWith: 'OR', prefix: (t) => t.length >= PREFIX_MIN && !t.startsWith('~'), fuzzy: false },
    });
  }

  /** Tools indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** Brings the index in step with `entries` (the catalog's tools offered to a model; app-only ones are left out here). */
  sync(entries: readonly IndexedTool[]): void {
    const next = new Map<string, IndexedTool>();
    for (const e of entries) if (isModelVisible(e.original)) next.set(e.tool.name, e);
    for (const id of [...this.keys.keys()]) {
      if (next.has(id)) continue;
      this.engine.discard(id);
      this.keys.delete(id);
      this.entries.delete(id);
    }
    for (const [id, entry] of next) {
      const doc = toolDocument(entry);
      const key = documentKey(doc);
      this.entries.set(id, entry);
      if (this.keys.get(id) === key) continue;
      if (this.keys.has(id)) this.engine.discard(id);
      this.engine.add(doc);
      this.keys.set(id, key);
    }
  }

  /** The best matches of `query`, best first (see `ToolSearchOptions`). */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT)));
    const servers = options.servers === undefined ? undefined : new Set(options.servers);
    const filter = servers === undefined && options.readOnly !== true ? undefined : (r: { id: unknown }) => {
      const e = this.entries.get(r.id as string);
      if (e === undefined) return false;
      if (servers !== undefined && !servers.has(e.tool.server)) return false;
      return options.readOnly !== true || e.tool.annotations?.readOnlyHint === true;
    };
    const words = splitWords(query.slice(0, 1000));
    if (!words.some((w) => termsOf(w) !== null)) return [];
    const results = this.engine.search(words.join(' '), filter === undefined ? {} : { filter });
    results.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return results.slice(0, limit).map((r) => hit(this.entries.get(r.id as string)!, r.score));
  }
}

function hit(e: IndexedTool, score: number): ToolSearchHit {
  const t = e.tool;
  const out: ToolSearchHit = { name: t.name, server: t.server, tool: t.tool, score: Math.round(score * 1000) / 1000, description: t.description, parameters: t.parameters };
  if (t.annotations !== undefined) out.annotations = t.annotations;
  return out;
}

/** A new, empty index (loads the search engine on first call). */
export async function createToolIndex(): Promise<ToolIndex> {
  return new ToolIndex(await loadEngine());
}
