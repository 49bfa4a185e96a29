/**
 * `trace html` of a 2026-07-28 tap trace (test/fixtures/modern-mrtr.jsonl: discover, a listing,
 * a call, and a call answered after one input_required round) in headless Chromium: the header
 * names the era; the round's rows (the input_required answer, the retry with its new id and its
 * answer) are grouped under the original request, and selecting any of them shows the whole
 * request, every round together.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTrace, renderHtml } from '../../src/trace-api.js';
import { launchHeadless, type HeadlessContext } from '../support/chromium.js';

interface Page {
  on(event: 'pageerror', cb: (e: Error) => void): void;
  goto(url: string): Promise<unknown>;
  evaluate<T>(expression: string): Promise<T>;
}

const dir = mkdtempSync(join(tmpdir(), 'mcpwire-html-modern-'));
let context: HeadlessContext<Page> | undefined;
afterAll(async () => {
  await context?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('trace html of a 2026-07-28 trace (headless Chromium)', () => {
  it('names the era and groups the input rounds of one request under it', async () => {
    const records = parseTrace(readFileSync('test/fixtures/modern-mrtr.jsonl', 'utf8')).records as Array<Record<string, any>>;
    const calls = records.filter((r) => r.dir === 'out' && r.method === 'tools/call' && r.msg.params.name === 'confirm');
    const [first, retry] = calls.map((r) => records.indexOf(r));
    const grouped = records.map((r, i) => i).filter((i) => records[i].id === records[first].id || records[i].id === records[retry].id);
    expect(grouped).toHaveLength(4);

    const file = join(dir, 'modern.html');
    writeFileSync(file, renderHtml(records as never, { title: 'modern-mrtr.jsonl' }));
    context = await launchHeadless<Page>(join(dir, 'profile'));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);

    expect(await page.evaluate<string>(`document.getElementById('count').textContent`)).toContain('era: modern modern 2026-07-28');
    const marked = await page.evaluate<number[]>(`Array.from(document.querySelectorAll('#rows .row.round, #rows .row.round-origin')).map((r) => Number(r.dataset.index))`);
    expect(marked).toEqual(grouped);
    const labels = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('#rows .row')).map((r) => r.querySelector('.label, .evlabel').textContent)`);
    expect(labels[first]).toContain(`tools/call #${records[first].id} (1 input round)`);
    expect(labels[retry]).toContain(`↳ round 1 of #${records[first].id}: tools/call #${records[retry].id}`);

    // Selecting the retry's answer shows the whole request: both attempts and both answers, in order.
    await page.evaluate(`document.querySelector('#rows .row[data-index="${grouped[3]}"]').click()`);
    const shown = JSON.parse(await page.evaluate<string>(`document.getElementById('detail-json').textContent`));
    expect(shown.map((g: { round: number; dir: string }) => `${g.round} ${g.dir}`)).toEqual(['0 client → server', '0 server → client', '1 client → server', '1 server → client']);
    expect(shown[1].msg.result.resultType).toBe('input_required');
    expect(shown[2].msg.params.requestState).toBe(shown[1].msg.result.requestState);
    expect(await page.evaluate<string>(`document.getElementById('detail-meta').textContent`)).toContain(`input round 1 of 1 (request #${records[first].id})`);
    // A message outside any round shows alone.
    await page.evaluate(`document.querySelector('#rows .row[data-index="${first - 1}"]').click()`);
    expect(JSON.parse(await page.evaluate<string>(`document.getElementById('detail-json').textContent`))).toEqual(records[first - 1].msg);
    expect(errors).toEqual([]);
  }, 60_000);
});
