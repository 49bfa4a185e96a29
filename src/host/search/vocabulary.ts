/**
 * The index's vocabulary: how many tools hold each term (its document frequency), kept in step
 * as tools are added and dropped, and the plan of one query drawn from it.
 *
 * A query's terms (`planQuery`):
 * - its words' stems and synonym marks (`words.ts`), each once, weighted by how many times it
 *   came — a repeated term would otherwise be scored, and paid for, twice;
 * - the one word of a two-word verb ("look up" → lookup, "pull up" → show; `words.ts`), and two
 *   neighbouring words written as one when the catalog knows the joined word ("screen shot" →
 *   screenshot, "data base" → database);
 * - within a budget (`MAX_QUERY_POSTINGS`): scoring walks every tool that holds a query term, so
 *   a query of everyday words over 10,000 tools would walk most of them. Each word keeps its
 *   broadest term within the budget, the one most tools hold — its synonym group's mark, which
 *   every tool with any word of the group holds, the word itself included (in the name, title,
 *   description and server fields), so the word loses no tool it would find. A word whose every
 *   term is held by more tools than the budget keeps its rarest one, unless more than half the
 *   tools hold it (such a word tells nothing: `id` where every tool takes an id). The other
 *   terms (the word itself, which ranks a tool with the very word first) are added rarest first
 *   until the tools holding them add up past the budget. Keeping the
 *   rarest term instead lost the meaning of everyday words: "make a folder" kept `make` (one
 *   tool) and dropped the mark shared with `create` (a thousand), so `create_directory` matched
 *   one word of the request. The terms left out are those BM25 weighs least (a term held by
 *   many tools has a low IDF); "delete a user" still searches both words among thousands of
 *   `delete_…` and `…_user` tools.
 */
import { MAX_SEPARATED, phraseOf, separatedPhraseOf, splitWords, termOf, termsOf } from './words.js';

/** The terms of one query, each once, and how many times each came (a word said twice, or two words of one synonym group, weigh more). */
export interface QueryPlan {
  terms: string[];
  weights: Map<string, number>;
  /** The word of the query each term came from (0…30): a word's stem and synonym marks are one word when matches are counted. */
  words: Map<string, number>;
}

/** The weight of an owner's words ("the customer's subscription": `customer`) against the words of what is asked about. */
export const POSSESSIVE_WEIGHT = 0.5;
/** A query is cut to this many characters and this many terms. */
const MAX_QUERY_CHARS = 1000;
const MAX_QUERY_TERMS = 64;
/** A query's terms are held by this many tools at most, added up (see the module comment); the rarest term is always searched. */
export const MAX_QUERY_POSTINGS = 1500;

/** How many tools hold a term, and the last `addFields`/`removeFields` call that met it (so a tool's term counts once). */
interface TermCount {
  tools: number;
  met: number;
}

export class Vocabulary {
  private readonly counts = new Map<string, TermCount>();
  private tools = 0;
  private calls = 0;

  /** Counts one tool's distinct terms in. */
  add(terms: Iterable<string>): void {
    this.addFields([terms]);
  }

  /** Counts one tool's terms in, given as lists that may repeat terms (its fields): each distinct term once. */
  addFields(fields: Iterable<Iterable<string>>): void {
    this.tools++;
    const call = ++this.calls;
    for (const terms of fields) {
      for (const t of terms) {
        const c = this.counts.get(t);
        if (c === undefined) this.counts.set(t, { tools: 1, met: call });
        else if (c.met !== call) {
          c.met = call;
          c.tools++;
        }
      }
    }
  }

  /** Counts one tool's terms out (the same lists `addFields` was given). */
  removeFields(fields: Iterable<Iterable<string>>): void {
    this.tools--;
    const call = ++this.calls;
    for (const terms of fields) {
      for (const t of terms) {
        const c = this.counts.get(t);
        if (c === undefined || c.met === call) continue;
        c.met = call;
        if (--c.tools === 0) this.counts.delete(t);
      }
    }
  }

  /** Tools holding `term`. */
  count(term: string): number {
    return this.counts.get(term)?.tools ?? 0;
  }

  /** The terms one query is searched with (see the module comment); empty when nothing is left to search. */
  planQuery(query: string): QueryPlan {
    const words = splitWords(query.slice(0, MAX_QUERY_CHARS));
    const terms: string[] = [];
    const weights = new Map<string, number>();
    const wordOf = new Map<string, number>();
    let word = 0;
    const push = (ts: readonly string[] | null, weight = 1): void => {
      if (ts === null) return;
      for (const t of ts) {
        const n = weights.get(t);
        if (n !== undefined) weights.set(t, n + weight);
        else if (terms.length < MAX_QUERY_TERMS) {
          weights.set(t, weight);
          wordOf.set(t, Math.min(word, 30));
          terms.push(t);
        }
      }
    };
    for (let i = 0; i < words.length; i++) {
      word = i;
      const next = words[i + 1];
      // "the customer's subscription": the owner qualifies what is asked about, and weighs less
      const possessive = next === 's' || next === 'S';
      push(termsOf(words[i]!), possessive ? POSSESSIVE_WEIGHT : 1);
      for (let j = i + 2; j < Math.min(words.length, i + 2 + MAX_SEPARATED); j++) {
        const separated = separatedPhraseOf(words[i]!, words[j]!);
        if (separated !== undefined) push(termsOf(separated));
      }
      // the `s` of an apostrophe is not a word to join ("customer's" is not "customers")
      if (next === undefined || possessive) continue;
      const phrase = phraseOf(words[i]!, next);
      if (phrase !== undefined) push(termsOf(phrase));
      const joined = `${words[i]!}${next}`;
      const stem = termOf(joined);
      if (stem !== null && this.counts.has(stem)) push(termsOf(joined));
    }
    // every word keeps its broadest term within the budget, else its rarest (unless most tools
    // hold it: such a word tells nothing), then the other terms, rarest first, until the budget is spent
    const byCount = [...terms].sort((a, b) => this.count(a) - this.count(b));
    const within = new Set<string>();
    const covered = new Set<number>();
    let spent = 0;
    const keep = (t: string, most: number): void => {
      const n = this.count(t);
      const w = wordOf.get(t)!;
      if (covered.has(w) || n === 0 || n * 2 > this.tools || n > most) return;
      covered.add(w);
      within.add(t);
      spent += n;
    };
    for (let i = byCount.length - 1; i >= 0; i--) keep(byCount[i]!, MAX_QUERY_POSTINGS);
    for (const t of byCount) keep(t, Infinity);
    for (const t of byCount) {
      if (within.has(t)) continue;
      const n = this.count(t);
      if (spent > 0 && spent + n > MAX_QUERY_POSTINGS) break;
      spent += n;
      within.add(t);
    }
    const kept = within.size === terms.length ? terms : terms.filter((t) => within.has(t));
    return { terms: kept, weights, words: wordOf };
  }
}
