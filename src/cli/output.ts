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

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
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
