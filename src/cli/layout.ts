/**
 * Text laid out for a terminal: cut, wrapped and tabulated in terminal columns (wide characters
 * count two, see ./width.ts). Apart from output.ts because measuring non-ASCII text loads
 * `string-width` (~40 ms at start): only the commands that print tables or wrapped text, which
 * load this module, pay it.
 */
import { outputWidth } from './output.js';
import { chunksWidth, displayWidth, hasWide, headWidth, padEndWidth, truncateWidth as truncate } from './width.js';

/** `s` cut to `max` terminal columns (see `displayWidth`), with `…` when it was wider. */
export { truncate };

/**
 * Words of `text` wrapped into lines of at most `width` terminal columns. A longer word is cut
 * with `…` (a URL, an identifier), except one holding CJK or other wide characters, which is
 * broken between characters across lines, as such text is (it has no spaces to break at).
 */
export function wrap(text: string, width: number): string[] {
  if (!Number.isFinite(width) || displayWidth(text) <= width) return [text];
  const w = Math.max(8, width);
  const out: string[] = [];
  let cur = '';
  let curWidth = 0;
  const put = (piece: string, pieceWidth: number) => {
    if (cur === '') {
      cur = piece;
      curWidth = pieceWidth;
    } else if (curWidth + 1 + pieceWidth <= w) {
      cur += ` ${piece}`;
      curWidth += 1 + pieceWidth;
    } else {
      out.push(cur);
      cur = piece;
      curWidth = pieceWidth;
    }
  };
  for (const word of text.split(' ')) {
    const ww = displayWidth(word);
    if (ww <= w) put(word, ww);
    else if (hasWide(word)) {
      // fill the current line first, then whole lines
      const room = cur === '' ? w : w - curWidth - 1;
      const first = room > 0 ? headWidth(word, room) : '';
      const rest = word.slice(first.length);
      if (first !== '') put(first, displayWidth(first));
      for (const piece of chunksWidth(rest, w)) {
        if (cur !== '') out.push(cur);
        cur = piece;
        curWidth = displayWidth(piece);
      }
    } else {
      const cut = truncate(word, w);
      put(cut, displayWidth(cut));
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

/**
 * A plain table, its columns measured in terminal columns (wide characters count two). It fits `width` (default: the terminal's, see `outputWidth`): when the natural
 * widths do not fit, the last column shrinks first (it holds descriptions), then the widest
 * ones, each down to a floor; cut cells end with `…`.
 */
export function table(headers: string[], rows: string[][], width: number = outputWidth(), options: { wrapLast?: boolean } = {}): string {
  const natural = headers.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const widths = fitWidths(natural, headers.map((h) => displayWidth(h)), width);
  const cell = (c: string, i: number) => truncate(c, widths[i]);
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? cell(c, i) : padEndWidth(cell(c, i), widths[i]))).join('  ').trimEnd();
  const last = headers.length - 1;
  // `wrapLast`: the last column (an error message, say) continues on the next lines, under
  // itself, instead of being cut — what it says at its end is often the point.
  const indent = ' '.repeat(widths.slice(0, last).reduce((a, b) => a + b + 2, 0));
  const wrapped = (cells: string[]) => {
    const [first, ...more] = wrap(cells[last] ?? '', widths[last]);
    return [line([...cells.slice(0, last), first ?? '']), ...more.map((m) => `${indent}${m}`)].join('\n');
  };
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(options.wrapLast === true ? wrapped : line)].join('\n');
}

function fitWidths(natural: number[], heads: number[], width: number): number[] {
  const widths = [...natural];
  const gaps = 2 * (widths.length - 1);
  const total = () => widths.reduce((a, b) => a + b, 0) + gaps;
  if (!Number.isFinite(width) || total() <= width) return widths;
  const last = widths.length - 1;
  const floor = (i: number) => Math.min(natural[i], Math.max(heads[i], i === last ? 12 : 6));
  widths[last] = Math.max(floor(last), widths[last] - (total() - width));
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i] > floor(i) && (widest < 0 || widths[i] > widths[widest])) widest = i;
    if (widest < 0) break; // every column at its floor: the line stays longer than the terminal
    widths[widest]--;
  }
  return widths;
}
