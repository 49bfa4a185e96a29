/**
 * The trace's redaction check (`Redactor.isClean`, src/trace/json-fast-path.ts): the tracer writes
 * a message's own JSON text when it says clean, so a wrong "clean" puts a secret in a trace. What
 * it claims, as a property over JSON-RPC-like messages holding what redaction acts on (credential
 * keys, OAuth codes, credential-looking strings, configured secrets), what JSON writes differently
 * (escapes, non-ASCII, lone surrogates, numbers such as 1e3, -0, 1.50) and, for incoming text,
 * what a peer may write (exponents, escapes, spacing, a repeated member):
 *
 * - its verdict is exactly "the full redaction walk gives the value's JSON back unchanged, holds no lone
 *   surrogate and (incoming) no number a text may write shorter": clean never where redaction
 *   changes something, and never "not clean" for a plain message (the fast path is not lost);
 * - when clean, `lastBytes`/`lastChars` are the UTF-8/UTF-16 lengths of the compact JSON, and an
 *   incoming text of exactly `lastChars` characters holds no repeated member.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { mayBeWrittenShorter } from '../../src/trace/json-text.js';
import { Redactor } from '../../src/trace/redact.js';
import { fuzz, mulberry32 } from '../support/fuzz.js';

vi.setConfig({ testTimeout: 180_000 });

const SECRET = 'supersecret-value-1';
const SHORT_SECRET = 'zq9';

const KEYS = [
  'text', 'name', 'type', 'content', 'arguments', 'uri', '_meta', 'data', 'value', 'id', 'isError', 'message', 'result', 'params',
  'progressToken', 'maxTokens', 'token_type', 'nextToken',
  'access_token', 'refresh_token', 'authorization', 'Authorization', 'password', 'client_secret', 'api_key', 'x-api-key', 'cookie', 'GITHUB_TOKEN',
  'code', 'state', 'redirect_uri', 'grant_type', 'iss',
  '\ud800', 'k\udc00', 'é', '日本', 'a"b', 'a\\b', 'with space', 'tab\t', '__proto__', 'constructor', SECRET, `x-${SECRET}`, SHORT_SECRET,
];
const key = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) });

const STRINGS = [
  'hello from the bench client', 'tools/call', '2.0', 'echo', 'file:///tmp/x', '2025-11-25', 'a=b', 'x:y', 'Bob', 'B', '', ' ',
  'Bearer abcdefghijkl', 'Basic dXNlcjpwYXNz', 'GITHUB_TOKEN=ghp_abcdef123456', 'https://user:pw@host/x', '?code=abc&state=x', 'see ?sig=abcdef&x=1',
  '{"access_token":"zzz"}', 'Authorization: Token abc', 'export MY_SECRET_X="y"', '--token=abc', 'postgres://admin:hunter2@db',
  SECRET, `pre ${SECRET} post`, Buffer.from(SECRET).toString('base64'), encodeURIComponent(`${SECRET}/x`), 'supersec…', SHORT_SECRET, `${SHORT_SECRET} word`,
  'a"b', 'back\\slash', 'line\nbreak', '\u0001', 'tab\t', '\u007f', 'é', '日本語', '🎉 party', '\u2028',
  '\ud800', 'x\udfffy', '\udbff\udbff', '🎉'.slice(0, 1),
  'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), 'plain text '.repeat(12), 'é'.repeat(40), `${'w'.repeat(60)} Bearer abcdefgh`,
];
const str = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('a', 'B', ':', '=', '"', '\\', 'é', '\ud800', '\udc00', '…', '@', '/'), maxLength: 10 }) },
);
const NUMBERS = [1e3, -0, 1.5, 0, 1, 42, 999, 1000, 123000, 0.001, 0.01, 0.0099, 1e21, 1.5e-7, -3000, 2 ** 53 + 2, 5e-324, 1e9, 12345678901, -1, 2520063900022630000];
const num = fc.oneof(fc.constantFrom(...NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
/** Only in values passed as they are (a parsed message holds neither): JSON writes null, or leaves the member out. */
const literalOnly = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, undefined);

