/**
 * Terminal columns of text, for tables and wrapped lines that line up and fit the terminal:
 * East Asian wide and fullwidth characters (日本語, ｶﾀｶﾅ is narrow, ＡＢＣ wide) and emoji take two
 * columns, combining marks and zero-width joiners none (`string-width`, which follows Unicode's
 * East Asian Width and emoji data). Cuts fall between graphemes, so a cut never splits a
 * surrogate pair, an emoji sequence or a letter from its accent. Printable ASCII, the common
 * case, takes a fast path: one column per character, and `string-width` (with its Unicode tables,
 * a few hundredths of a second of CPU to load) loads only when a text is not printable ASCII: with
 * `require` where Node loads an ES module that way (20.19, 22.12 and later), at start elsewhere.
 */
import { createRequire } from 'node:module';

type Width = (s: string) => number;
let loaded: Width | undefined = (process.features as { require_module?: boolean }).require_module === true ? undefined : (await import('string-width')).default;

/** string-width's columns of `s` (its module loaded on the first use). */
function stringWidth(s: string): number {
  loaded ??= (createRequire(import.meta.url)('string-width') as { default: Width }).default;
  return loaded(s);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
let segmenter: Intl.Segmenter | undefined;
/** Graphemes of `s` (the segmenter made on the first text that is not printable ASCII). */
const graphemes = { segment: (s: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s) };

/** Columns `s` takes on a terminal. */
export function displayWidth(s: string): number {
  return PRINTABLE_ASCII.test(s) ? s.length : stringWidth(s);
}

/** Whether `s` holds a grapheme two columns wide (CJK, emoji). */
export function hasWide(s: string): boolean {
  if (PRINTABLE_ASCII.test(s)) return false;
  for (const { segment } of graphemes.segment(s)) if (stringWidth(segment) > 1) return true;
  return false;
}

/** The longest head of `s` made of whole graphemes at most `max` columns wide. */
export function headWidth(s: string, max: number): string {
  if (PRINTABLE_ASCII.test(s)) return s.slice(0, Math.max(0, max));
  let width = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(s)) {
    const w = stringWidth(segment);
    if (width + w > max) break;
    width += w;
    end = index + segment.length;
  }
  return s.slice(0, end);
}

/** `s` cut to at most `max` columns, ending with `…` when it was cut. */
export function truncateWidth(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  return max <= 1 ? headWidth(s, max) : `${headWidth(s, max - 1)}…`;
}

/** `s` padded with spaces to `columns` columns (as `padEnd` does for one-column characters). */
export function padEndWidth(s: string, columns: number): string {
  const missing = columns - displayWidth(s);
  return missing > 0 ? s + ' '.repeat(missing) : s;
}

/** `s` in consecutive pieces of at most `max` columns each (a grapheme wider than `max` alone). */
export function chunksWidth(s: string, max: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (rest !== '') {
    let piece = headWidth(rest, max);
    if (piece === '') piece = graphemes.segment(rest)[Symbol.iterator]().next().value!.segment;
    out.push(piece);
    rest = rest.slice(piece.length);
  }
  return out;
}
