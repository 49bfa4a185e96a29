/**
 * A query's scores read straight from the engine's postings: the same numbers minisearch's
 * `search()` gives (its BM25+ per field, field boosts, term boosts, prefix weights, summed in its
 * order, times the number of query terms matched), without what its `search()` makes around
 * them — a map and an object per term and matched tool, a `match` object per result, a merge of
 * the per-term maps and a sort of every result object. At 10,000 tools those were most of a
 * query's time. Here a query's matches are numbers in typed arrays indexed by the engine's
 * short document ids, reused from one query to the next.
 *
 * It reads minisearch 7's index fields (`_index`, `_fieldIds`, `_fieldLength`,
 * `_avgFieldLength`, `_documentCount`, `_documentIds`, `_nextId`): `postingsOf` checks their
 * shape and answers `undefined` when they are not as expected, and the index then searches
 * through the engine's `search()`. It is used only while the engine holds no discarded
 * tool's postings (`dirtCount` 0): the engine counts those out of a term's IDF one by one as it
 * meets them, a detail not worth copying — after a change the index vacuums the engine, and
 * searches through `search()` until that is done. test/host/search/ proves both ways give the
 * same lists and scores.
 */
import { FIELD_BIT, hashOf, mix } from './kinds.js';

type FieldPostings = Map<number, Map<number, number>>;

/** The engine's index, as read here. */
interface EngineIndex {
  _index: { get(term: string): FieldPostings | undefined; atPrefix(prefix: string): Iterable<[string, FieldPostings]> };
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _documentIds: Map<number, unknown>;
  _idToShortId: Map<string, number>;
  _nextId: number;
  dirtCount: number;
}

/** minisearch's defaults, which the index does not change: BM25+ `k`, `b`, `d` and the weight of a prefix match. */
const K = 1.2;
const B = 0.7;
const D = 0.5;
const PREFIX_WEIGHT = 0.375;

/** One query's matched tools, in the engine's order (best first): what the ranking reads of each. */
export interface Matches {
  readonly length: number;
  /** The tool's id (its public name). */
  id(i: number): string;
  /** The engine's score (BM25+ summed, times the query terms matched). */
  score(i: number): number;
  /** How many of the query's terms it matched. */
  terms(i: number): number;
  /** How many of the query's words it matched (a word's stem and synonym marks are one word). */
  words(i: number): number;
  /** A number naming how it was matched (which terms, in which fields) and its description's shape (`bestByWords`). */
  kind(i: number): number;
}

/** A query as the scorer takes it. */
export interface ScoredQuery {
  terms: readonly string[];
  /** A term's boost (how many times it came). */
  boost(term: string): number;
  /** Whether a term also matches as a prefix. */
  prefix(term: string): boolean;
  /** The word (0…30) each term came from. */
  word(term: string): number;
  /** Only tools passing this (by id), when given. */
  filter?: (id: string) => boolean;
}

/** Whether `engine` looks like the minisearch index this module reads. */
function readable(engine: unknown): engine is EngineIndex {
  const e = engine as Partial<EngineIndex> | null;
  return (
    typeof e === 'object' && e !== null && typeof e._index?.get === 'function' && typeof e._index.atPrefix === 'function' && typeof e._fieldIds === 'object' &&
    e._fieldLength instanceof Map && Array.isArray(e._avgFieldLength) && typeof e._documentCount === 'number' && e._documentIds instanceof Map && e._idToShortId instanceof Map &&
    typeof e._nextId === 'number' && typeof e.dirtCount === 'number'
  );
}

/** The scorer over `engine`'s postings, or `undefined` when its fields are not the expected ones. */
export function postingsOf(engine: unknown, boosts: Readonly<Record<string, number>>): Postings | undefined {
  if (!readable(engine)) return undefined;
  for (const field of Object.keys(boosts)) if (typeof engine._fieldIds[field] !== 'number') return undefined;
  return new Postings(engine, boosts);
}

