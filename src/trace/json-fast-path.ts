/**
 * The redactor's fast path, for what JSON-RPC messages are (plain data, nothing to redact): one
 * walk that checks the full redaction walk (`Redactor`) would give a value back unchanged and
 * meanwhile measures its compact JSON (`isClean`) or writes it (`cleanJson`). The first thing
 * that could change, or that JSON would write differently, abandons it for the full walk.
 */
import { isOAuthCode, isSensitiveKey, MAX_KEY_VERDICTS } from './redaction-rules.js';
import { jsonOf, keyInfo, keyJson, mayBeWrittenShorter, prototypePolluted, type JsonText } from './json-text.js';
import { SecretSet } from './secret-set.js';

/** `plainSeen` slots, less one (a mask). */
const PLAIN_SLOTS = 63;

/** Characters of the JSON of a number, or -1 for one a peer's text may write shorter (`parsed`, see `mayBeWrittenShorter`). */
function numberChars(x: number, parsed: boolean): number {
  if (x >= 0 && x < 1e9 && Math.floor(x) === x) {
    // (1000, 2000…: a peer may have written 1e3, shorter than JSON's digits)
    if (x >= 1000 && parsed && x % 1000 === 0) return -1;
    return x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : 9;
  }
  if (!Number.isFinite(x)) return 4; // null
  return parsed && mayBeWrittenShorter(x) ? -1 : String(x).length;
}

/** Strings up to this long have their verdicts remembered (`jsonCache`, the redactor's scrub cache). */
export const SCRUB_CACHE_MAX_LENGTH = 64;
export const SCRUB_CACHE_SIZE = 4096;

/**
 * The fast path over the redactor's state; `Redactor` extends it with the full walk. Not
 * re-entrant (the walk's state lives in fields so the hot path allocates only where something changes).
 */
export abstract class JsonFastPath {
  protected readonly maxDepth: number;
  /** The configured secret values. */
  protected readonly secrets = new SecretSet();
  /** Short strings the redaction leaves alone, with their JSON; null for those it changes. */
  protected readonly jsonCache = new Map<string, JsonText | null>();
  /** UTF-8 length of the compact JSON of the value last passed to `redact()`. */
  lastBytes = 0;
  /** After `isClean()` returned true: the UTF-16 length of that compact JSON. */
  lastChars = 0;
  /** `isClean`'s `parsed` for the walk under way. */
  private parsed = false;
  /**
   * No secret is configured: keys need no check, strings in `plainSeen` none either. (Kept here,
   * set by `secretsChanged`, so the walk of a cold process does not read the secret set.)
   */
  protected plain = true;
  /**
   * Strings found clean with no secret configured whose JSON is themselves between quotes, by
   * length and first character (a busy client's messages repeat them: a comparison instead of a
   * cache lookup). Only read while no secret is configured, so never stale.
   */
  private readonly plainSeen: string[] = new Array<string>(PLAIN_SLOTS + 1).fill('');

  protected constructor(maxDepth: number) {
    this.maxDepth = maxDepth;
  }

  /** To be called after the secret set changed. */
  protected secretsChanged(): void {
    this.plain = !this.secrets.any;
    this.jsonCache.clear();
  }

  /** Redacts one string (secrets, credentials in text, length). */
  abstract redactString(s: string): string;
  /** `redactString` without truncation, for keys (cached). */
  protected abstract scrub(s: string): string;


  /**
   * Whether `redact(value)` would give `value` back unchanged and JSON would write it as plain
   * data (the conditions of `redactJson`'s fast path), without writing anything; sets `lastBytes`
   * to the UTF-8 length of its compact JSON when it returns true. For a message whose JSON text
   * exists already (what the transport writes or read): the trace reuses that text.
   *
   * `parsed`: the value came from `JSON.parse` (an incoming message), so every object in it is
   * plain data with Object.prototype and no `toJSON`: those two checks are skipped; and its text
   * may hold more than the value (a repeated member), so the walk returns false for anything the
   * text could have written shorter than `lastChars` counts (`mayBeWrittenShorter`,
   * `LONE_SURROGATE`): a text as long as `lastChars` then holds exactly the value.
   */
  isClean(value: unknown, parsed = false): boolean {
    this.lastBytes = 0;
    this.lastChars = 0;
    this.parsed = parsed;
    if (prototypePolluted()) return false;
    let ok: boolean;
    if (typeof value === 'object' && value !== null) ok = this.cleanCheck(value, 0);
    else ok = (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) && this.cleanValue(value, 0);
    // lastBytes held only what UTF-8 adds to the characters
    this.lastBytes += this.lastChars;
    return ok;
  }

