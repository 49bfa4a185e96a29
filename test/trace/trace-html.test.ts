/**
 * The `trace html` page in a real headless Chromium, driven by playwright-core. The browser is a
 * system Chromium on PATH when there is one, else the one shipped in the `@sparticuz/chromium`
 * devDependency (`MCPWIRE_CHROMIUM=npm|system|<path>` forces a choice; see
 * test/support/chromium.ts), so a fresh `npm ci && npm test` needs nothing installed by hand.
 * It never skips: without a usable browser it fails saying why.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTrace, renderHtml } from '../../src/trace/index.js';
import { launchHeadless, resolveChromium, type ChromiumSource, type HeadlessContext } from '../support/chromium.js';

const FIXTURE = 'test/fixtures/trace/sample.jsonl';
// Minimal structural types, so this file type-checks whether or not playwright-core is installed.
interface Locator {
  count(): Promise<number>;
  nth(i: number): Locator;
  click(): Promise<void>;
  textContent(): Promise<string | null>;
  fill(v: string): Promise<void>;
  selectOption(v: string): Promise<unknown>;
  isVisible(): Promise<boolean>;
}
interface Page {
  on(event: 'console', cb: (m: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', cb: (e: Error) => void): void;
  on(event: 'request', cb: (r: { url(): string }) => void): void;
  on(event: 'dialog', cb: (d: { message(): string; dismiss(): Promise<void> }) => void): void;
  goto(url: string): Promise<unknown>;
  locator(sel: string): Locator;
  /** Evaluated in the page (a string, so this file needs no DOM typings). */
  evaluate<T>(expression: string): Promise<T>;
}

describe('trace html in headless Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpwire-html-'));
  const userData = join(dir, 'profile');
  const htmlFile = join(dir, 'trace.html');
  const records = parseTrace(readFileSync(FIXTURE, 'utf8')).records;
  let context: HeadlessContext<Page> | undefined;
  let page: Page;
  let source: ChromiumSource;
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    const browser = await resolveChromium();
    source = browser.source;
    writeFileSync(htmlFile, renderHtml(records, { title: 'sample <b>.jsonl' }));
    context = await launchHeadless<Page>(userData, browser.executablePath);
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(htmlFile).href);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs in the Chromium that MCPWIRE_CHROMIUM asks for', async () => {
    const choice = process.env.MCPWIRE_CHROMIUM;
    if (choice === 'npm' || choice === 'system') expect(source).toBe(choice);
    expect(await page.evaluate<string>('navigator.userAgent')).toMatch(/Chrom(e|ium)\//);
  });

  it('a fresh machine (no Chromium on PATH) gets the npm-shipped one, and it renders the page', async () => {
    const fallback = await resolveChromium('auto', dirname(process.execPath));
    expect(fallback.source).toBe('npm');
    if (source === 'npm') return; // the whole file already ran in it
    const other = await launchHeadless<Page>(join(dir, 'profile-npm'), fallback.executablePath);
    try {
      const p = await other.newPage();
      await p.goto(pathToFileURL(htmlFile).href);
      expect(await p.locator('#rows .row').count()).toBe(records.length);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('loads without console errors or network access', async () => {
    expect(await page.locator('#rows .row').count()).toBe(records.length);
    expect(consoleErrors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
  });

  it('shows every message and event of the trace, in order, one lane per server', async () => {
    const rows = page.locator('#rows .row');
    const methods = await page.evaluate<string[]>(`[...document.querySelectorAll('#rows .row')].map((r) => r.dataset.method ?? '')`);
    const expected = records.map((r) => String('event' in r && r.event !== undefined ? r.event : (r as { method?: string }).method ?? ''));
    expect(methods).toEqual(expected);
    expect(await page.locator('#lanes .lane-name').count()).toBe(3); // client + 2 servers
    expect(await page.locator('#rows .arrow.out').count()).toBe(records.filter((r) => (r as { dir?: string }).dir === 'out' && !('event' in r)).length);
    expect(await page.locator('#rows .arrow.in').count()).toBe(records.filter((r) => (r as { dir?: string }).dir === 'in' && !('event' in r)).length);
    expect(await rows.nth(4).textContent()).toContain('initialize #0');
  });

  it('clicking a message shows its pretty-printed JSON', async () => {
    const index = records.findIndex((r) => (r as { kind?: string }).kind === 'error');
    await page.locator(`#rows .row[data-index="${index}"]`).click();
    const json = await page.locator('#detail-json').textContent();
    expect(JSON.parse(json ?? '')).toEqual((records[index] as { msg: unknown }).msg);
    expect(json).toContain('\n  "error": {\n');
    expect(await page.locator('#detail-title').textContent()).toContain('tools/call');
    expect(await page.locator('#detail-meta').textContent()).toContain('latency 1.300 ms');
  });

  it('filters by method and by server', async () => {
    const visible = () => page.evaluate<string[]>("[...document.querySelectorAll('#rows .row:not(.hidden)')].map((r) => r.dataset.server + '|' + r.dataset.method)");
    await page.locator('#filter-method').fill('tools/list');
    expect((await visible()).sort()).toEqual(['files|tools/list', 'files|tools/list', 'web<script>|tools/list', 'web<script>|tools/list']);
    await page.locator('#filter-server').selectOption('web<script>');
    expect(await visible()).toEqual(['web<script>|tools/list', 'web<script>|tools/list']);
    await page.locator('#filter-method').fill('');
    const webRows = records.filter((r) => r.server === 'web<script>').length;
    expect(await visible()).toHaveLength(webRows);
    await page.locator('#filter-server').selectOption('');
    expect(await visible()).toHaveLength(records.length);
  });

  it('renders hostile trace text as text (no HTML injection)', async () => {
    expect(dialogs).toEqual([]);
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    expect(await page.evaluate<number>("document.querySelectorAll('img, iframe, object, embed').length")).toBe(0);
    expect(await page.evaluate<number>("document.querySelectorAll('script').length")).toBe(2);
    const index = records.findIndex((r) => JSON.stringify(r).includes('__pwned'));
    await page.locator(`#rows .row[data-index="${index}"]`).click();
    expect(await page.locator('#detail-json').textContent()).toContain('</script><script>window.__pwned=1</script>');
    expect(await page.evaluate<string>('document.title')).toBe('mcpwire trace — sample <b>.jsonl');
    expect(await page.evaluate<number>("document.querySelectorAll('b').length")).toBe(0);
    expect(consoleErrors).toEqual([]);
  });
});