/** Scores queries over one engine's postings (see the module comment). Not re-entrant: one query at a time. */
export class Postings implements Matches {
  private readonly fields: { bit: number; id: number; boost: number }[];
  private size = 0;
  /** Per short id: the summed score, this term's score, query terms matched, words matched (mask), the match kind, this derived term's fields. */
  private sum = new Float64Array(0);
  private termSum = new Float64Array(0);
  private termCount = new Int32Array(0);
  private wordMask = new Int32Array(0);
  private kinds = new Int32Array(0);
  private fieldMask = new Int32Array(0);
  private kindQuery = new Int32Array(0);
  /** The query (`seenQuery`) and the term (`seenTerm`, `seenDerived`) that last met a short id. */
  private seenQuery = new Int32Array(0);
  private seenTerm = new Int32Array(0);
  private seenDerived = new Int32Array(0);
  private queryMark = 0;
  private termMark = 0;
  private derivedMark = 0;
  /** The short ids met by this query, this term, this derived term. */
  private matched = new Int32Array(0);
  private matchedCount = 0;
  private inTerm = new Int32Array(0);
  private inTermCount = 0;
  private inDerived = new Int32Array(0);
  private inDerivedCount = 0;
  /** The result, best first: short ids and their engine scores. */
  private order = new Int32Array(0);
  private orderCount = 0;
  private final = new Float64Array(0);
  /** Per short id, kept as tools are added (`note`): the tool's id, its description's shape, its fields' lengths. */
  private ids: string[] = [];
  private shapes = new Int32Array(0);
  private lengths = new Float64Array(0);

  constructor(
    private readonly engine: EngineIndex,
    boosts: Readonly<Record<string, number>>,
  ) {
    this.fields = Object.keys(boosts).map((f) => ({ bit: FIELD_BIT[f] ?? 0, id: engine._fieldIds[f]!, boost: boosts[f] || 1 }));
    this.width = Object.keys(engine._fieldIds).length;
  }

  /** Fields per tool in `lengths`. */
  private readonly width: number;

  /** Notes a tool the engine just added: its short id's id, shape and field lengths. */
  note(id: string, shape: number): void {
    const doc = this.engine._idToShortId.get(id);
    const lengths = doc === undefined ? undefined : this.engine._fieldLength.get(doc);
    if (doc === undefined || lengths === undefined) return;
    if (doc >= this.shapes.length) {
      const size = Math.max(doc + 1, this.shapes.length * 2, 64);
      const shapes = new Int32Array(size);
      shapes.set(this.shapes);
      this.shapes = shapes;
      const all = new Float64Array(size * this.width);
      all.set(this.lengths);
      this.lengths = all;
    }
    this.ids[doc] = id;
    this.shapes[doc] = shape;
    for (let f = 0; f < this.width; f++) this.lengths[doc * this.width + f] = lengths[f] ?? 0;
  }

  /** Whether the engine's postings are clean (no discarded tool's left): only then are these scores the engine's. */
  get usable(): boolean {
    return this.engine.dirtCount === 0;
  }

  /** Scores `query`; the answer is this object, valid until the next call. */
  run(query: ScoredQuery): Matches {
    this.grow(this.engine._nextId);
    this.queryMark++;
    this.matchedCount = 0;
    const derivedSeen = new Set<string>();
    for (const term of query.terms) {
      this.termMark++;
      this.inTermCount = 0;
      const termBoost = query.boost(term);
      this.derived(term, 1, termBoost, this.engine._index.get(term), derivedSeen);
      if (query.prefix(term)) {
        for (const [derived, data] of this.engine._index.atPrefix(term)) {
          const distance = derived.length - term.length;
          if (!distance) continue;
          const weight = (PREFIX_WEIGHT * derived.length) / (derived.length + 0.3 * distance);
          this.derived(derived, weight, termBoost, data, derivedSeen);
        }
      }
      // the engine sums each term's scores apart, then adds them up term by term (its OR)
      const bit = 1 << query.word(term);
      for (let j = 0; j < this.inTermCount; j++) {
        const doc = this.inTerm[j]!;
        if (this.seenQuery[doc] !== this.queryMark) {
          this.seenQuery[doc] = this.queryMark;
          this.sum[doc] = this.termSum[doc]!;
          this.termCount[doc] = 1;
          this.wordMask[doc] = bit;
          this.matched[this.matchedCount++] = doc;
        } else {
          this.sum[doc] = this.sum[doc]! + this.termSum[doc]!;
          this.termCount[doc]!++;
          this.wordMask[doc]! |= bit;
        }
      }
    }
    const order = this.order;
    let n = 0;
    for (let j = 0; j < this.matchedCount; j++) {
      const doc = this.matched[j]!;
      if (query.filter !== undefined && !query.filter(this.ids[doc]!)) continue;
      this.final[doc] = this.sum[doc]! * (this.termCount[doc] || 1);
      order[n++] = doc;
    }
    this.orderCount = n;
    sortByScore(order, this.final, 0, n - 1);
    return this;
  }

