/** Output helpers: plain tables for people, stable JSON for machines, errors on stderr. */
import { isMcpWireError } from '../index.js';
import { Redactor } from '../trace-api.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Strips control characters (terminal escapes) from untrusted text before it reaches a TTY. */
export function safeText(s: unknown, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const t = String(s ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${headUnits(t, max - 1)}…`;
}

/**
 * At most `n` UTF-16 units of `s`, not ending inside a surrogate pair (half of one prints as a
 * replacement character). For caps by length; cuts to terminal columns are in ./layout.ts.
 */
export function headUnits(s: string, n: number): string {
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
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

/**
 * `safeText` for a cell of a table or listing: capped at `max` characters only when the output
 * has a width to fit (a terminal, or `MCPWIRE_COLUMNS`); into a pipe or a file it is whole.
 */
export function cellText(s: unknown, max: number, stream: NodeJS.WriteStream = process.stdout): string {
  return safeText(s, Number.isFinite(outputWidth(stream)) ? max : Infinity);
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
  // What an ad-hoc server printed before it failed (target.ts `connectAdHoc`), under the error.
  const printed = err instanceof Error ? (err as { serverOutput?: unknown }).serverOutput : undefined;
  process.stderr.write(`mcpwire: ${patterns.redactString(message)}${code}\n${typeof printed === 'string' ? `${patterns.redactString(printed)}\n` : ''}`);
}
