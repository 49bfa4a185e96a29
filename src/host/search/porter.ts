/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), the original
 * five steps, for English words in lower case: `listing`, `lists`, `listed` → `list`. Tool search
 * stems both the indexed text and the query so a user's "deleting files" meets `delete_file`.
 * No kept npm library fits (the stemmers published alone are unmaintained or pull a whole NLP
 * toolkit), and the algorithm is small, fixed and well known. Words under three letters and words
 * with digits are left as they are.
 */

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

/** True when w[i] is a consonant in Porter's sense (`y` after a consonant is a vowel). */
function consonant(w: string, i: number): boolean {
  const c = w[i]!;
  if (VOWELS.has(c)) return false;
  if (c === 'y') return i === 0 ? true : !consonant(w, i - 1);
  return true;
}

/** m: the number of vowel-consonant sequences in `stem` ([C](VC)^m[V]). */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && consonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !consonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && consonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!consonant(stem, i)) return true;
  return false;
}

function doubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && consonant(w, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function cvc(w: string): boolean {
  const n = w.length;
  if (n < 3 || !consonant(w, n - 1) || consonant(w, n - 2) || !consonant(w, n - 3)) return false;
  const c = w[n - 1]!;
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/** Replaces the first matching suffix of `rules` when the stem's measure is above `minM`. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], minM: number): string {
  for (const [suffix, by] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, w.length - suffix.length);
    return measure(stem) > minM ? stem + by : w;
  }
  return w;
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  if (w.endsWith('ss')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith('eed')) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  for (const suffix of ['ed', 'ing']) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (!hasVowel(stem)) return w;
    if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
    if (doubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
    if (measure(stem) === 1 && cvc(stem)) return stem + 'e';
    return stem;
  }
  return w;
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w.slice(0, -1)) ? w.slice(0, -1) + 'i' : w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['abli', 'able'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'],
];
const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

/** Step 2 and 3 match the longest suffix first among those that end the word. */
function longestFirst(rules: readonly (readonly [string, string])[]): (readonly [string, string])[] {
  return [...rules].sort((a, b) => b[0].length - a[0].length);
}
const STEP2_SORTED = longestFirst(STEP2);
const STEP3_SORTED = longestFirst(STEP3);
const STEP4_SORTED = [...STEP4].sort((a, b) => b.length - a.length);

function step4(w: string): string {
  for (const suffix of STEP4_SORTED) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (suffix === 'ion' && !/[st]$/.test(stem)) return w;
    return measure(stem) > 1 ? stem : w;
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !cvc(stem))) w = stem;
  }
  if (w.endsWith('ll') && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

/** The Porter stem of a lower-case word (see the module comment). */
export function porterStem(word: string): string {
  if (word.length < 3 || /[^a-z]/.test(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = replaceSuffix(w, STEP2_SORTED, 0);
  w = replaceSuffix(w, STEP3_SORTED, 0);
  w = step4(w);
  return step5(w);
}
