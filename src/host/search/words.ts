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

/** Character class of the splitter: 0 separator, 1 lower-case letter (or a letter without case), 2 upper-case, 3 digit. */
function classOf(text: string, i: number, code: number): number {
  if (code < 128) {
    if (code >= 97 && code <= 122) return 1;
    if (code >= 65 && code <= 90) return 2;
    if (code >= 48 && code <= 57) return 3;
    return 0;
  }
  const c = String.fromCodePoint(text.codePointAt(i)!);
  if (/\p{Lu}/u.test(c)) return 2;
  if (/\p{L}/u.test(c)) return 1;
  return /\p{N}/u.test(c) ? 3 : 0;
}

/** Splits text and identifiers into words (see the module comment). */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  let prev = 0;
  let prevAt = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    let k: number;
    if (code >= 97 && code <= 122) k = 1;
    else if (code < 128) k = code >= 65 && code <= 90 ? 2 : code >= 48 && code <= 57 ? 3 : 0;
    else if (code >= 0xdc00 && code <= 0xdfff) continue; // the low half of a pair: classed with its high half
    else k = classOf(text, i, code);
    if (k === 0) {
      if (start >= 0) out.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
    else if (k === 2 && (prev === 1 || prev === 3)) {
      // getTiny → get | Tiny; v2Api → v2 | Api
      out.push(text.slice(start, i));
      start = i;
    } else if (k === 1 && prev === 2 && prevAt > start) {
      // HTTPServer → HTTP | Server: the last capital starts the next word
      out.push(text.slice(start, prevAt));
      start = prevAt;
    }
    prev = k;
    prevAt = i;
  }
  return out;
}

/** Stems already computed (a catalog's vocabulary is small; bounded all the same). */
const stems = new Map<string, string>();
const MAX_STEMS = 50_000;

/** One word as an index term: lower case, stemmed; null for a function word. */
export function termOf(word: string): string | null {
  const w = word.toLowerCase();
  // one letter says nothing (the `s` of "what's", the `t` of "don't"); a digit still counts
  if (STOP.has(w) || (w.length === 1 && !(w >= '0' && w <= '9'))) return null;
  let t = stems.get(w);
  if (t === undefined) {
    t = porterStem(w);
    if (stems.size >= MAX_STEMS) stems.clear();
    stems.set(w, t);
  }
  return t;
}

/**
 * Everyday words for what tools do and what they act on, in groups of words a user says for one
 * another. A word of a group is indexed (in a tool's name, title and description) and searched
 * as itself and as its group's mark (`~` + the group's first stem), so "remove a folder" meets
 * `delete_directory`, while the tool that has the very word still ranks first (it matches both
 * terms). The list is general — the verbs of reading and changing things, of browsing and of
 * messaging, and the nouns tools act on —, written for any catalog, not fitted to one: a word
 * belongs here only when a user would expect either word to find the other.
 */
const SYNONYM_GROUPS: readonly string[][] = [
  // what tools do
  ['delete', 'remove', 'erase', 'destroy', 'trash', 'purge', 'wipe', 'unlink', 'drop', 'forget'],
  ['create', 'make', 'new', 'add', 'insert', 'generate'],
  ['get', 'fetch', 'retrieve', 'obtain', 'read', 'show', 'view', 'load', 'display', 'print', 'dump'],
  ['open', 'read', 'view'],
  ['list', 'enumerate', 'listing', 'ls', 'count'],
  ['search', 'find', 'lookup', 'query', 'locate', 'grep', 'seek'],
  ['update', 'edit', 'modify', 'change', 'alter', 'patch', 'replace', 'tweak'],
  ['write', 'save', 'store', 'persist', 'overwrite'],
  ['move', 'rename', 'relocate'],
  ['copy', 'duplicate', 'clone'],
  ['send', 'post', 'deliver'],
  ['run', 'execute', 'evaluate', 'eval', 'invoke'],
  ['navigate', 'open', 'visit', 'goto', 'browse'],
  ['close', 'quit', 'exit', 'dismiss', 'shut'],
  ['cancel', 'abort', 'stop', 'halt'],
  ['click', 'press', 'tap', 'tick'],
  ['type', 'enter', 'fill', 'input', 'put'],
  ['select', 'choose', 'pick', 'option', 'dropdown'],
  ['wait', 'sleep', 'pause', 'delay'],
  ['upload', 'attach', 'attachment'],
  ['compress', 'zip', 'gzip', 'deflate'],
  ['sum', 'add', 'total', 'plus', 'calculate', 'compute'],
  ['resize', 'size', 'dimension', 'width', 'height'],
  ['remember', 'memorize', 'recall', 'memory'],
  ['think', 'reason', 'reasoning', 'thought', 'reflect'],
  ['echo', 'repeat'],
  ['hover', 'mouse'],
  // what they act on
  ['directory', 'folder', 'dir'],
  ['file', 'document', 'doc'],
  ['text', 'txt', 'plaintext'],
  ['markdown', 'md'],
  ['image', 'picture', 'photo', 'pic', 'screenshot', 'png', 'jpg', 'jpeg'],
  ['page', 'website', 'site', 'webpage', 'web', 'url'],
  ['link', 'hyperlink', 'url'],
  ['dialog', 'alert', 'popup', 'modal', 'prompt', 'confirm'],
  ['message', 'msg', 'chat'],
  ['email', 'mail', 'inbox'],
  ['event', 'meeting', 'appointment'],
  ['issue', 'ticket', 'bug'],
  ['log', 'logs', 'logging', 'console'],
  ['error', 'warning', 'exception', 'failure', 'crash'],
  ['request', 'network', 'http', 'api', 'traffic'],
  ['environment', 'env', 'variable', 'config', 'setting', 'configuration'],
  ['info', 'information', 'metadata', 'detail', 'stat', 'stats', 'properties', 'attribute'],
  ['user', 'person', 'people', 'member', 'account'],
  ['relation', 'relationship', 'connection'],
  ['script', 'javascript', 'js', 'code'],
  ['key', 'keyboard', 'keystroke', 'shortcut'],
  ['tree', 'hierarchy', 'nested', 'recursive'],
  ['theme', 'dark', 'light', 'scheme'],
  ['weather', 'forecast', 'temperature', 'rain', 'snow', 'sunny', 'hot', 'cold', 'humidity'],
];

