/**
 * The secret scrubber never eats our own prose. Every string and template literal in src/ (our
 * messages, usage lines, hints) passes the redactor that error text passes (`Redactor`, as
 * `reportError` and the commands' `scrubber` use it): each literal part must come out as it went
 * in, in order. An interpolated value stands as `‹1›`: it may be redacted (it may be a secret),
 * the words around it may not. `serve --http --listen 0.0.0.0:…` printed "needs a bearer token:
 * [redacted] --token-env <NAME>" (the word "give" taken for a credential) before this held.
 *
 * The scrubber still redacts what a credential written so looks like: the cases at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/trace/redact.js';

const src = path.resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

interface Literal {
  where: string;
  /** The literal parts, between interpolations. */
  parts: string[];
}

/** Every string and template literal of src/, with its literal parts. */
function literals(): Literal[] {
  const out: Literal[] = [];
  for (const file of sources(src)) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      let parts: string[] | undefined;
      if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) parts = [n.text];
      else if (ts.isTemplateExpression(n)) parts = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)];
      if (parts !== undefined) out.push({ where: `${path.relative(src, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`, parts });
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** Whether `parts` appear in `text` in order. */
function keepsParts(text: string, parts: string[]): boolean {
  let at = 0;
  for (const p of parts) {
    const i = text.indexOf(p, at);
    if (i === -1) return false;
    at = i + p.length;
  }
  return true;
}

/** Literals that name a credential word before `:` or `=` and go on with words: the messages at risk. */
const AT_RISK = /(?:token|secret|passw(?:or)?d|passphrase|key|credential)s?\s*[:=]\s*\S+ \S/i;

describe('the scrubber and our own messages', () => {
  const all = literals();

  it('regression: every literal in src/ keeps its words through the scrubber (prose after "token:", "password:", "key=" … included)', () => {
    const r = new Redactor();
    const eaten = all
      .map((l) => ({ ...l, text: l.parts.map((p, i) => (i === 0 ? p : `‹${i}›${p}`)).join('') }))
      .filter((l) => !keepsParts(r.redactString(l.text), l.parts))
      .map((l) => `${l.where}: ${JSON.stringify(l.text)} → ${JSON.stringify(r.redactString(l.text))}`);
    expect(eaten).toEqual([]);
  });

  it('the enumeration finds the messages at risk (so the check above cannot pass on nothing)', () => {
    const atRisk = all.filter((l) => AT_RISK.test(l.parts.join('‹›')));
    const texts = atRisk.map((l) => l.parts.join('‹›'));
    expect(texts).toEqual(expect.arrayContaining([expect.stringContaining('needs a bearer token: give --token-env <NAME>'), expect.stringContaining("OAuth tokens: logout <id>")]));
    expect(atRisk.length).toBeGreaterThanOrEqual(2);
  });

  it('credentials written after a name and a colon are still redacted', () => {
    const r = new Redactor();
    const cases: [string, string][] = [
      ['password: hunter\n', 'password: [redacted]\n'],
      ['password: letmein', 'password: [redacted]'],
      ['password: hunter2 was wrong', 'password: [redacted] was wrong'],
      ['token: ghp_abc123def more', 'token: [redacted] more'],
      ['GITHUB_TOKEN: abcdef more', 'GITHUB_TOKEN: [redacted] more'],
      ['DB_PASSWORD: letmein please', 'DB_PASSWORD: [redacted] please'],
      ["token: 'abc def'", "token: '[redacted] def'"],
      ['api_key: abc def', 'api_key: [redacted] def'],
      ['secret:abc def', 'secret:[redacted] def'],
      ['GITHUB_TOKEN=abc more', 'GITHUB_TOKEN=[redacted] more'],
    ];
    for (const [given, expected] of cases) expect(r.redactString(given), given).toBe(expected);
    // prose, kept
    expect(r.redactString('the bearer token: give --token-env <NAME>')).toBe('the bearer token: give --token-env <NAME>');
    expect(r.redactString('Token: pass it in the header')).toBe('Token: pass it in the header');
  });
});