  /** An object or array: its members counted, or false at the first the full walk would change. */
  private cleanCheck(v: object, depth: number): boolean {
    if (depth >= this.maxDepth) return false;
    if (Array.isArray(v)) return this.cleanArray(v, depth);
    // A plain object: what JSON.parse makes, and object literals. (`constructor` is read rather
    // than the prototype, which costs a runtime call; an own `constructor` member or a null
    // prototype only sends the value to the full walk.) toJSON is Object.prototype's: none.
    if (!this.parsed && ((v as { constructor?: unknown }).constructor !== Object || typeof (v as { toJSON?: unknown }).toJSON === 'function')) return false;
    const obj = v as Record<string, unknown>;
    let chars = 1; // the opening brace; each member adds its comma or the closing brace
    // (each value's type tested once, the key's verdicts where they matter to that type)
    for (const key in obj) {
      const x = obj[key];
      const k = keyInfo(key);
      if (typeof x === 'string') {
        if (k.sensitive || (key === 'code' && isOAuthCode(obj))) return false;
        const n = x.length;
        // a string met lately (by length and first character) that JSON writes as it is
        if (n !== 0 && n <= SCRUB_CACHE_MAX_LENGTH && this.plain && x === this.plainSeen[(n ^ (x.charCodeAt(0) << 2)) & PLAIN_SLOTS]) {
          chars += n + 2;
        } else {
          const c = this.stringChars(x);
          if (c < 0) return false;
          chars += c;
        }
      } else if (typeof x === 'number') {
        if (k.lone) return false;
        // (ids: a busy client's run into the thousands; 1000, 2000… a peer may write 1e3, shorter)
        if (x >= 0 && x < 1e9 && Math.floor(x) === x && (x < 1000 || x % 1000 !== 0)) {
          chars += x < 1000 ? (x < 10 ? 1 : x < 100 ? 2 : 3) : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : 9;
        } else {
          const c = numberChars(x, this.parsed);
          if (c < 0) return false;
          chars += c;
        }
      } else if (typeof x === 'object') {
        if (x === null) {
          if (k.lone) return false;
          chars += 4;
        } else if (k.sensitive || !this.cleanCheck(x, depth + 1)) {
          return false;
        }
      } else if (typeof x === 'boolean') {
        if (k.lone) return false;
        chars += x ? 4 : 5;
      } else if (x === undefined || typeof x === 'function' || typeof x === 'symbol') {
        continue; // JSON leaves the member out
      } else {
        return false; // bigint
      }
      if (!this.plain && this.scrub(key) !== key) return false;
      this.lastBytes += k.bytes - k.chars;
      chars += k.chars + 1;
    }
    this.lastChars += chars === 1 ? 2 : chars; // {}
    return true;
  }

  private cleanArray(v: unknown[], depth: number): boolean {
    if (!this.parsed && typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
    const n = v.length;
    this.lastChars += n > 0 ? n + 1 : 2; // brackets and commas
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      // (undefined, function, symbol: JSON writes null)
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') this.lastChars += 4;
      else if (!this.cleanValue(x, depth)) return false;
    }
    return true;
  }

  /** An array element or a lone value (not undefined, a function or a symbol), counted. */
  private cleanValue(x: unknown, depth: number): boolean {
    let n: number;
    if (typeof x === 'string') n = this.stringChars(x);
    else if (typeof x === 'number') n = numberChars(x, this.parsed);
    else if (typeof x === 'object') return x === null ? ((this.lastChars += 4), true) : this.cleanCheck(x, depth + 1);
    else if (typeof x === 'boolean') n = x ? 4 : 5;
    else return false; // bigint
    if (n < 0) return false;
    this.lastChars += n;
    return true;
  }

  /**
   * The characters of the JSON of a string the redaction leaves alone (what UTF-8 adds to
   * `lastBytes`), or -1; a short one JSON writes as it is is remembered in `plainSeen` (no secret configured).
   */
  private stringChars(x: string): number {
    const c = this.cleanText(x);
    if (c === undefined) return -1;
    const n = x.length;
    const chars = c.json.length;
    if (chars === n + 2 && c.bytes === chars && n !== 0 && n <= SCRUB_CACHE_MAX_LENGTH && this.plain) this.plainSeen[(n ^ (x.charCodeAt(0) << 2)) & PLAIN_SLOTS] = x;
    this.lastBytes += c.bytes - chars;
    return chars;
  }