  /** Adds one index term's postings (the query term itself, or a longer term it is a prefix of) to the current term's scores and the match kinds. */
  private derived(term: string, termWeight: number, termBoost: number, data: FieldPostings | undefined, seen: Set<string>): void {
    if (data === undefined) return;
    const e = this.engine;
    this.derivedMark++;
    this.inDerivedCount = 0;
    for (const f of this.fields) {
      const freqs = data.get(f.id);
      if (freqs === undefined) continue;
      const matching = freqs.size;
      const avg = e._avgFieldLength[f.id]!;
      const idf = Math.log(1 + (e._documentCount - matching + 0.5) / (matching + 0.5));
      const weight = termWeight * termBoost * f.boost;
      const lengths = this.lengths;
      const width = this.width;
      for (const [doc, tf] of freqs) {
        const length = lengths[doc * width + f.id]!;
        const score = weight * (idf * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / avg))));
        if (this.seenTerm[doc] !== this.termMark) {
          this.seenTerm[doc] = this.termMark;
          this.termSum[doc] = score;
          this.inTerm[this.inTermCount++] = doc;
        } else this.termSum[doc] = this.termSum[doc]! + score;
        if (this.seenDerived[doc] !== this.derivedMark) {
          this.seenDerived[doc] = this.derivedMark;
          this.fieldMask[doc] = f.bit;
          this.inDerived[this.inDerivedCount++] = doc;
        } else this.fieldMask[doc]! |= f.bit;
      }
    }
    // a result's match kind counts each matched index term once, with all its fields
    if (seen.has(term)) return;
    seen.add(term);
    const h = hashOf(term);
    for (let j = 0; j < this.inDerivedCount; j++) {
      const doc = this.inDerived[j]!;
      const add = mix(h ^ (32 | this.fieldMask[doc]!));
      // the first index term meeting a tool in this query starts its kind
      if (this.kindQuery[doc] === this.queryMark) this.kinds[doc] = (this.kinds[doc]! + add) | 0;
      else {
        this.kindQuery[doc] = this.queryMark;
        this.kinds[doc] = add;
      }
    }
  }

  private grow(n: number): void {
    if (n <= this.size) return;
    const size = Math.max(n, this.size * 2, 64);
    this.sum = new Float64Array(size);
    this.termSum = new Float64Array(size);
    this.final = new Float64Array(size);
    this.termCount = new Int32Array(size);
    this.wordMask = new Int32Array(size);
    this.kinds = new Int32Array(size);
    this.kindQuery = new Int32Array(size);
    this.fieldMask = new Int32Array(size);
    this.seenQuery = new Int32Array(size);
    this.seenTerm = new Int32Array(size);
    this.seenDerived = new Int32Array(size);
    this.matched = new Int32Array(size);
    this.order = new Int32Array(size);
    this.inTerm = new Int32Array(size);
    this.inDerived = new Int32Array(size);
    this.queryMark = this.termMark = this.derivedMark = 0;
    this.size = size;
  }

  get length(): number {
    return this.orderCount;
  }

  id(i: number): string {
    return this.ids[this.order[i]!]!;
  }

  score(i: number): number {
    return this.final[this.order[i]!]!;
  }

  terms(i: number): number {
    return this.termCount[this.order[i]!]!;
  }

  words(i: number): number {
    let mask = this.wordMask[this.order[i]!]!;
    let n = 0;
    for (; mask !== 0; mask &= mask - 1) n++;
    return n;
  }

  kind(i: number): number {
    const doc = this.order[i]!;
    return ((this.shapes[doc]! + this.kinds[doc]!) | 0) & 0x3fffffff;
  }
}

/**
 * Sorts `docs[lo…hi]` by `score`, highest first (a quicksort on the typed arrays, no comparator
 * calls; the order of equal scores is not kept, and the ranking does not depend on it).
 */
function sortByScore(docs: Int32Array, score: Float64Array, lo: number, hi: number): void {
  while (hi - lo > 16) {
    const mid = (lo + hi) >>> 1;
    // median of three as the pivot
    const a = score[docs[lo]!]!;
    const b = score[docs[mid]!]!;
    const c = score[docs[hi]!]!;
    const pivot = a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (score[docs[i]!]! > pivot) i++;
      while (score[docs[j]!]! < pivot) j--;
      if (i <= j) {
        const t = docs[i]!;
        docs[i++] = docs[j]!;
        docs[j--] = t;
      }
    }
    // the smaller side recursively, the larger in this loop
    if (j - lo < hi - i) {
      sortByScore(docs, score, lo, j);
      lo = i;
    } else {
      sortByScore(docs, score, i, hi);
      hi = j;
    }
  }
  for (let i = lo + 1; i <= hi; i++) {
    const d = docs[i]!;
    const s = score[d]!;
    let j = i - 1;
    while (j >= lo && score[docs[j]!]! < s) {
      docs[j + 1] = docs[j]!;
      j--;
    }
    docs[j + 1] = d;
  }
}
