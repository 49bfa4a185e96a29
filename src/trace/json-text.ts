/**
 * JSON text sizes for the redactor and its fast path: the UTF-8 length of a string's JSON
 * (`jsonStringBytes`), a string's JSON and size (`jsonOf`), the `"key":` sizes of keys
 * (`keyInfo`), and what a peer's text may write shorter than `JSON.stringify` does
 * (`mayBeWrittenShorter`, `LONE_SURROGATE`).
 */
import { isSensitiveKey, MAX_KEY_VERDICTS } from './redaction-rules.js';

/** Characters whose JSON form is longer than their UTF-8 form, and surrogates. */
// eslint-disable-next-line no-control-regex
const NEEDS_EXACT_JSON_LENGTH = /["\\\u0000-\u001f\ud800-\udfff]/;

/** UTF-8 length of `JSON.stringify(s)` (quotes included), without building it. */
export function jsonStringBytes(s: string): number {
  const n = s.length;
  if (n > 256 && !NEEDS_EXACT_JSON_LENGTH.test(s)) return Buffer.byteLength(s, 'utf8') + 2;
  let bytes = 2;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c < 0x20) bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
      else bytes += c === 34 || c === 92 ? 2 : 1;
    } else if (c < 0x800) {
      bytes += 2;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 6; // lone high surrogate: JSON.stringify writes \udXXX
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      bytes += 6;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

export interface JsonText {
  json: string;
  bytes: number;
  /** The string holds a lone surrogate (see `LONE_SURROGATE`). */
  lone?: true;
}

/** Printable ASCII but `"` and `\\`: JSON writes such a string as it is, between quotes. */
// eslint-disable-next-line no-control-regex
const NEEDS_JSON_ESCAPE_OR_UTF8 = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

export function jsonOf(s: string): JsonText {
  if (!NEEDS_JSON_ESCAPE_OR_UTF8.test(s)) return { json: `"${s}"`, bytes: s.length + 2 };
  const json = JSON.stringify(s);
  return LONE_SURROGATE.test(s) ? { json, bytes: Buffer.byteLength(json, 'utf8'), lone: true } : { json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** `"key":` per key (keys are few and repeat), boundedly. */
export const keyJson = new Map<string, JsonText>();

/** What `cleanCheck` needs of a key, in one lookup: its `"key":` sizes and whether it names a credential. */
export interface KeyInfo {
  bytes: number;
  chars: number;
  sensitive: boolean;
  /** The key holds a lone surrogate (then `sensitive` too). */
  lone: boolean;
}
const keyInfos = new Map<string, KeyInfo>();

/** The keys of nearly every message (none names a credential): found by comparison, not hashing. */
const K5: KeyInfo = { bytes: 5, chars: 5, sensitive: false, lone: false };
const K6: KeyInfo = { bytes: 6, chars: 6, sensitive: false, lone: false };
const K7: KeyInfo = { bytes: 7, chars: 7, sensitive: false, lone: false };
const K8: KeyInfo = { bytes: 8, chars: 8, sensitive: false, lone: false };
const K9: KeyInfo = { bytes: 9, chars: 9, sensitive: false, lone: false };
const K10: KeyInfo = { bytes: 10, chars: 10, sensitive: false, lone: false };
const K12: KeyInfo = { bytes: 12, chars: 12, sensitive: false, lone: false };

export function keyInfo(key: string): KeyInfo {
  // (the keys of every message first: each case is one more comparison)
  switch (key) {
    case 'jsonrpc':
      return K10;
    case 'id':
      return K5;
    case 'result':
    case 'method':
    case 'params':
      return K9;
    case 'text':
    case 'type':
    case 'name':
      return K7;
    case 'content':
      return K10;
    case 'arguments':
      return K12;
    case 'error':
      return K8;
    case 'message':
      return K10;
    case 'data':
      return K7;
    case '_meta':
      return K8;
    case 'uri':
      return K6;
    case 'isError':
      return K10;
  }
  return keyInfos.get(key) ?? newKeyInfo(key);
}

/** `keyInfo` of a key not known yet (kept for the next time). */
function newKeyInfo(key: string): KeyInfo {
  const j = jsonOf(key);
  // A key with a lone surrogate never passes as clean (see `LONE_SURROGATE`): `sensitive` takes
  // it off the common path, `lone` rejects it there.
  const k: KeyInfo = j.lone === true ? { bytes: j.bytes + 1, chars: j.json.length + 1, sensitive: true, lone: true } : { bytes: j.bytes + 1, chars: j.json.length + 1, sensitive: isSensitiveKey(key), lone: false };
  if (keyInfos.size >= MAX_KEY_VERDICTS) keyInfos.clear();
  if (key.length <= 256) keyInfos.set(key, k);
  return k;
}

/**
 * Whether a JSON text may write the number `x` in fewer characters than `JSON.stringify` does.
 * `isClean(value, true)` compares a peer's text with the length of its parsed value's compact
 * JSON, so that a text holding more than the value (a member repeated under one name: JSON.parse
 * keeps the last) is never written as it is; that comparison holds only while no part of the text
 * can be shorter than its compact JSON. Strings cannot (JSON.stringify writes every character in
 * its shortest form; lone surrogates aside, see `LONE_SURROGATE`); numbers only through an
 * exponent: an integer written with three or more trailing zeros (`1e3` for 1000), a fraction below 0.01
 * (`1e-3` for 0.001, `12e-8` for 1.2e-7) and anything from 1e21 on (`1e21`, not `1e+21`).
 * Other numbers a text writes no shorter than JSON.stringify (same digits, or more).
 */
export function mayBeWrittenShorter(x: number): boolean {
  const a = Math.abs(x);
  if (a >= 1e21) return true;
  // (beyond 2^53 JSON writes the shortest digits that round-trip, padded with zeros: 2520063900022630000
  // is a double whose exact value does not end in 000, but a text may write it as 252006390002263e4)
  if (Math.floor(a) === a) return a !== 0 && (a < 2 ** 53 ? a % 1000 === 0 : String(a).endsWith('000'));
  return a < 0.01;
}

/**
 * A lone surrogate: JSON.stringify writes it as `\udXXX` (6 characters) where a peer's text may
 * hold it raw (1), so a string or key holding one is never counted as clean (see
 * `mayBeWrittenShorter`). Text decoded from UTF-8 bytes has none.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** An enumerable property on Object.prototype would show in `for…in` but not in JSON: leave such a process to the full walk. */
const EMPTY = {};
export function prototypePolluted(): boolean {
  for (const _ in EMPTY) return true;
  return false;
}

export function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return 'null';
  }
}
