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
    if (code >= 0xdc00 && code <= 0xdfff) continue; // the low half of a pair: classed with its high half
    const k = classOf(text, i, code);
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
  if (STOP.has(w)) return null;
  let t = stems.get(w);
  if (t === undefined) {
    t = porterStem(w);
    if (stems.size >= MAX_STEMS) stems.clear();
    stems.set(w, t);
  }
  return t;
}

/**
 * Everyday words for what tools do and what they act on, in groups of words that stand for one
 * another. A word of a group is indexed (and searched) as itself and as its group's mark
 * (`~` + the group's first stem), so "remove a folder" meets `delete_directory`, while the
 * tool that has the very word still ranks first (it matches both terms).
 */
const SYNONYM_GROUPS: readonly string[][] = [
  ['delete', 'remove', 'erase', 'drop', 'destroy', 'trash', 'forget', 'cancel', 'unlink'],
  ['create', 'make', 'new', 'add', 'insert', 'remember', 'record', 'register'],
  ['get', 'fetch', 'retrieve', 'obtain', 'read', 'show', 'view', 'load', 'dump', 'display'],
  ['list', 'enumerate', 'listing', 'contents', 'entries'],
  ['search', 'find', 'lookup', 'query', 'locate', 'grep', 'anywhere', 'match'],
  ['update', 'edit', 'modify', 'change', 'alter', 'replace', 'patch', 'revise'],
  ['write', 'save', 'store', 'overwrite', 'persist'],
  ['directory', 'folder', 'dir'],
  ['file', 'document', 'doc', 'txt', 'pdf'],
  ['text', 'txt', 'plain', 'string'],
  ['image', 'picture', 'photo', 'screenshot', 'png', 'jpg', 'logo', 'icon'],
  ['page', 'website', 'site', 'web', 'browser', 'url', 'link', 'tab'],
  ['navigate', 'open', 'visit', 'goto', 'browse'],
  ['click', 'press', 'tap', 'hit', 'button'],
  ['type', 'enter', 'fill', 'input', 'form'],
  ['move', 'rename', 'relocate', 'drag'],
  ['wait', 'sleep', 'pause', 'delay', 'until'],
  ['sum', 'add', 'total', 'plus', 'calculate', 'arithmetic'],
  ['think', 'reason', 'plan', 'reflect', 'thought', 'step'],
  ['close', 'quit', 'exit', 'shut', 'dismiss'],
  ['size', 'resize', 'dimension', 'width', 'height', 'window'],
  ['info', 'information', 'metadata', 'detail', 'stat', 'modified', 'size'],
  ['dialog', 'alert', 'popup', 'prompt', 'confirm', 'modal'],
  ['upload', 'attach', 'attachment'],
  ['console', 'log', 'logged', 'logging', 'error', 'warning'],
  ['request', 'network', 'call', 'fetch', 'http', 'api', 'traffic'],
  ['weather', 'forecast', 'temperature', 'rain', 'raining', 'hot', 'cold', 'sunny', 'wind'],
  ['memory', 'knowledge', 'graph', 'remember', 'know', 'fact'],
  ['entity', 'person', 'people', 'node', 'thing'],
  ['relation', 'relationship', 'link', 'connection', 'manages'],
  ['observation', 'fact', 'note', 'detail'],
  ['progress', 'long', 'running', 'slow', 'while'],
  ['echo', 'repeat', 'back', 'mirror', 'parrot'],
  ['environment', 'env', 'variable', 'variables', 'config'],
  ['compress', 'gzip', 'zip', 'archive', 'shrink'],
  ['elicitation', 'ask', 'question', 'user', 'input'],
  ['message', 'post', 'send', 'email', 'mail', 'chat'],
  ['event', 'meeting', 'appointment', 'standup'],
  ['issue', 'ticket', 'bug'],
  ['payment', 'charge', 'refund', 'invoice'],
  ['tree', 'hierarchy', 'nested', 'recursive', 'structure', 'layout'],
  ['snapshot', 'accessibility', 'structure', 'element', 'ref'],
  ['javascript', 'js', 'script', 'code', 'evaluate', 'run', 'execute'],
  ['dark', 'light', 'theme', 'color', 'scheme', 'media'],
  ['dropdown', 'select', 'option', 'choose', 'pick'],
  ['hover', 'mouse', 'over'],
  ['key', 'keyboard', 'enter', 'shortcut'],
];

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

/** A word as index (and query) terms: its stem, then the marks of its synonym groups; null for a function word. */
export function termsOf(word: string): string[] | null {
  const t = termOf(word);
  if (t === null) return null;
  const marks = GROUPS.get(t);
  return marks === undefined ? [t] : [t, ...marks];
}
