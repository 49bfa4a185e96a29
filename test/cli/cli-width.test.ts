/**
 * The CLI measures text in terminal columns, not UTF-16 units: a tool described in Japanese, a
 * resource named with emoji or accents lines up in tables and wraps within the terminal
 * (`MCPWIRE_COLUMNS`), and a cut never splits a character. Unit checks of src/cli/width.ts and
 * output.ts, then the built CLI (`dist/`) against the stdio mock.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { truncate, table, wrap } from '../../src/cli/layout.js';
import { safeText } from '../../src/cli/output.js';
import { progressPrinter } from '../../src/cli/progress.js';
import stringWidth from 'string-width';
import { chunksWidth, displayWidth, hasWide, padEndWidth, ONE_COLUMN_CHARS } from '../../src/cli/width.js';
import { cleanup, mockJs, node, run, sandbox } from '../support/cli-user.js';

afterAll(cleanup);

const JA = '指定したキーワードでドキュメントを全文検索し、関連度の高い順に結果を返します。見つからない場合は空のリストを返します。';

describe('terminal columns', () => {
  it('wide characters count two columns, combining marks and joiners none; ASCII one', () => {
    expect(displayWidth('search')).toBe(6);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('ｶﾀｶﾅ')).toBe(4); // halfwidth katakana: narrow
    expect(displayWidth('ＡＢＣ')).toBe(6); // fullwidth Latin: wide
    expect(displayWidth('e\u0301te\u0301')).toBe(3); // decomposed accents
    expect(displayWidth('👨‍👩‍👧')).toBe(2); // one emoji sequence
    expect(displayWidth('😀x')).toBe(3);
  });

  it("the fast path's punctuation (… — → and the like) measures as string-width measures it", () => {
    for (const c of ONE_COLUMN_CHARS) {
      expect(displayWidth(`a${c}b`), c).toBe(stringWidth(`a${c}b`));
      expect(hasWide(c), c).toBe(false);
    }
    expect(displayWidth('→\ufe0f')).toBe(stringWidth('→\ufe0f')); // a variation selector leaves the fast path
  });

  it('truncate cuts to columns between graphemes, never inside a surrogate pair or a sequence', () => {
    expect(truncate('日本語のツール', 7)).toBe('日本語…');
    expect(displayWidth(truncate('日本語のツール', 8))).toBeLessThanOrEqual(8);
    expect(truncate('😀😀😀', 4)).toBe('😀…');
    expect(truncate('👨‍👩‍👧👨‍👩‍👧', 3)).toBe('👨‍👩‍👧…');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('日本', 4)).toBe('日本');
    // no lone surrogate anywhere
    for (let n = 1; n <= 8; n++) expect(truncate('a😀b😀c😀', n)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('safeText caps a long text without splitting a surrogate pair', () => {
    const s = safeText(`ab${'😀'.repeat(10)}`, 6);
    expect(s).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(s.endsWith('…')).toBe(true);
  });

  it('wrap keeps lines within the width and loses nothing: CJK text (no spaces) breaks between characters', () => {
    for (const width of [20, 33, 50]) {
      const lines = wrap(JA, width);
      expect(lines.length).toBeGreaterThan(1);
      for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
      expect(lines.join('')).toBe(JA);
    }
    const mixed = wrap(`Search ${JA} (fast)`, 30);
    for (const l of mixed) expect(displayWidth(l)).toBeLessThanOrEqual(30);
    expect(mixed.join(' ').replace(/ /g, '')).toBe(`Search${JA}(fast)`);
    // a long ASCII word is still cut with … (a URL stays one line)
    expect(wrap('see https://example.com/a/very/long/path/that/does/not/fit here', 20)[1]).toMatch(/…$/);
    expect(chunksWidth('日本語', 3)).toEqual(['日', '本', '語']);
    expect(padEndWidth('日本', 6)).toBe('日本  ');
  });

  it('a table lines up by columns: every cell of a column starts at the same terminal column', () => {
    const out = table(['name', 'description'], [['検索', 'キーワードで探す'], ['search', 'find by keyword'], ['e\u0301te\u0301', 'accents']], 80);
    const lines = out.split('\n');
    const startOfSecond = (l: string) => displayWidth(l.slice(0, l.search(/\S+$/) === -1 ? l.length : l.lastIndexOf('  ') + 2));
    expect(new Set(lines.map(startOfSecond)).size).toBe(1);
    // and it fits a narrow terminal in columns
    const narrow = table(['name', 'description'], [['検索ツール', JA]], 30);
    for (const l of narrow.split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(30);
  });
});

describe('progress on a terminal', () => {
  it('a redrawn progress line with a Japanese message fits the terminal in columns (one spare for the cursor)', async () => {
    const written: string[] = [];
    const stream = { isTTY: true, columns: 40, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    const p = progressPrinter(stream);
    await import('../../src/cli/layout.js'); // what the printer started loading
    await new Promise((r) => setTimeout(r, 0));
    p.onProgress({ progressToken: 1, progress: 1, total: 4, message: 'ドキュメントを索引に登録しています（大きなファイル）' });
    p.done();
    const line = written[0].replace('\r\u001b[2K', '');
    expect(line.endsWith('…')).toBe(true);
    expect(displayWidth(line)).toBeLessThanOrEqual(39);
    expect(displayWidth(line)).toBeGreaterThanOrEqual(37); // cut near the edge, not far before it
  });
});

describe('the CLI on a server that speaks Japanese', { timeout: 120_000 }, () => {
  const scenario = {
    tools: [
      { name: 'kensaku', builtin: 'echo', description: JA },
      { name: 'echo', builtin: 'echo' },
    ],
    resources: [
      { uri: 'mem://ja/readme', name: '読んでください', mimeType: 'text/plain', text: 'こんにちは' },
      { uri: 'mem://en/readme', name: 'readme', mimeType: 'text/plain', text: 'hello' },
    ],
  };
  const sb = sandbox({ ja: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } } });

  it('tools: every line fits the terminal (MCPWIRE_COLUMNS=50) and the description is wrapped, not cut after one line of UTF-16 units', async () => {
    const r = await run(sb, ['tools', 'ja'], { env: { MCPWIRE_COLUMNS: '50' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(50);
    const desc = lines.filter((l) => /^ {6}\S/.test(l) && !l.includes('Echo'));
    expect(desc.length).toBe(2); // at most two lines in the listing
    expect(desc[0].trim()).toBe(JA.slice(0, desc[0].trim().length)); // it starts at the start
  });

  it('resources: the uri column starts at the same terminal column on every row', async () => {
    const r = await run(sb, ['resources', 'ja'], { env: { MCPWIRE_COLUMNS: '100' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const ja = lines.find((l) => l.includes('mem://ja/readme'))!;
    const en = lines.find((l) => l.includes('mem://en/readme'))!;
    const head = lines[0];
    const col = (l: string, marker: string) => displayWidth(l.slice(0, l.indexOf(marker)));
    expect(col(ja, 'mem://')).toBe(col(en, 'mem://'));
    // the name column: where `mime` starts in the header is where text/plain starts on both rows
    expect(col(ja, 'text/plain')).toBe(col(head, 'mime'));
    expect(col(en, 'text/plain')).toBe(col(head, 'mime'));
  });
});
