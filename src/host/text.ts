/**
 * Sanitizing untrusted text from servers (descriptions, titles, names) before it reaches an
 * agent's tool list or a terminal: control characters, bidirectional overrides and zero-width
 * characters are removed, runs of blank lines collapsed, and the length capped: MCP
 * metadata is untrusted.
 */

// C0 controls except \t and \n, DEL, C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Bidi embeddings/overrides/isolates, zero-width and invisible formatting, BOM, line/paragraph separators.
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u2028\u2029]/g;

/** Removes control and invisible characters; keeps `\n` and `\t` unless `singleLine`. */
export function stripControl(s: string, singleLine = false): string {
  let out = s.replace(/\r\n?/g, '\n').replace(CONTROL, '').replace(INVISIBLE, '');
  if (singleLine) out = out.replace(/[\n\t]+/g, ' ');
  return out;
}

/** Caps `s` at `max` characters (code points are not split), marking a cut with `…`. */
export function capText(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = Math.max(0, max - 1);
  const code = s.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${s.slice(0, cut)}…`;
}

/**
 * Untrusted text, made safe to show: control characters stripped, more than two consecutive
 * newlines collapsed, trimmed, capped at `max` characters.
 */
export function sanitizeText(s: unknown, max: number, singleLine = false): string {
  if (typeof s !== 'string') return '';
  const clean = stripControl(s, singleLine).replace(/\n{3,}/g, '\n\n').trim();
  return capText(clean, max);
}