/**
 * Two-word verbs that mean one word of a group ("look up" → lookup, "pull up" → show): a query's
 * neighbouring words are looked up here, and the one word is searched as well.
 */
const PHRASES: ReadonlyMap<string, string> = new Map([
  ['look up', 'lookup'],
  ['look for', 'search'],
  ['find out', 'find'],
  ['pull up', 'show'],
  ['bring up', 'show'],
  ['go to', 'goto'],
  ['how many', 'count'],
  ['how big', 'size'],
  ['how large', 'size'],
  ['go back', 'back'],
  ['get rid', 'delete'],
  ['shut down', 'close'],
  ['turn on', 'enable'],
  ['turn off', 'disable'],
  ['log in', 'login'],
  ['sign in', 'login'],
  ['set up', 'setup'],
  ['fill in', 'fill'],
  ['fill out', 'fill'],
  ['write down', 'write'],
  ['roll back', 'rollback'],
  ['take out', 'remove'],
]);

/**
 * Two-word verbs whose object may stand between the two words ("turn the light off", "roll the
 * deployment back", "take him out"): English separates a verb and its particle so; the others
 * ("look for", "go to", "how many") are never split.
 */
const SEPARABLE = new Set(['look up', 'pull up', 'bring up', 'shut down', 'turn on', 'turn off', 'set up', 'fill in', 'fill out', 'write down', 'roll back', 'take out']);
/** At most this many words between a separable verb and its particle. */
export const MAX_SEPARATED = 3;

/** The one word two neighbouring words stand for, if they are a two-word verb (`PHRASES`). */
export function phraseOf(first: string, second: string): string | undefined {
  return PHRASES.get(`${first.toLowerCase()} ${second.toLowerCase()}`);
}

/** The one word a verb and a particle some words later stand for, if they are a separable two-word verb (`SEPARABLE`). */
export function separatedPhraseOf(verb: string, particle: string): string | undefined {
  const pair = `${verb.toLowerCase()} ${particle.toLowerCase()}`;
  return SEPARABLE.has(pair) ? PHRASES.get(pair) : undefined;
}

const GROUPS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of SYNONYM_GROUPS) {
    const mark = `~${porterStem(group[0]!)}`;
    for (const w of group) {
      const t = porterStem(w);
      const marks = map.get(t) ?? [];
      if (!marks.includes(mark)) marks.push(mark);
      map.set(t, marks);
    }
  }
  return map;
})();

/** The terms of words already seen (a catalog's vocabulary is small; bounded all the same). */
const termsCache = new Map<string, readonly string[] | null>();

/** A word as index (and query) terms: its stem, then the marks of its synonym groups; null for a function word. The array is shared: never change it. */
export function termsOf(word: string): readonly string[] | null {
  let ts = termsCache.get(word);
  if (ts !== undefined) return ts;
  const t = termOf(word);
  const marks = t === null ? undefined : GROUPS.get(t);
  ts = t === null ? null : marks === undefined ? [t] : [t, ...marks];
  if (termsCache.size >= MAX_STEMS) termsCache.clear();
  termsCache.set(word, ts);
  return ts;
}
