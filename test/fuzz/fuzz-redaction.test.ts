/**
 * Property-based fuzzing of the redactors (src/trace/redact.ts for traces,
 * src/host/redaction.ts for what the host hands out). What they claim, tested as claimed:
 *
 * - a configured secret (≥ MIN_SECRET_LENGTH characters) does not survive anywhere in a string —
 *   as given, URL-encoded, form-encoded, JSON-escaped, base64 / base64url — however it is
 *   embedded (arbitrary text around it, in a key, deep in a value, in a string cut at the
 *   truncation limit, cut short before `…`); not in `redactString`, `redact`, `redactJson`;
 * - a Bearer header value's credential alone, a Basic credential's password and a URL's password
 *   are secrets too;
 * - the host's data redaction leaves a string without a credential unchanged (no over-redaction);
 * - `redactJson` writes the same bytes as `JSON.stringify(redact(v))` and `lastBytes` is the JSON
 *   size of the original, for arbitrary JSON values (own `__proto__` members included).
 *
 * Secrets are drawn from an alphabet without `[` and `]`, so a secret cannot be a piece of the
 * `[redacted]` marker itself. Counts print as `[fuzz] …` lines.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

// Fuzz properties run many cases: generous per-test bounds for a loaded 2-core CI box (no timing is asserted).
vi.setConfig({ testTimeout: 180_000 });
import { serverRedaction } from '../../src/host/redaction.js';
import type { ResolvedServer } from '../../src/host/config/types.js';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import { MIN_SECRET_LENGTH, REDACTED, Redactor } from '../../src/trace/redact.js';
import { fuzz, mulberry32 } from '../support/fuzz.js';

const secretChar = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')) },
  { weight: 2, arbitrary: fc.constantFrom(...'-_.~+/=!$%&*()?#@:;,\'"\\ <>{}|^`'.split('')) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ß', '日', '本', '🔑', '\n', '\t', '\u2028') },
);
const secretArb = fc.array(secretChar, { minLength: MIN_SECRET_LENGTH, maxLength: 24 }).map((a) => a.join(''));
/**
 * Without whitespace: a value shaped `Scheme credentials` (`aaaa- bbbb`) is read as a header value
 * whose scheme is public (`secretForms`), so only its credentials are secret.
 */
const secretNoWs = secretArb.map((s) => s.replace(/\s/g, '_'));
/** Text around a secret: anything (full Unicode), or something that looks like its neighbours. */
const around = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ maxLength: 20 }), fc.constantFrom('', ' ', '=', 'token=', 'Bearer ', '"key":"', 'https://u:', '?x=1&sig=', '…'));

type Encoding = 'raw' | 'url' | 'form' | 'json' | 'base64' | 'base64url' | 'base64-padded';
const encodingArb = fc.constantFrom<Encoding>('raw', 'url', 'form', 'json', 'base64', 'base64url', 'base64-padded');

/** The secret's form under `enc` (what must not be in the output). */
function form(secret: string, enc: Encoding): string {
  switch (enc) {
    case 'raw':
      return secret;
    case 'url':
      return encodeURIComponent(secret);
    case 'form':
      return encodeURIComponent(secret).replace(/%20/g, '+');
    case 'json':
      return JSON.stringify(secret).slice(1, -1);
    case 'base64':
      return Buffer.from(secret).toString('base64').replace(/=+$/, '');
    case 'base64url':
      return Buffer.from(secret).toString('base64url');
    case 'base64-padded':
      return Buffer.from(secret).toString('base64').replace(/=+$/, '');
  }
}

/** The whole text as a server would echo it: the encoding applies to everything (it is char-local) or, for base64, to the secret. */
function embed(before: string, secret: string, after: string, enc: Encoding): string {
  const whole = before + secret + after;
  switch (enc) {
    case 'raw':
      return whole;
    case 'url':
      return encodeURIComponent(whole);
    case 'form':
      return encodeURIComponent(whole).replace(/%20/g, '+');
    case 'json':
      return JSON.stringify(whole);
    case 'base64':
      return before + Buffer.from(secret).toString('base64').replace(/=+$/, '') + after;
    case 'base64url':
      return before + Buffer.from(secret).toString('base64url') + after;
    case 'base64-padded':
      return before + Buffer.from(secret).toString('base64') + after;
  }
}