/** Objects made by JSON.parse (plain data, an own `__proto__` member stays a member), or by spreading members in. */
function objectOf(members: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of members) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof({ weight: 4, arbitrary: str }, { weight: 2, arbitrary: num }, { weight: 1, arbitrary: fc.constantFrom(true, false, null) }, { weight: 1, arbitrary: literalOnly }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map(objectOf),
    // an OAuth callback's members, a tool result's content
    fc.tuple(fc.constantFrom('code', 'access_token', 'text'), str, fc.constantFrom('state', 'redirect_uri', 'type', 'iss')).map(([a, x, b]) => objectOf([[a, x], [b, 'v']])),
    fc.array(fc.tuple(fc.constantFrom('text', 'image'), str), { maxLength: 2 }).map((c) => ({ content: c.map(([type, text]) => ({ type, text })) })),
  ),
}));
const id = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.constantFrom(1e3, 5000, 0.001, 1.5, -0), fc.string({ maxLength: 6 }), fc.constantFrom(SECRET, 'Bearer abcdefgh'));
const method = fc.oneof(fc.constantFrom('tools/call', 'initialize', 'notifications/progress', 'sampling/createMessage'), str);

/** A JSON-RPC-like message (member order as servers write it, or shuffled). */
const message = fc
  .tuple(fc.constantFrom('request', 'notification', 'result', 'error'), id, method, value, fc.boolean(), fc.integer())
  .map(([kind, i, m, v, resultFirst, code]) => {
    const members: [string, unknown][] =
      kind === 'request'
        ? [['jsonrpc', '2.0'], ['id', i], ['method', m], ['params', v]]
        : kind === 'notification'
          ? [['jsonrpc', '2.0'], ['method', m], ['params', v]]
          : kind === 'result'
            ? [['jsonrpc', '2.0'], ['id', i], ['result', v]]
            : [['jsonrpc', '2.0'], ['id', i], ['error', objectOf([['code', code], ['message', m], ['data', v]])]];
    if (resultFirst) members.push(members.shift() as [string, unknown]);
    return objectOf(members);
  });

const redactorOptions = fc.constantFrom<ConstructorParameters<typeof Redactor>[0]>({}, { secrets: [SECRET, SHORT_SECRET] }, { maxStringBytes: 64 }, { secrets: [SECRET], maxStringBytes: 64 });

/** Every string and key of `v`, every number and every object but arrays. */
function visit(v: unknown, onString: (s: string) => void, onNumber: (x: number) => void, onObject: (o: object) => void): void {
  if (typeof v === 'string') onString(v);
  else if (typeof v === 'number') onNumber(v);
  else if (Array.isArray(v)) for (const x of v) visit(x, onString, onNumber, onObject);
  else if (typeof v === 'object' && v !== null) {
    onObject(v);
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      onString(k);
      visit(x, onString, onNumber, onObject);
    }
  }
}
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What `isClean` is to say, from the full walk: the redaction gives `v` back as it is (the same
 * reference: nothing changed), no string or key holds a lone surrogate (JSON.stringify escapes it,
 * a peer may not), in an incoming message no number is one a text may write shorter, and in one
 * not parsed every object is a plain one.
 */
function expectedClean(r: Redactor, v: unknown, parsed: boolean): boolean {
  // (as JSON, what a trace holds: the walk copies an object holding NaN, which is not itself, and
  // writes an array's undefined as null, as JSON does)
  if (JSON.stringify(r.redact(v)) !== JSON.stringify(v)) return false;
  let ok = true;
  visit(
    v,
    (s) => {
      if (LONE.test(s)) ok = false;
    },
    (x) => {
      if (parsed && Number.isFinite(x) && mayBeWrittenShorter(x)) ok = false;
    },
    (o) => {
      // a value not from JSON.parse: an object whose `constructor` is not Object's (here, an own
      // `constructor` member) is left to the full walk, which knows class instances
      if (!parsed && (o as { constructor?: unknown }).constructor !== Object) ok = false;
    },
  );
  return ok;
}