  /**
   * Whether `text` holds a configured secret in a form the redaction replaces: for the JSON text
   * of a message `isClean()` passed, which may hold what the parsed value does not (a member
   * repeated under the same name keeps only its last value).
   */
  textHasSecret(text: string): boolean {
    return this.secrets.inText(text);
  }

  /** JSON of a string the redaction leaves alone (counting its bytes), or undefined. */
  protected cleanString(s: string): string | undefined {
    const c = this.cleanText(s);
    if (c === undefined) return undefined;
    this.lastBytes += c.bytes;
    return c.json;
  }

  /** JSON and size of a string the redaction leaves alone, or undefined (also for a lone surrogate). */
  private cleanText(s: string): JsonText | undefined {
    if (s.length <= SCRUB_CACHE_MAX_LENGTH) {
      let c = this.jsonCache.get(s);
      if (c === undefined) {
        c = this.redactString(s) === s ? jsonOf(s) : null;
        if (c !== null && c.lone === true) c = null;
        if (this.jsonCache.size >= SCRUB_CACHE_SIZE) this.jsonCache.clear();
        this.jsonCache.set(s, c);
      }
      return c ?? undefined;
    }
    if (this.redactString(s) !== s) return undefined;
    const c = jsonOf(s);
    return c.lone === true ? undefined : c;
  }

  /** `"key":` for a key the redaction leaves alone (counting its bytes), or undefined. */
  private cleanKey(key: string, checkKeys: boolean): string | undefined {
    let c = keyJson.get(key);
    if (c === undefined) {
      const j = jsonOf(key);
      c = { json: `${j.json}:`, bytes: j.bytes + 1 };
      if (keyJson.size >= MAX_KEY_VERDICTS) keyJson.clear();
      keyJson.set(key, c);
    }
    if (checkKeys && this.scrub(key) !== key) return undefined;
    this.lastBytes += c.bytes;
    return c.json;
  }

  /** The compact JSON of `v` when the redaction leaves it alone (counting its bytes), or undefined. */
  protected cleanJson(v: object, depth: number): string | undefined {
    if (depth >= this.maxDepth) return undefined;
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return undefined;
    if (Array.isArray(v)) return this.cleanArrayJson(v, depth);
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto !== Object.prototype && proto !== null) return undefined;
    const obj = v as Record<string, unknown>;
    const checkKeys = this.secrets.any;
    this.lastBytes += 2;
    let out = '{';
    let first = true;
    for (const key in obj) {
      const x = obj[key];
      let j: string | undefined;
      switch (typeof x) {
        case 'string':
          if (isSensitiveKey(key) || (key === 'code' && isOAuthCode(obj))) return undefined;
          j = this.cleanString(x);
          break;
        case 'number':
        case 'boolean':
          j = this.scalarJson(x);
          break;
        case 'object':
          if (x !== null && isSensitiveKey(key)) return undefined;
          j = x === null ? this.scalarJson(null) : this.cleanJson(x, depth + 1);
          break;
        case 'bigint':
          return undefined;
        default:
          continue; // undefined, function, symbol: JSON leaves the member out
      }
      if (j === undefined) return undefined;
      const k = this.cleanKey(key, checkKeys);
      if (k === undefined) return undefined;
      if (first) {
        out += k + j;
        first = false;
      } else {
        out += `,${k}${j}`;
        this.lastBytes += 1;
      }
    }
    return `${out}}`;
  }

  private cleanArrayJson(v: unknown[], depth: number): string | undefined {
    const n = v.length;
    this.lastBytes += n > 0 ? n + 1 : 2; // brackets and commas
    let out = '[';
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      let j: string | undefined;
      switch (typeof x) {
        case 'string':
          j = this.cleanString(x);
          break;
        case 'number':
        case 'boolean':
          j = this.scalarJson(x);
          break;
        case 'object':
          j = x === null ? this.scalarJson(null) : this.cleanJson(x, depth + 1);
          break;
        case 'bigint':
          return undefined;
        default: // undefined, function, symbol: JSON writes null
          j = this.scalarJson(null);
      }
      if (j === undefined) return undefined;
      out += i === 0 ? j : `,${j}`;
    }
    return `${out}]`;
  }

  /** JSON of a number, boolean or null (a non-finite number is null), counting its bytes. */
  private scalarJson(x: number | boolean | null): string {
    const j = typeof x === 'number' ? (Number.isFinite(x) ? String(x) : 'null') : x === null ? 'null' : x ? 'true' : 'false';
    this.lastBytes += j.length;
    return j;
  }
}