/** encodeURIComponent throws on lone surrogates: such texts are not echoable in that form. */
function encodable(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

function noForm(out: string, secret: string, enc: Encoding): void {
  const f = form(secret, enc);
  expect(out.includes(f), `${enc} form ${JSON.stringify(f)} of ${JSON.stringify(secret)} survived in ${JSON.stringify(out)}`).toBe(false);
}

describe('fuzz: trace redactor', () => {
  it('a configured secret survives in no claimed encoding, wherever it sits in a string, a key, a nested value; redactString, redact and redactJson alike', () => {
    fuzz('trace redactor: configured secrets in any encoding', 7_000, fc.tuple(secretArb, around, around, encodingArb, fc.nat(3)), ([secret, before, after, enc, where]) => {
      fc.pre(encodable(before + secret + after));
      const r = new Redactor({ secrets: [secret] });
      const text = embed(before, secret, after, enc);
      noForm(r.redactString(text), secret, enc);
      const value =
        where === 0 ? { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } } : where === 1 ? { [text]: 1, params: { a: [text] } } : where === 2 ? [[[{ x: text }]]] : text;
      const json = r.redactJson(value) ?? '';
      noForm(json, secret, enc);
      noForm(JSON.stringify(JSON.parse(json)), secret, enc); // …nor once its JSON is read back
      noForm(JSON.stringify(r.redact(value)), secret, enc);
    });
  });

  it('cut by truncation or before "…": no secret head of MIN_SECRET_LENGTH or more survives', () => {
    fuzz('trace redactor: truncation and … cuts', 2_000, fc.tuple(secretNoWs, fc.integer({ min: 0, max: 200 }), fc.integer({ min: MIN_SECRET_LENGTH, max: 24 })), ([secret, pad, keep]) => {
      const r = new Redactor({ secrets: [secret], maxStringBytes: 128 });
      // a long string with the secret across the 128-byte cut
      const long = 'x'.repeat(Math.max(0, 128 - pad % 40)) + secret + 'y'.repeat(200 + pad);
      const out = r.redactString(long);
      expect(out).toContain('[truncated by mcpwire');
      for (let n = MIN_SECRET_LENGTH; n <= secret.length; n++) expect(out.includes(secret.slice(0, n)) && !REDACTED.includes(secret.slice(0, n))).toBe(false);
      // an excerpt cut short right after a head of the secret
      const head = secret.slice(0, Math.min(keep, secret.length));
      const cut = r.redactString(`body: ${head}… (512 chars)`);
      expect(cut.includes(head)).toBe(false);
    });
  });

  it('regression: an own __proto__ member stays in the trace when a sibling is redacted (was set as the copy\'s prototype and lost)', () => {
    const v = JSON.parse('{"__proto__":{"a":1},"token":"abcdefgh","x":{"__proto__":"p","password":"pw"}}') as unknown;
    const r = new Redactor();
    expect(r.redactJson(v)).toBe('{"__proto__":{"a":1},"token":"[redacted]","x":{"__proto__":"p","password":"[redacted]"}}');
  });

  it('redactJson writes the bytes of JSON.stringify(redact(v)), and lastBytes is the JSON size of v, for arbitrary JSON (own __proto__ members included)', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'token', 'code', 'state', 'authorization', 'progressToken', 'text'), fc.string({ maxLength: 6 }));
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 10 }), fc.constantFrom('Bearer abcdefgh', 'GITHUB_TOKEN=ghp_123456', 'https://u:p@h/', 'supersecret1'), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null)),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((members) => JSON.parse(`{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as unknown),
      ),
    }));
    fuzz('trace redactor: redactJson ≡ JSON.stringify(redact) and lastBytes', 6_000, fc.tuple(value, fc.boolean()), ([v, withSecret]) => {
      const r = new Redactor(withSecret ? { secrets: ['supersecret1'] } : {});
      const fast = r.redactJson(v);
      const fastBytes = r.lastBytes;
      const slow = JSON.stringify(r.redact(v));
      expect(fast).toBe(slow);
      expect(r.lastBytes).toBe(Buffer.byteLength(JSON.stringify(v), 'utf8'));
      expect(fastBytes).toBe(r.lastBytes);
      // nothing but values changes: the same members, own `__proto__` ones included
      sameMembers(JSON.parse(fast ?? 'null'), v);
    });
    // the tracer writes a message's own JSON text when `isClean` says the redaction
    // would change nothing; that claim, and the sizes it measures, for the same arbitrary JSON.
    let clean = 0;
    const n = fuzz('trace redactor: isClean(v) ⇒ redactJson(v) = JSON.stringify(v), sizes exact', 6_000, fc.tuple(value, fc.boolean(), fc.boolean()), ([v, withSecret, parsed]) => {
      const r = new Redactor(withSecret ? { secrets: ['supersecret1'] } : {});
      // (`parsed`: the walk of an incoming message, which skips the plain-object checks; these
      // values are plain data, as JSON.parse makes)
      if (!r.isClean(v, parsed)) return;
      clean++;
      const json = JSON.stringify(v);
      expect(r.lastBytes).toBe(Buffer.byteLength(json, 'utf8'));
      expect(r.lastChars).toBe(json.length);
      expect(r.redactJson(v)).toBe(json);
      if (withSecret) expect(r.textHasSecret(json)).toBe(false);
    });
    // not vacuous: most arbitrary values hold nothing to redact
    expect(clean).toBeGreaterThan(n / 4);
  });

  it('a peer text that passes as clean is never shorter than its parsed value\'s compact JSON, so a text with a repeated member never passes (numbers in exponent form, raw lone surrogates, escapes, spacing)', () => {
    // The tracer writes an incoming text as it is when isClean(parsed, true) holds and the text is
    // exactly as long as the parsed value's compact JSON (`lastChars`). A repeated member (which
    // JSON.parse drops but for the last) only lengthens the text, so this holds as long as nothing
    // in a clean text can be written shorter than JSON.stringify writes it.
    const key = fc.oneof(fc.constantFrom('token', 'text', 'n', 'api_key', '\ud800', 'a\udc00b'), fc.string({ maxLength: 4 }));
    const num = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(1000, 123000, 5e8, 1e9, 7e20, 1e21, 1.5e25, 0.001, 0.0099, 0.01, 1.2e-7, 5e-324, -3000, -0.002, -2520063900022630000, 9007199254740993));
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('\ud800', 'x\udfffy', 'a/b'), num, fc.boolean(), fc.constant(null)),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((members) => JSON.parse(`{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as unknown),
      ),
    }));
    let passed = 0;
    let dups = 0;
    const n = fuzz('trace redactor: a clean peer text is no shorter than its compact JSON', 6_000, fc.tuple(value, fc.integer(), fc.boolean()), ([v, seed, dup]) => {
      const rng = mulberry32(seed);
      const text = renderJson(v, rng, dup);
      const parsed = JSON.parse(text.text) as unknown;
      const r = new Redactor();
      if (!r.isClean(parsed, true)) return;
      passed++;
      if (text.duplicated) dups++;
      expect(r.lastChars).toBe(JSON.stringify(parsed).length);
      expect(text.text.length).toBeGreaterThanOrEqual(r.lastChars);
      if (text.duplicated) expect(text.text.length).toBeGreaterThan(r.lastChars);
    });
    // not vacuous: many texts pass as clean, some of them with a repeated member
    expect(passed).toBeGreaterThan(n / 4);
    expect(dups).toBeGreaterThan(n / 50);
  });
});

