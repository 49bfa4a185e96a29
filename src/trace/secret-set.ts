/**
 * The configured secret values of one redactor, each registered in all its `secretForms`: short
 * forms (under `MIN_SECRET_LENGTH`) are matched only as whole strings (`exact`), the others
 * anywhere through one alternation (`re`).
 */
import { REDACTED } from './redaction-rules.js';
import { MIN_SECRET_LENGTH, secretForms } from './secret-forms.js';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class SecretSet {
  /** Forms matched only where a whole string equals them. */
  readonly exact = new Set<string>();
  private readonly substring = new Set<string>();
  /** The values given to `add` (for `remove`). */
  private readonly values = new Set<string>();
  /** Every substring form, shortest ones only (see `add`); undefined when there is none. */
  re: RegExp | undefined;
  /** Length of the longest substring form. */
  maxLength = 0;
  /** `"form"` for each short secret form matched whole (`exact`), as JSON text holds it. */
  private exactJson: string[] = [];

  /**
   * Adds values, each in all its `secretForms`. Empty strings are ignored; values shorter than
   * `MIN_SECRET_LENGTH` are matched only where a whole string equals them (or their URL-encoded form).
   */
  add(values: Iterable<string>): void {
    for (const v of values) {
      if (typeof v !== 'string' || v.length === 0) continue;
      this.values.add(v);
      if (v.length < MIN_SECRET_LENGTH) {
        this.exact.add(v);
        this.exact.add(encodeURIComponent(v));
        continue;
      }
      for (const f of secretForms(v)) {
        if (f.length < MIN_SECRET_LENGTH) this.exact.add(f);
        else this.substring.add(f);
      }
    }
    // A form holding another (`Bearer X` holds `X`) is redacted through it: the regex needs only
    // the shortest ones, which keeps the alternation small.
    const list: string[] = [];
    for (const f of [...this.substring].sort((a, b) => a.length - b.length)) if (!list.some((k) => f.includes(k))) list.push(f);
    list.reverse();
    this.maxLength = 0;
    for (const f of this.substring) this.maxLength = Math.max(this.maxLength, f.length);
    this.re = list.length ? new RegExp(list.map(escapeRegExp).join('|'), 'g') : undefined;
    this.exactJson = [...this.exact].map((e) => JSON.stringify(e));
  }

  /** Forgets `values` (added before); returns whether any was known. */
  remove(values: Iterable<string>): boolean {
    let removed = false;
    for (const v of values) if (this.values.delete(v)) removed = true;
    if (!removed) return false;
    const keep = [...this.values];
    this.values.clear();
    this.exact.clear();
    this.substring.clear();
    this.add(keep);
    return true;
  }

  /** Whether any value is registered. */
  get any(): boolean {
    return this.re !== undefined || this.exact.size > 0;
  }

  /** `s` with every registered form replaced (nothing else changes). */
  replace(s: string): string {
    if (this.exact.has(s)) return REDACTED;
    const re = this.re;
    if (re === undefined) return s;
    re.lastIndex = 0;
    if (!re.test(s)) return s;
    re.lastIndex = 0;
    return s.replace(re, REDACTED);
  }

  /** Whether `text` holds a registered form, as a substring or (short forms) as a JSON string. */
  inText(text: string): boolean {
    const re = this.re;
    if (re !== undefined) {
      re.lastIndex = 0;
      if (re.test(text)) return true;
    }
    for (const e of this.exactJson) if (text.includes(e)) return true;
    return false;
  }

  /**
   * A text cut short with `…` (an excerpt of an HTTP body, a capped message) may end in the first
   * part of a secret: a head of at least `MIN_SECRET_LENGTH` characters of a registered form
   * right before a `…` is redacted too.
   */
  redactCut(r: string): string {
    let out = '';
    let last = 0;
    for (let i = r.indexOf('…'); i !== -1; i = r.indexOf('…', i + 1)) {
      let best = 0;
      for (const secret of this.substring) {
        const first = secret.charCodeAt(0);
        for (let j = Math.max(last, i - secret.length + 1); j <= i - MIN_SECRET_LENGTH && i - j > best; j++) {
          if (r.charCodeAt(j) === first && secret.startsWith(r.slice(j, i))) {
            best = i - j;
            break;
          }
        }
      }
      if (best > 0) {
        out += r.slice(last, i - best) + REDACTED;
        last = i;
      }
    }
    return last === 0 ? r : out + r.slice(last);
  }
}
