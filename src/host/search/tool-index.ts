/**
 * The tool-search index: BM25 ranking (minisearch, loaded on first use so `mcpwire/host` stays
 * light) over the documents of `documents.ts`, kept in step with the host's catalog by
 * difference: `sync()` adds new tools, drops gone ones and re-indexes a tool whose text changed,
 * so a `list_changed`, a reconnect or a reload costs the changed tools only.
 *
 * The engine sees terms, not text: a tool's fields and a query are turned into terms here
 * (`documents.ts`, `vocabulary.ts`, `words.ts`) and handed over as they are.
 *
 * Ranking: every field counts, a match in the tool's name counts most, then its title (`BOOST`);
 * a query's words are stemmed like the index's and marked with their synonym groups (`words.ts`),
 * so a tool with the very word outranks one with a synonym; a word of five letters or more that
 * no tool holds as it is matches as a prefix (`screensh` → screenshot) — a fallback only: a
 * known word is not stretched into longer ones (`screen` does not find `screenshot`). No fuzzy matching: it costs ~10× per query at
 * 10,000 tools and an agent's queries have few typos. A tool matching more of the query's words
 * ranks above one matching fewer (`bestByWords`); template clones (the same tool offered by many
 * servers, a family of one server's near-identical tools) do not fill the top: each further one
 * matched like one above it weighs half as much. A query's most common terms are left out past
 * a budget (`vocabulary.ts`), which bounds the cost of one search in a large catalog. The
 * engine's scores are read from its postings (`postings.ts`: the same numbers as its `search()`,
 * without the objects it makes per matched tool).
 */
import type MiniSearch from 'minisearch';
import type { ToolAnnotations } from '../../mcp/types.js';
import { isModelVisible } from '../../mcp/ui-meta.js';
import { sameDocument, termDocument, termFields, toolDocument, type IndexedTool, type TermDocument, type ToolDocument } from './documents.js';
import { Vocabulary } from './vocabulary.js';
import { FIELD_BIT, hashOf, mix } from './kinds.js';
import { postingsOf, type Matches, type Postings } from './postings.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './limits.js';

/**
 * The engine reads terms made here, never text: a document's fields are term lists
 * (`termDocument`), passed through as they are; a query is its planned terms joined by spaces
 * (`Vocabulary.planQuery`).
 */
const asTerms = (v: unknown): string[] => (typeof v === 'string' ? (v === '' ? [] : v.split(' ')) : (v as string[]));
const passThrough = (v: unknown): string => v as string;
const asIs = (t: string): string => t;

/** Field weights of the ranking (see the module comment). */
export const BOOST: Readonly<Record<Exclude<keyof ToolDocument, 'id'>, number>> = { name: 3, title: 2, description: 1, params: 0.5, server: 0.7 };
const FIELDS = Object.keys(BOOST) as (keyof typeof BOOST)[];
/** Query words this long that no tool holds as they are match as a prefix (`screensh` → screenshot). */
const PREFIX_MIN = 5;

/** Default and largest number of hits of one search (limits.ts). */
export { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT };

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

type Engine = MiniSearch<TermDocument>;
let engineClass: Promise<typeof MiniSearch> | undefined;

/** Loads minisearch once (a dynamic import: only programs that search pay for it). */
function loadEngine(): Promise<typeof MiniSearch> {
  engineClass ??= import('minisearch').then((m) => m.default);
  return engineClass;
}

/** What the index holds of one tool. */
interface Indexed {
  entry: IndexedTool;
  /** The indexed text (to see what changed, and to count a dropped tool's terms out). */
  text: ToolDocument;
  /** The description's shape (`shapeOf`): alike results are told apart by it. */
  shape: number;
}

/** The search index over a catalog (see the module comment). Make one with `createToolIndex()`. */
export class ToolIndex {
  private readonly engine: Engine;
  private readonly tools = new Map<string, Indexed>();
  private readonly vocabulary = new Vocabulary();
  /** The engine's postings read directly (`postings.ts`); `undefined`: every search goes through the engine's `search()`. */
  private readonly postings: Postings | undefined;

  constructor(Engine: typeof MiniSearch, options: ToolIndexOptions = {}) {
    this.engine = new Engine<TermDocument>({
      fields: FIELDS,
      idField: 'id',
      stringifyField: passThrough,
      tokenize: asTerms,
      processTerm: asIs,
      searchOptions: { boost: BOOST, combineWith: 'OR', fuzzy: false },
    });
    this.postings = options.engineScoring === true ? undefined : postingsOf(this.engine, BOOST);
  }