/** Ways a JSON text may write the number `x`: JSON's own, and exponent forms (shorter for some). */
function numberForms(x: number): string[] {
  const forms = [JSON.stringify(x)];
  if (!Number.isFinite(x)) return forms;
  const [mant, exp] = x.toExponential().split('e');
  const e = Number(exp);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  forms.push(`${mant}e${e}`, `${mant}E${e < 0 ? '' : '+'}${e}`, `${neg ? '-' : ''}${digits}e${e - (digits.length - 1)}`);
  return forms;
}

/** Ways a JSON text may write the string `s`: characters raw where JSON allows, or escaped. */
function stringForm(s: string, rng: () => number): string {
  let out = '"';
  for (const ch of s) {
    for (let i = 0; i < ch.length; i++) {
      const c = ch.charCodeAt(i);
      const u = `\\u${c.toString(16).padStart(4, '0')}`;
      if (c === 34 || c === 92 || c < 0x20) out += rng() < 0.5 ? JSON.stringify(String.fromCharCode(c)).slice(1, -1) : u;
      else if (c === 47) out += rng() < 0.3 ? '\\/' : '/';
      else out += rng() < 0.1 ? u : String.fromCharCode(c); // lone surrogates raw too
    }
  }
  return `${out}"`;
}

/** A JSON text of `v` written as a peer may; with `dup`, one object gets a member repeated before its last one. */
function renderJson(v: unknown, rng: () => number, dup: boolean): { text: string; duplicated: boolean } {
  let duplicated = false;
  const ws = (): string => (rng() < 0.05 ? ' ' : '');
  const render = (x: unknown): string => {
    if (typeof x === 'number') {
      const forms = numberForms(x);
      return forms[Math.floor(rng() * forms.length)];
    }
    if (typeof x === 'string') return stringForm(x, rng);
    if (x === null || typeof x !== 'object') return JSON.stringify(x);
    if (Array.isArray(x)) return `[${x.map((e) => ws() + render(e)).join(',')}]`;
    const members = Object.keys(x).map((k) => `${stringForm(k, rng)}${ws()}:${render((x as Record<string, unknown>)[k])}`);
    if (dup && !duplicated && members.length > 0) {
      const k = Object.keys(x)[Math.floor(rng() * members.length)];
      members.splice(Object.keys(x).indexOf(k), 0, `${stringForm(k, rng)}:"hidden-credential-value"`);
      duplicated = true;
    }
    return `{${members.join(',')}}`;
  };
  return { text: render(v), duplicated };
}

