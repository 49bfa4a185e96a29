/** Output helpers: plain tables for people, stable JSON for machines, errors on stderr. */
import { isMcpWireError, Redactor } from '../index.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Strips control characters (terminal escapes) from untrusted text before it reaches a TTY. */
export function safeText(s: unknown, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const t = String(s ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * The width output must fit: the terminal's columns when stdout is a terminal, else unbounded
 * (a pipe or a file gets whole lines). `MCPWIRE_COLUMNS` overrides both.
 */
export function outputWidth(stream: NodeJS.WriteStream = process.stdout): number {
  const forced = Number(process.env.MCPWIRE_COLUMNS);
  if (Number.isInteger(forced) && forced > 0) return forced;
  if (stream.isTTY === true) return stream.columns > 0 ? stream.columns : 80;
  return Infinity;
}

/** `s` cut to `max` characters, with `…` when it was longer. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  return max <= 1 ? s.slice(0, Math.max(0, max)) : `${s.slice(0, max - 1)}…`;
}

/** Words of `text` wrapped into lines of at most `width` characters (a longer word is cut). */
export function wrap(text: string, width: number): string[] {
  if (!Number.isFinite(width) || text.length <= width) return [text];
  const w = Math.max(8, width);
  const out: string[] = [];
  let cur = '';
  for (const word of text.split(' ')) {
    const piece = truncate(word, w);
    if (cur === '') cur = piece;
    else if (cur.length + 1 + piece.length <= w) cur += ` ${piece}`;
    else {
      out.push(cur);
      cur = piece;
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

/**
 * A plain table. It fits `width` (default: the terminal's, see `outputWidth`): when the natural
 * widths do not fit, the last column shrinks first (it holds descriptions), then the widest
 * ones, each down to a floor; cut cells end with `…`.
 */
export function table(headers: string[], rows: string[][], width: number = outputWidth()): string {
  const natural = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const widths = fitWidths(natural, headers.map((h) => h.length), width);
  const cell = (c: string, i: number) => truncate(c, widths[i]);
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? cell(c, i) : cell(c, i).padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
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

/** The credential patterns of the trace redactor (no configured secrets: `reportFailure` has those). */
let patterns: Redactor | undefined;

/**
 * Prints an error for a person: message and code. Error text may quote a URL or a server's
 * output: credential-like query values (`?key=…&sig=…`), URL user info, `Authorization: …` and
 * `NAME_TOKEN=…` assignments are redacted (commands on configured servers use `reportFailure`,
 * which also knows the configured secrets).
 */
export function reportError(err: unknown): void {
  patterns ??= new Redactor();
  const message = err instanceof Error ? err.message : String(err);
  const code = isMcpWireError(err) ? ` (${err.code})` : '';
  process.stderr.write(`mcpwire: ${patterns.redactString(message)}${code}\n`);
}