  /** How the next search is scored: from the engine's postings (`postings.ts`), or through its `search()` (while it holds dropped tools' postings, or when its fields are not the expected ones). */
  get scoring(): 'postings' | 'engine' {
    return this.postings?.usable === true ? 'postings' : 'engine';
  }

  /** Tools indexed. */
  get size(): number {
    return this.tools.size;
  }

  /** Brings the index in step with `entries` (the catalog's tools offered to a model; app-only ones are left out here). */
  sync(entries: readonly IndexedTool[]): void {
    if (this.tools.size === 0) {
      // nothing to drop: the tools are indexed as they come (a name given twice: the last one's text)
      for (const e of entries) if (isModelVisible(e.original)) this.put(e.tool.name, e);
      return;
    }
    const next = new Map<string, IndexedTool>();
    for (const e of entries) if (isModelVisible(e.original)) next.set(e.tool.name, e);
    for (const [id, known] of [...this.tools]) {
      if (next.has(id)) continue;
      this.drop(known.text);
      this.tools.delete(id);
    }
    for (const [id, entry] of next) this.put(id, entry);
    // dropped tools leave postings in the engine until it is vacuumed; searches go through its
    // `search()` meanwhile (`postings.ts`)
    if (this.engine.dirtCount > 0) void this.engine.vacuum().catch(() => undefined);
  }

  /** Indexes one tool, or re-indexes it if its text changed. */
  private put(id: string, entry: IndexedTool): void {
    const text = toolDocument(entry);
    const known = this.tools.get(id);
    if (known !== undefined) {
      known.entry = entry;
      if (sameDocument(known.text, text)) return;
      this.drop(known.text);
    }
    const doc = termDocument(text);
    this.engine.add(doc);
    this.vocabulary.addFields(termFields(doc));
    const shape = shapeOf(doc);
    this.postings?.note(id, shape);
    if (known === undefined) this.tools.set(id, { entry, text, shape });
    else {
      known.text = text;
      known.shape = shape;
    }
  }

  /** Takes one tool out of the engine and the vocabulary. */
  private drop(text: ToolDocument): void {
    this.engine.discard(text.id);
    this.vocabulary.removeFields(termFields(termDocument(text)));
  }

  /** The best matches of `query`, best first (see `ToolSearchOptions`). */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT)));
    const servers = options.servers === undefined ? undefined : new Set(options.servers);
    const filter = servers === undefined && options.readOnly !== true ? undefined : (id: string) => {
      const e = this.tools.get(id)?.entry;
      if (e === undefined) return false;
      if (servers !== undefined && !servers.has(e.tool.server)) return false;
      return options.readOnly !== true || e.tool.annotations?.readOnlyHint === true;
    };
    const { terms, weights, words } = this.vocabulary.planQuery(query);
    if (terms.length === 0) return [];
    const boostTerm = (t: string): number => weights.get(t) ?? 1;
    const prefix = (t: string): boolean => t.length >= PREFIX_MIN && !t.startsWith('~') && this.vocabulary.count(t) === 0;
    const word = (t: string): number => words.get(t) ?? 0;
    let matches: Matches;
    if (this.postings?.usable === true) matches = this.postings.run({ terms, boost: boostTerm, prefix, word, filter });
    else {
      const results = this.engine.search(terms.join(' '), filter === undefined ? { boostTerm, prefix } : { boostTerm, prefix, filter: (r) => filter(r.id as string) });
      matches = engineMatches(results, word, this.tools);
    }
    return bestByWords(matches, limit).map((r) => hit(this.tools.get(r.id)!.entry, r.score));
  }
}

/** Options of a new index. */
export interface ToolIndexOptions {
  /** Score every query through the engine's `search()` instead of its postings (the same answers, slower: the proof that both agree). */
  engineScoring?: boolean;
}

type EngineResult = { id: unknown; score: number; terms: string[]; queryTerms: string[]; match: Record<string, string[]> };

/** The engine's results as `Matches`. */
function engineMatches(results: readonly EngineResult[], word: (term: string) => number, tools: ReadonlyMap<string, { shape: number }>): Matches {
  return {
    length: results.length,
    id: (i) => results[i]!.id as string,
    score: (i) => results[i]!.score,
    terms: (i) => results[i]!.queryTerms.length,
    words(i) {
      let mask = 0;
      for (const t of results[i]!.queryTerms) mask |= 1 << word(t);
      let matched = 0;
      for (; mask !== 0; mask &= mask - 1) matched++;
      return matched;
    },
    kind(i) {
      const r = results[i]!;
      let kind = tools.get(r.id as string)?.shape ?? 0;
      // `terms` are the keys of `match` (the engine's result lists them): no walk over the object's keys
      for (const term of r.terms) {
        let fields = 32;
        for (const field of r.match[term]!) fields |= FIELD_BIT[field] ?? 0;
        kind = (kind + mix(hashOf(term) ^ fields)) | 0;
      }
      return kind & 0x3fffffff;
    },
  };
}

