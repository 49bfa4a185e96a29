/**
 * The redactor's fast path, for what JSON-RPC messages are (plain data, nothing to redact): one
 * walk that checks the full redaction walk (`Redactor`) would give a value back unchanged and
 * meanwhile measures its compact JSON (`isClean`) or writes it (`cleanJson`). The first thing
 * that could change, or that JSON would write differently, abandons it for the full walk.
 */
import { isOAuthCode, isSensitiveKey, MAX_KEY_VERDICTS } from './redaction-rules.js';
import { jsonOf, keyInfo, keyJson, mayBeWrittenShorter, prototypePolluted, type JsonText } from './json-text.js';
import { SecretSet } from './secret-set.js';

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

  protected constructor(maxDepth: number) {
    this.maxDepth = maxDepth;
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
    if (typeof value === 'object' && value !== null) return this.cleanCheck(value, 0);
    return (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) && this.cleanMember(value, 0);
  }

  private cleanCheck(v: object, depth: number): boolean {
    if (depth >= this.maxDepth) return false;
    if (Array.isArray(v)) {
      if (!this.parsed && typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
      const n = v.length;
      this.lastBytes += n > 0 ? n + 1 : 2; // brackets and commas
      this.lastChars += n > 0 ? n + 1 : 2;
      for (let i = 0; i < n; i++) if (!this.cleanMember(v[i], depth)) return false;
      return true;
    }
    // A plain object: what JSON.parse makes, and object literals. (`constructor` is read rather
    // than the prototype, which costs a runtime call; an own `constructor` member or a null
    // prototype only sends the value to the full walk.) toJSON is Object.prototype's: none.
    if (!this.parsed && ((v as { constructor?: unknown }).constructor !== Object || typeof (v as { toJSON?: unknown }).toJSON === 'function')) return false;
    const obj = v as Record<string, unknown>;
    const checkKeys = this.secrets.any;
    let members = 1; // the opening brace; each member adds its comma or the closing brace
    for (const key in obj) {
      const x = obj[key];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue; // JSON leaves the member out
      const k = keyInfo(key);
      if (k.sensitive) {
        if (typeof x === 'string' || (typeof x === 'object' && x !== null) || k.lone === true) return false;
      } else if (key === 'code' && typeof x === 'string' && isOAuthCode(obj)) {
        return false;
      }
      if (checkKeys && this.scrub(key) !== key) return false;
      if (!this.cleanMember(x, depth)) return false;
      this.lastBytes += k.bytes;
      this.lastChars += k.chars;
      members++;
    }
    if (members === 1) members = 2; // {}
    this.lastBytes += members;
    this.lastChars += members;
    return true;
  }

  /** One array element or member value for `cleanCheck` (arrays write `null` where JSON has no value). */
  private cleanMember(x: unknown, depth: number): boolean {
    // (`typeof x === '…'` tests, not a switch on `typeof x`: optimized code tests types directly
    // instead of building the type's name)
    let n: number;
    if (typeof x === 'string') {
      const j = this.cleanString(x);
      if (j === undefined) return false;
      this.lastChars += j.length;
      return true;
    } else if (typeof x === 'number') {
      if (x >= 0 && x < 1e9 && Math.floor(x) === x) {
        // (1000, 2000…: a peer may have written 1e3, shorter than JSON's digits; see below)
        if (x >= 1000 && this.parsed && x % 1000 === 0) return false;
        n = x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : 9;
      } else if (Number.isFinite(x)) {
        if (this.parsed && mayBeWrittenShorter(x)) return false;
        n = String(x).length;
      } else {
        n = 4;
      }
    } else if (typeof x === 'object') {
      if (x !== null) return this.cleanCheck(x, depth + 1);
      n = 4;
    } else if (typeof x === 'boolean') {
      n = x ? 4 : 5;
    } else if (typeof x === 'bigint') {
      return false;
    } else {
      n = 4; // undefined, function, symbol: an array element JSON writes as null
    }
    this.lastBytes += n;
    this.lastChars += n;
    return true;
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
    if (s.length <= SCRUB_CACHE_MAX_LENGTH) {
      let c = this.jsonCache.get(s);
      if (c === undefined) {
        c = this.redactString(s) === s ? jsonOf(s) : null;
        if (c !== null && c.lone === true) c = null;
        if (this.jsonCache.size >= SCRUB_CACHE_SIZE) this.jsonCache.clear();
        this.jsonCache.set(s, c);
      }
      if (c === null) return undefined;
      this.lastBytes += c.bytes;
      return c.json;
    }
    if (this.redactString(s) !== s) return undefined;
    const c = jsonOf(s);
    if (c.lone === true) return undefined;
    this.lastBytes += c.bytes;
    return c.json;
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
