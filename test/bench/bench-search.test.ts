/**
 * The tool-search bench (bench/search/, `npm run bench:search`) stays runnable: its evaluation
 * sets have the right shape (and the synthetic requests name tools the synthetic catalog has),
 * and its harness measures a tiny catalog. No figure is checked here: the bench reports them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs module of the bench
import { buildCost, checkEvalSet, entriesOf, key, queryCost, recall, tokens } from '../../bench/search/harness.mjs';
// @ts-expect-error a plain .mjs module of the bench
import { syntheticCatalog } from '../../bench/search/synthetic.mjs';
import { adaptTools } from '../../src/host/tools.js';
import { createToolIndex } from '../../src/host/search/tool-index.js';
import { root } from '../support/cli-process.js';

const read = (f: string) => JSON.parse(fs.readFileSync(path.join(root, 'bench/search', f), 'utf8'));

describe('bench/search', () => {
  it('eval sets: at least 60 requests, each a query with a catalog and server/tool labels; synthetic labels exist', () => {
    const main = checkEvalSet(read('eval-set.json')) as { catalog: string; expect: string[] }[];
    const held = ['eval-held-out.json', 'eval-held-out-2.json', 'eval-held-out-3.json'].flatMap((f) => checkEvalSet(read(f)) as { catalog: string; expect: string[] }[]);
    expect(main.length).toBeGreaterThanOrEqual(60);
    const names = new Set((syntheticCatalog(10_000) as { server: string; tools: { name: string }[] }[]).flatMap((s) => s.tools.map((t) => `${s.server}/${t.name}`)));
    expect(names.size).toBe(10_000);
    for (const r of [...main, ...held].filter((x) => x.catalog === 'synthetic')) expect(r.expect.filter((e) => !names.has(e))).toEqual([]);
    expect(() => checkEvalSet({ requests: [{ query: 'x', catalog: 'real', expect: ['no-slash'] }] })).toThrow(/server\/tool/);
  });

  it('the harness measures a tiny catalog', async () => {
    const catalog = adaptTools(syntheticCatalog(40));
    const entries = entriesOf(catalog);
    const { index, buildMs, heapBytes } = await buildCost(createToolIndex, entries, 2);
    expect(index.size).toBe(40);
    expect(buildMs.p50).toBeGreaterThanOrEqual(0);
    expect(heapBytes === undefined || typeof heapBytes === 'number').toBe(true);
    const target = key(catalog.tools[0]);
    const r = recall(index, [{ query: 'create an issue in jira', catalog: 'synthetic', expect: [target] }, { query: 'qqqq', catalog: 'synthetic', expect: [target] }]);
    expect(r.n).toBe(2);
    expect(r.misses.map((m: { query: string }) => m.query)).toContain('qqqq');
    expect(queryCost(index, ['jira issue'], 2).n).toBe(2);
    expect(tokens(catalog.tools).tokens).toBe(Math.ceil(tokens(catalog.tools).chars / 4));
  });
});