/** Each further result the query matches the same way as one ranked above it weighs this much less (see `bestByWords`). */
export const ALIKE_DECAY = 0.5;

type Ranked = { id: string; score: number };

/**
 * The `limit` best results when a query's matched *words* are counted, alike results spread out.
 *
 * Words: minisearch multiplies a tool's score by the number of query terms it matched, and a
 * word's stem and its synonym mark are two terms, so one word found as itself would count as
 * two words found. Here the score is divided back and multiplied by the number of distinct words
 * matched.
 *
 * Alike results: tools the query matches the same way — the same terms in the same fields — are
 * told apart by their texts' lengths only: the same tool offered by many servers, or a family of
 * one server's near-identical tools (`approve_alert`, `archive_alert`, …). Five of them would
 * fill the top with clones of one answer; a user wants different tools. So each further result
 * matched like one ranked above it weighs `ALIKE_DECAY` less than the one before (the second
 * half, the third a quarter…): the best of each kind keeps its score, a clearly better clone
 * still ranks above a weak different match, and the clones follow the other kinds. Ties go by
 * name, so the answer is stable.
 */
function bestByWords(results: Matches, limit: number): Ranked[] {
  const kinds = new Map<number, Ranked[]>();
  // the best result of each kind keeps its score, so a result below the `limit` best of them
  // cannot make the top: it is passed over before its kind is even worked out
  const leaders: { kind: number; score: number; id: string }[] = [];
  for (let i = 0; i < results.length; i++) {
    // the engine lists results by its score, best first, and a result's score here is never
    // above the engine's (matched words ≤ matched terms): past the `limit` best kinds, none can follow
    const engineScore = results.score(i);
    if (leaders.length === limit && engineScore < leaders[limit - 1]!.score) break;
    const score = (engineScore / Math.max(1, results.terms(i))) * results.words(i);
    if (leaders.length === limit && score < leaders[limit - 1]!.score) continue;
    const id = results.id(i);
    // a small integer key naming how it was matched and its description's shape (two kinds
    // sharing a number, about once in a billion, only rank as alike)
    const kind = results.kind(i);
    let alike = kinds.get(kind);
    if (alike === undefined) kinds.set(kind, (alike = []));
    else if (alike.length === limit && !ahead(score, id, alike[limit - 1]!)) continue;
    const item = { id, score };
    insertTop(alike, item, limit);
    if (alike[0] !== item) continue;
    const was = leaders.findIndex((l) => l.kind === kind);
    if (was >= 0) leaders.splice(was, 1);
    insertTop(leaders, { kind, score, id }, limit);
  }
  const top: Ranked[] = [];
  for (const alike of kinds.values()) {
    let weight = 1;
    for (const r of alike) {
      insertTop(top, weight === 1 ? r : { id: r.id, score: r.score * weight }, limit);
      weight *= ALIKE_DECAY;
    }
  }
  return top;
}

/**
 * A number naming what a tool's description says apart from the words of its own name and
 * server: the same for template clones ("Approves the alert in Acme1." / "Archives the alert in
 * Acme1."; the same tool offered by many servers), different for hand-written descriptions.
 */
function shapeOf(doc: TermDocument): number {
  let shape = 0;
  for (const t of doc.description) if (!doc.name.includes(t) && !doc.server.includes(t)) shape = (shape + mix(hashOf(t))) | 0;
  return shape;
}

/** Puts `item` into `top` (best first, at most `limit`) if it belongs there. */
function insertTop<T extends Ranked>(top: T[], item: T, limit: number): void {
  if (top.length === limit && !ahead(item.score, item.id, top[limit - 1]!)) return;
  let at = top.length === limit ? limit - 1 : top.length;
  while (at > 0 && ahead(item.score, item.id, top[at - 1]!)) at--;
  if (top.length === limit) top.pop();
  top.splice(at, 0, item);
}

const ahead = (score: number, id: string, than: { id: string; score: number }): boolean => score > than.score || (score === than.score && id < than.id);

function hit(e: IndexedTool, score: number): ToolSearchHit {
  const t = e.tool;
  const out: ToolSearchHit = { name: t.name, server: t.server, tool: t.tool, score: Math.round(score * 1000) / 1000, description: t.description, parameters: t.parameters };
  if (t.annotations !== undefined) out.annotations = t.annotations;
  return out;
}

/** A new, empty index (loads the search engine on first call). */
export async function createToolIndex(options: ToolIndexOptions = {}): Promise<ToolIndex> {
  return new ToolIndex(await loadEngine(), options);
}