function checkClean(r: Redactor, v: unknown, parsed: boolean): boolean {
  const clean = r.isClean(v, parsed);
  const bytes = r.lastBytes;
  const chars = r.lastChars;
  expect(clean).toBe(expectedClean(r, v, parsed));
  if (clean) {
    const json = JSON.stringify(v);
    expect(bytes).toBe(Buffer.byteLength(json, 'utf8'));
    expect(chars).toBe(json.length);
    expect(r.redactJson(v)).toBe(json);
  }
  return clean;
}

describe('redaction check: isClean', () => {
  it('the messages of a busy client are clean, with their sizes (the fast path holds)', () => {
    const text = 'hello from the bench client';
    const msgs: [unknown, boolean][] = [
      [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, false],
      [JSON.parse(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"${text}"}]}}`), true],
      [JSON.parse(`{"result":{"content":[{"type":"text","text":"${text}"}]},"jsonrpc":"2.0","id":3}`), true],
      [{ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'engine-bench-client', version: '0.1.0' } } }, false],
      [JSON.parse('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}'), true],
      [JSON.parse('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":50,"total":100,"message":"half way: é 日本"}}'), true],
      [JSON.parse('{"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":"read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}],"nextCursor":null,"maxTokens":1.5,"isError":false}}'), true],
    ];
    for (const secrets of [[], [SECRET, SHORT_SECRET]]) {
      const r = new Redactor({ secrets });
      for (let round = 0; round < 3; round++) for (const [m, parsed] of msgs) expect(checkClean(r, m, parsed), JSON.stringify(m)).toBe(true);
    }
  });

  it('a string found clean before a secret is configured is looked at again once it is one (a token learnt at run time), and after it is removed', () => {
    const token = 'run-time-token-abc123';
    const m = (): unknown => JSON.parse(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"${token}"}],"echo":"${token}"}}`);
    const r = new Redactor();
    for (let i = 0; i < 3; i++) expect(r.isClean(m(), true)).toBe(true);
    r.addSecrets([token]);
    expect(r.isClean(m(), true)).toBe(false);
    expect(r.isClean({ note: token }, false)).toBe(false);
    expect(JSON.stringify(r.redact(m()))).not.toContain(token);
    r.removeSecrets([token]);
    expect(r.isClean(m(), true)).toBe(true);
  });

  it('property: isClean says clean exactly where the redaction changes nothing (sensitive keys, OAuth codes, credential-looking strings, configured secrets, escapes, non-ASCII, lone surrogates, numbers 1e3/-0/1.50), and then its sizes are the compact JSON\'s', () => {
    let clean = 0;
    let dirty = 0;
    // one redactor for all cases too, as a tracer has: its caches of strings and keys met before
    // (secrets added and removed now and then)
    const shared = new Redactor();
    const n = fuzz('redaction check: isClean ≡ the full walk changes nothing, sizes exact', 5_000, fc.tuple(message, redactorOptions, fc.boolean(), fc.nat(20)), ([m, options, parsed, turn]) => {
      const r = new Redactor(options);
      // incoming: as JSON.parse makes it (no undefined, NaN or Infinity left)
      const v = parsed ? (JSON.parse(JSON.stringify(m)) as unknown) : m;
      if (checkClean(r, v, parsed)) clean++;
      else dirty++;
      // the verdict holds again, on the caches the first call filled
      expect(r.isClean(v, parsed)).toBe(expectedClean(r, v, parsed));
      if (turn === 0) shared.addSecrets([SECRET, SHORT_SECRET]);
      else if (turn === 1) shared.removeSecrets([SECRET, SHORT_SECRET]);
      checkClean(shared, v, parsed);
    });
    // not vacuous either way
    expect(clean).toBeGreaterThan(n / 10);
    expect(dirty).toBeGreaterThan(n / 10);
  });

  it('property: an incoming text of exactly lastChars characters that passes is the message and no more (exponents, escapes, spacing, a repeated member)', () => {
    let passed = 0;
    let refusedDups = 0;
    const n = fuzz('redaction check: a passing incoming text holds no repeated member', 5_000, fc.tuple(message, redactorOptions, fc.integer(), fc.boolean()), ([m, options, seed, dup]) => {
      const compact = JSON.parse(JSON.stringify(m)) as unknown;
      const text = renderJson(compact, mulberry32(seed), dup);
      const parsed = JSON.parse(text.text) as unknown;
      const r = new Redactor(options);
      const clean = checkClean(r, parsed, true);
      if (!clean || text.text.length !== r.lastChars) {
        if (text.duplicated) refusedDups++;
        return;
      }
      passed++;
      // what the tracer writes as `msg` then: no member the parsed value lacks
      expect(text.duplicated).toBe(false);
      expect(JSON.stringify(JSON.parse(text.text))).toBe(JSON.stringify(parsed));
      expect(Buffer.byteLength(text.text, 'utf8')).toBe(r.lastBytes);
    });
    expect(passed).toBeGreaterThan(n / 20);
    expect(refusedDups).toBeGreaterThan(n / 20);
  });
});