/** `out` (redacted) has the members of `orig`, recursively; a value redacted whole is not looked into. */
function sameMembers(out: unknown, orig: unknown): void {
  if (out === REDACTED || orig === null || typeof orig !== 'object') return;
  if (Array.isArray(orig)) {
    expect(Array.isArray(out) && out.length === orig.length).toBe(true);
    orig.forEach((x, i) => sameMembers((out as unknown[])[i], x));
    return;
  }
  expect(Object.keys(out as object)).toEqual(Object.keys(orig));
  for (const k of Object.keys(orig)) sameMembers((out as Record<string, unknown>)[k], (orig as Record<string, unknown>)[k]);
}

describe('fuzz: host redaction', () => {
  const server = (env: Record<string, string>, headers: Record<string, string>, url?: string, clientSecret?: string): ResolvedServer => ({
    id: 's',
    source: 'global',
    file: '/c.json',
    enabled: true,
    transport: url ? 'http' : 'stdio',
    config: { ...emptyNormalizedConfig(), env, headers, ...(url ? { url } : { command: 'x' }), ...(clientSecret ? { oauth: { clientSecret } } : {}) },
  });

  it('credentials (credential-named env values, Bearer header credentials, Basic passwords, URL passwords, the OAuth client secret) survive neither text() nor data() in any claimed encoding', () => {
    const where = fc.constantFrom('env', 'bearer', 'basic', 'url', 'oauth');
    fuzz('host redaction: credentials in any encoding', 6_000, fc.tuple(secretNoWs, around, around, encodingArb, where), ([secret, before, after, enc, w]) => {
      fc.pre(encodable(before + secret + after));
      const alnum = secret.replace(/[^A-Za-z0-9]/g, 'x'); // URL user info and Basic need printable, unambiguous credentials
      const s =
        w === 'env'
          ? server({ MY_API_TOKEN: secret, ROOT_DIR: '/srv/data' }, {})
          : w === 'bearer'
            ? server({}, { Authorization: `Bearer ${secret}` }, 'https://mcp.example/')
            : w === 'basic'
              ? server({}, { Authorization: `Basic ${Buffer.from(`user:${alnum}`).toString('base64')}` }, 'https://mcp.example/')
              : w === 'url'
                ? server({}, {}, `https://user:${alnum}@mcp.example/mcp`)
                : server({}, {}, 'https://mcp.example/', secret);
      const credential = w === 'basic' || w === 'url' ? alnum : secret;
      const red = serverRedaction(s);
      const text = embed(before, credential, after, enc);
      noForm(red.text(text), credential, enc);
      noForm(red.data(text), credential, enc);
    });
  });

  it('regression: run-time secrets (a session id per renewal) stay bounded: the newest ones are redacted, long-dead ones no longer scanned for', () => {
    const red = serverRedaction(server({ MY_API_TOKEN: 'configured-token-1' }, {}));
    const ids = Array.from({ length: 100 }, (_, i) => `session-${String(i).padStart(3, '0')}-abcdef`);
    for (const id of ids) red.addSecrets([id]);
    expect(red.data(`${ids[99]} ${ids[92]} configured-token-1`)).toBe('[redacted] [redacted] [redacted]');
    expect(red.text(ids[0])).toBe(ids[0]);
  });

  it('data() changes nothing in a string that holds no credential (a non-credential env value stays visible)', () => {
    fuzz('host redaction: data() leaves credential-free text alone', 5_000, fc.tuple(secretArb, fc.string({ unit: 'grapheme', maxLength: 40 })), ([secret, text]) => {
      const red = serverRedaction(server({ MY_API_TOKEN: secret, ROOT_DIR: '/srv/data' }, {}));
      const probe = `${text} /srv/data`;
      fc.pre(!['raw', 'url', 'form', 'json', 'base64', 'base64url'].some((e) => probe.includes(form(secret, e as Encoding))));
      expect(red.data(probe)).toBe(probe);
    });
  });

  it('a configured value shaped like a credential (random hex, a UUID, base64 or base64url of random bytes, a known prefix, a JWT) survives neither text() nor data() under a name that says nothing', () => {
    fuzz('host redaction: credential-shaped values under any name', 4_000, fc.tuple(credentialShaped, around, around, encodingArb), ([token, before, after, enc]) => {
      fc.pre(encodable(before + token + after));
      const red = serverRedaction(server({ MODE: token }, { 'X-Custom': token }, 'https://mcp.example/'));
      const text = embed(before, token, after, enc);
      noForm(red.text(text), token, enc);
      noForm(red.data(text), token, enc);
    });
  });

  it('configuration values (words, versions, dates, paths) under names that say nothing change nothing in text() or data()', () => {
    fuzz('host redaction: configuration stays readable', 3_000, fc.tuple(configurationValue, configurationValue), ([env, header]) => {
      const red = serverRedaction(server({ WORKSPACE: env }, { 'X-Workspace': header }, 'https://mcp.example/'));
      const probe = `cannot write /tmp/${env}-cli-42/out.log: unsupported version "${header}" (${env}, ${header})`;
      expect(red.text(probe)).toBe(probe);
      expect(red.data(probe)).toBe(probe);
    });
  });
});

