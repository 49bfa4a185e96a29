/**
 * Terminal columns of text, for tables and wrapped lines that line up and fit the terminal:
 * East Asian wide and fullwidth characters (日本語, ｶﾀｶﾅ is narrow, ＡＢＣ wide) and emoji take two
 * columns, combining marks and zero-width joiners none (`string-width`, which follows Unicode's
 * East Asian Width and emoji data). Cuts fall between graphemes, so a cut never splits a
 * surrogate pair, an emoji sequence or a letter from its accent. Printable ASCII, the common
 * case (with the CLI's own … — →), takes a fast path: one column per character; `string-width`
 * (its Unicode tables cost a few hundredths of a second of CPU to load) loads on the first other
 * text: with `require` where Node loads an ES module that way (20.19, 22.12 and later), at start
 * elsewhere.
 */
import { createRequire } from 'node:module';

type Width = (s: string) => number;
let loaded: Width | undefined = (process.features as { require_module?: boolean }).require_module === true ? undefined : (await import('string-width')).default;

/** string-width's columns of `s` (its module loaded on the first use). */
function stringWidth(s: string): number {
  loaded ??= (createRequire(import.meta.url)('string-width') as { default: Width }).default;
  return loaded(s);
}

/**
 * Text one column per UTF-16 unit, as string-width measures it: printable ASCII and the narrow
 * punctuation the CLI prints itself (… — → in signatures and tables), so those skip string-width.
 */
export const ONE_COLUMN_CHARS = '\u00b0\u00b1\u00b7\u00d7\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u2190\u2191\u2192\u2193\u2713\u2717';
const ONE_COLUMN = new RegExp(`^[\\x20-\\x7e${ONE_COLUMN_CHARS}]*$`);
let segmenter: Intl.Segmenter | undefined;
/** Graphemes of `s` (the segmenter made on the first text off the fast path). */
const graphemes = { segment: (s: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s) };

/** Columns `s` takes on a terminal. */
export function displayWidth(s: string): number {
  return ONE_COLUMN.test(s) ? s.length : stringWidth(s);
}

/** Whether `s` holds a grapheme two columns wide (CJK, emoji). */
export function hasWide(s: string): boolean {
  if (ONE_COLUMN.test(s)) return false;
  for (const { segment } of graphemes.segment(s)) if (stringWidth(segment) > 1) return true;
  return false;
}

/** The longest head of `s` made of whole graphemes at most `max` columns wide. */
export function headWidth(s: string, max: number): string {
  if (ONE_COLUMN.test(s)) return s.slice(0, Math.max(0, max));
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