/** Ways a text may write `x`: JSON's own mostly, or with an exponent (`1e3`, `15e-1`), or with a trailing zero (`1.50`). */
function numberText(x: number, rng: () => number): string {
  const plain = JSON.stringify(x);
  const p = rng();
  if (p > 0.4 || !Number.isFinite(x)) return plain;
  if (p < 0.1 && plain.includes('.') && !plain.includes('e')) return `${plain}0`;
  if (p < 0.15 && Object.is(x, 0)) return '-0';
  const [mant, exp] = x.toExponential().split('e');
  const digits = mant.replace('-', '').replace('.', '');
  const e = Number(exp) - (digits.length - 1);
  return `${x < 0 ? '-' : ''}${digits}${rng() < 0.5 ? 'e' : 'E'}${e}`;
}

/** A string as a peer may write it: characters raw where JSON allows (lone surrogates too), or escaped. */
function stringText(s: string, rng: () => number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const u = `\\u${c.toString(16).padStart(4, '0')}`;
    if (c === 34 || c === 92 || c < 0x20) out += rng() < 0.5 ? u : JSON.stringify(s[i]).slice(1, -1);
    else if (c === 47) out += rng() < 0.2 ? '\\/' : '/';
    else out += rng() < 0.05 ? u : s[i];
  }
  return `${out}"`;
}

/** `v` as a peer's JSON text; with `dup`, one object gets a member repeated before its last one. */
function renderJson(v: unknown, random: () => number, dup: boolean): { text: string; duplicated: boolean } {
  let duplicated = false;
  // half the texts are written as JSON.stringify writes them (but for the repeated member)
  const faithful = random() < 0.5;
  const rng = (): number => (faithful ? 1 : random());
  const ws = (): string => (rng() < 0.03 ? ' ' : '');
  const render = (x: unknown): string => {
    if (typeof x === 'number') return numberText(x, rng);
    if (typeof x === 'string') return stringText(x, rng);
    if (x === null || typeof x !== 'object') return JSON.stringify(x);
    if (Array.isArray(x)) return `[${x.map((e) => ws() + render(e)).join(',')}]`;
    const keys = Object.keys(x);
    const members = keys.map((k) => `${stringText(k, rng)}${ws()}:${render((x as Record<string, unknown>)[k])}`);
    if (dup && !duplicated && members.length > 0 && random() < 0.5) {
      const at = Math.floor(random() * members.length);
      members.splice(at, 0, `${stringText(keys[at], rng)}:${random() < 0.5 ? '"hidden-credential-value"' : '1'}`);
      duplicated = true;
    }
    return `{${members.join(',')}}`;
  };
  return { text: render(v), duplicated };
}
