/** Making untrusted trace text safe for a terminal. */

/** Strips control characters (terminal escapes), folds whitespace, bounds the length. */
export function safeText(s: unknown, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const t = String(s ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A short one-line JSON preview of untrusted data. */
export function preview(value: unknown, max = 80): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? '';
  } catch {
    s = String(value);
  }
  return safeText(s, max);
}
