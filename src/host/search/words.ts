/**
 * The words of tool search: how a tool's text and a query become index terms. Both sides go
 * through the same two steps, so "take a screenshot" meets `browser_take_screenshot`:
 *
 * 1. `splitWords`: runs of letters and digits; identifiers are split at `_`, `-`, `.`, `/` and at
 *    case changes (`getTinyImage` → get, tiny, image; `HTTPServer` → http, server; `v2Api` → v2, api).
 * 2. `termOf`: lower case, a few English function words dropped, the Porter stem (`porter.ts`).
 *
 * `queryTerms` adds, for a query only, the usual other words for what tools do (remove ↔ delete,
 * folder ↔ directory, …): a short fixed list of everyday synonyms, not tuned to any catalog.
 */
import { porterStem } from './porter.js';

/** Words that say nothing about what a tool does. */
const STOP = new Set(
  'a an and are as at be by can do does for from has have how i if in into is it its me my of on or our please so that the their them then there these this those to too us was we what when where which who will with you your'.split(' '),
);

/** Splits text and identifiers into words (see the module comment). */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
    // camelCase / PascalCase / ACRONYMWord boundaries, then letters-digits stay together
    const parts = run.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2').split(' ');
    for (const p of parts) if (p !== '') out.push(p);
  }
  return out;
}

/** One word as an index term: lower case, stemmed; null for a function word. */
export function termOf(word: string): string | null {
  const w = word.toLowerCase();
  if (STOP.has(w)) return null;
  return porterStem(w);
}

/** Everyday synonyms of what tools do; each group's words stand for one another in a query. */
const SYNONYM_GROUPS: readonly string[][] = [
  ['delete', 'remove', 'erase', 'drop', 'destroy', 'trash'],
  ['create', 'make', 'new', 'add', 'insert'],
  ['get', 'fetch', 'retrieve', 'obtain', 'read', 'show', 'view', 'open', 'load'],
  ['list', 'enumerate', 'all'],
  ['search', 'find', 'lookup', 'query', 'locate', 'grep'],
  ['update', 'edit', 'modify', 'change', 'alter', 'replace'],
  ['write', 'save', 'store', 'put'],
  ['directory', 'folder', 'dir'],
  ['file', 'document', 'doc'],
  ['image', 'picture', 'photo', 'screenshot', 'snapshot'],
  ['page', 'website', 'site', 'web', 'browser', 'url', 'tab'],
  ['go', 'navigate', 'visit', 'goto'],
  ['click', 'press', 'tap'],
  ['type', 'enter', 'fill', 'input'],
  ['move', 'rename', 'relocate'],
  ['wait', 'sleep', 'pause', 'delay'],
  ['sum', 'add', 'total', 'plus'],
  ['think', 'reason', 'plan', 'reflect'],
  ['close', 'quit', 'exit', 'shut'],
  ['size', 'resize', 'dimension'],
  ['info', 'information', 'metadata', 'detail', 'stat'],
];

const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of SYNONYM_GROUPS) {
    const terms = [...new Set(group.map((w) => porterStem(w)))];
    for (const t of terms) map.set(t, [...new Set([...(map.get(t) ?? []), ...terms.filter((o) => o !== t)])]);
  }
  return map;
})();

/** A query word as terms: its own term first, then the terms of its synonyms. */
export function queryTerms(word: string): string[] | null {
  const t = termOf(word);
  if (t === null) return null;
  const more = SYNONYMS.get(t);
  return more === undefined ? [t] : [t, ...more];
}