const hex = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: min, maxLength: max });
const alnum = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')), minLength: min, maxLength: max });
/** Bytes as a random generator gives them (not fast-check's runs of zeros: mostly distinct values). */
const randomBytes = fc.uint8Array({ minLength: 16, maxLength: 48 }).filter((b) => new Set(b).size >= b.length * 0.75);
/** Credentials by shape, as `looksLikeCredential` claims them (random ones: letters and digits both, many distinct characters). */
const credentialShaped = fc.oneof(
  hex(32, 64).filter((h) => /[0-9]/.test(h) && /[a-f]/.test(h)),
  fc.uuid().filter((u) => /[0-9]/.test(u) && /[a-f]/.test(u)),
  randomBytes.map((b) => Buffer.from(b).toString('base64')),
  randomBytes.map((b) => Buffer.from(b).toString('base64url')),
  fc.tuple(fc.constantFrom('sk-', 'sk-proj-', 'ghp_', 'github_pat_', 'glpat-', 'xoxb-', 'npm_', 'hf_'), alnum(16, 40)).map(([p, t]) => p + t),
  fc.tuple(fc.uint8Array({ minLength: 8, maxLength: 40 }), fc.uint8Array({ minLength: 16, maxLength: 40 })).map(
    ([a, b]) => `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(a).toString('base64url')}.${Buffer.from(b).toString('base64url')}`,
  ),
);
const WORDS = ['codelia', 'alpha', 'blue', 'team', 'dev', 'prod', 'west', 'eu', 'us', 'workspace', 'build', 'data', 'app', 'core', 'edge', 'release', 'beta', 'main', 'staging', 'Acme'];
/** Configuration as people write it: words with a small number, a date, a version, a path. */
const configurationValue = fc.oneof(
  fc.tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), fc.option(fc.integer({ min: 0, max: 9999 }), { nil: undefined })).map(([w, n]) => [...w, ...(n === undefined ? [] : [String(n)])].join('-')),
  fc.date({ min: new Date('1990-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.tuple(fc.nat(20), fc.nat(40), fc.nat(200)).map(([a, b, c]) => `${a}.${b}.${c}`),
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => `/srv/${w.join('/')}`),
);
