/**
 * The index scores a query from the engine's postings (src/host/search/postings.ts) instead of
 * the engine's `search()`, for speed only: these tests prove both give the same hits with the same
 * scores — over a generated catalog of a thousand tools with template clones, prefix matches,
 * synonym marks, repeated words, both filters and every limit — and that the index falls back to
 * the engine while dropped tools' postings are still in it, then returns to the postings once the
 * engine is vacuumed. A minisearch whose fields are not the expected ones is searched through its
 * `search()`: the first test then fails, saying the fast path is gone.
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/mcp/types.js';
import { adaptTools } from '../../../src/host/tools.js';
import { createToolIndex, type ToolIndex } from '../../../src/host/search/tool-index.js';
import type { IndexedTool } from '../../../src/host/search/documents.js';

const VERBS = ['create', 'get', 'list', 'update', 'delete', 'search', 'archive', 'approve', 'export', 'send', 'open', 'close'];
const NOUNS = ['record', 'message', 'file', 'page', 'user', 'folder', 'report', 'task', 'note', 'image', 'alert', 'screenshot', 'directory', 'invoice'];
const PRODUCTS = ['acme', 'atlas', 'cobalt', 'delta', 'ember', 'fjord', 'garnet'];

/** A deterministic catalog: product servers of verb × noun tools with templated and hand-varied descriptions, parameters with choices, some read-only. */
function catalog(servers: number): IndexedTool[] {
  const out: { server: string; tools: Tool[] }[] = [];
  for (let s = 0; s < servers; s++) {
    const product = `${PRODUCTS[s % PRODUCTS.length]}${Math.floor(s / PRODUCTS.length) + 1}`;
    const tools: Tool[] = [];
    for (let v = 0; v < VERBS.length; v++) {
      const noun = NOUNS[(s + v * 3) % NOUNS.length]!;
      const verb = VERBS[v]!;
      const description = (s + v) % 5 === 0 ? `Lets you ${verb} a ${noun} quickly, with its owner and tags, in ${product}.` : `${verb[0]!.toUpperCase()}${verb.slice(1)}s the ${noun} in ${product}.`;
      const properties: Record<string, object> = { [`${noun}_id`]: { type: 'string', description: `The ${noun} id` } };
      if (v % 4 === 0) properties.format = { type: 'string', enum: ['pdf', 'markdown', 'png', 'slow 3G'] };
      tools.push({ name: `${verb}_${noun}`, title: (s + v) % 7 === 0 ? `${verb} ${noun}` : undefined, description, inputSchema: { type: 'object', properties }, annotations: { readOnlyHint: verb === 'get' || verb === 'list' || verb === 'search' } });
    }
    out.push({ server: product, tools });
  }
  const c = adaptTools(out);
  return c.tools.map((tool) => ({ tool, original: c.byName.get(tool.name)!.tool, serverTitle: tool.server.toUpperCase() }));
}

const QUERIES = [
  'make a folder called backups', 'delete a user', 'remove the old user and delete their files', 'show me the screensh', 'screenshots of the page',
  'get get get record', 'list every invoice in atlas2', 'what is in my notes', 'approve the alert', 'export the report as pdf', 'slow 3G', 'open the file',
  'archiv', 'directories', 'send a message to the team', 'find the image of a cat', 'close the task that is done', 'update the page title',
  'markdown', 'screensh screenshot', 'recor record records', 'how many invoices', 'look up the owner', 'cobalt3 folder', 'the a of', '', 'quickly tags owner', 'recordings', 'messag',
];

async function both(entries: IndexedTool[]): Promise<[ToolIndex, ToolIndex]> {
  const fast = await createToolIndex();
  const engine = await createToolIndex({ engineScoring: true });
  fast.sync(entries);
  engine.sync(entries);
  return [fast, engine];
}

/** Every query's hits, with scores, under several limits and both filters. */
function lists(index: ToolIndex, servers: string[]): string[][] {
  const out: string[][] = [];
  for (const q of QUERIES) {
    for (const o of [{ limit: 1 }, { limit: 5 }, { limit: 50 }, { limit: 10, servers }, { limit: 10, readOnly: true }]) out.push([q, JSON.stringify(o), ...index.search(q, o).map((h) => `${h.name} ${h.score}`)]);
  }
  return out;
}

describe('scoring from the postings', () => {
  it('gives the hits and scores of the engine’s own search (fails if any part of the scoring differs)', async () => {
    const entries = catalog(84);
    const [fast, engine] = await both(entries);
    expect([fast.size, fast.scoring, engine.scoring]).toEqual([1008, 'postings', 'engine']);
    const servers = ['atlas2', 'cobalt3', 'acme1'];
    const a = lists(fast, servers);
    expect(a.filter((l) => l.length > 2).length).toBeGreaterThan(100);
    expect(a).toEqual(lists(engine, servers));
  });

  it('searches through the engine while dropped tools’ postings remain, and from the postings again once it is vacuumed — the same hits throughout', async () => {
    const entries = catalog(42);
    const [fast, engine] = await both(entries);
    // drop a third of the tools, change the text of some others
    const next = entries
      .filter((_, i) => i % 3 !== 0)
      .map((e, i) => (i % 10 === 0 ? { ...e, original: { ...e.original!, description: `${e.original!.description} Also handles zebras and screenshots.` } } : e));
    fast.sync(next);
    engine.sync(next);
    expect(fast.scoring).toBe('engine');
    expect(lists(fast, ['atlas2'])).toEqual(lists(engine, ['atlas2']));
    for (let i = 0; i < 200 && fast.scoring !== 'postings'; i++) await new Promise((r) => setTimeout(r, 5));
    expect(fast.scoring).toBe('postings');
    expect(lists(fast, ['atlas2'])).toEqual(lists(engine, ['atlas2']));
    expect([fast.size, fast.search('zebras', { limit: 50 }).length]).toEqual([336, 34]);
  });
});
