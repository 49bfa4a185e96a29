/**
 * Pagination (server/utilities/pagination): every declared list terminates, has no duplicates
 * across pages, and an invalid cursor is refused with -32602.
 */
import { declared, LIST_CAPABILITY, LIST_KEY, listAll, MAX_PAGES, type ListMethod } from '../core/lists.js';
import { describeOutcome, messageOf } from '../core/probe.js';
import { notApplicable, pass, skip, violated, type CheckDef } from '../core/types.js';
import type { Session } from '../core/context.js';

function declaredLists(s: Session): ListMethod[] {
  return (Object.keys(LIST_KEY) as ListMethod[]).filter((m) => declared(s, LIST_CAPABILITY[m]));
}

const terminates: CheckDef = {
  id: 'pagination.terminates',
  title: `lists end: nextCursor never repeats (followed up to ${MAX_PAGES} pages)`,
  clause: 'schema.json PaginatedResult.nextCursor',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const methods = declaredLists(s);
    if (methods.length === 0) return notApplicable('the server declares no paginated list (tools, resources, prompts)');
    const read: string[] = [];
    for (const m of methods) {
      const l = await listAll(ctx, s, m);
      if (l.loop !== undefined) {
        return violated(
          `${m}: page ${l.loop.page} handed out cursor ${JSON.stringify(l.loop.cursor)} again; following nextCursor would never end (a cursor is the position after the last returned result)`,
          l.loop.message,
        );
      }
      if (l.tooManyPages) return violated(`${m}: still a nextCursor after ${MAX_PAGES} pages (${l.items.length} items); mcpwire stops there`, l.pages.at(-1)?.message, { level: 'SHOULD' });
      if (l.malformed !== undefined) return violated(`${m}: page ${l.malformed.page} has no "${LIST_KEY[m]}" array`, l.malformed.message);
      if (l.failed === undefined) read.push(`${m}: ${l.pages.length} page(s), ${l.items.length} items`);
    }
    return read.length > 0 ? pass(read.join('; ')) : skip('blocked: no declared list could be read (see capabilities.declared-served)');
  },
};


const noDuplicates: CheckDef = {
  id: 'pagination.no-duplicates',
  title: 'no item appears twice across the pages of a list (stable cursors)',
  clause: 'server.utilities.pagination#2',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    const methods = declaredLists(s);
    if (methods.length === 0) return notApplicable('the server declares no paginated list (tools, resources, prompts)');
    for (const m of methods) {
      const l = await listAll(ctx, s, m);
      if (l.pages.length < 2) continue;
      const seen = new Set<string>();
      for (let i = 0; i < l.items.length; i++) {
        // The same item twice (not just the same name: that is tools.names-unique's business).
        const k = JSON.stringify(l.items[i]);
        if (seen.has(k)) {
          const name = JSON.stringify(l.items[i].name ?? l.items[i].uri ?? l.items[i].uriTemplate);
          return violated(`${m}: ${name} appears again on page ${l.pages.indexOf(l.origins[i].page!) + 1}; servers SHOULD provide stable cursors`, l.origins[i].page?.message);
        }
        seen.add(k);
      }
    }
    return pass();
  },
};

const invalidCursor: CheckDef = {
  id: 'pagination.invalid-cursor',
  title: 'an invalid cursor gets error -32602',
  clause: 'server.utilities.pagination#5',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    const m = declaredLists(s).find((x) => x !== 'resources/templates/list');
    if (m === undefined) return notApplicable('the server declares no paginated list (tools, resources, prompts)');
    const o = await s.probe.request(m, { cursor: 'mcpwire-check-invalid-cursor' });
    if (o.kind === 'error' && o.error.code === -32602) return pass(`${m} → -32602`);
    const got = o.kind === 'result' ? 'a success result (the cursor was accepted or ignored)' : describeOutcome(o);
    return violated(`${m} with an invalid cursor got ${got}; invalid cursors SHOULD result in error -32602 (Invalid params)`, messageOf(o));
  },
};

const cursorStable: CheckDef = {
  id: 'pagination.cursor-stable',
  title: 'asking for the same cursor again returns the same page',
  clause: 'server.utilities.pagination#2',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    for (const m of declaredLists(s)) {
      const l = await listAll(ctx, s, m);
      if (l.pages.length < 2) continue;
      const cursor = (l.pages[0].message as { result?: { nextCursor?: unknown } }).result?.nextCursor;
      const before = (l.pages[1].message as { result?: Record<string, unknown> }).result?.[LIST_KEY[m]];
      const o = await s.probe.request(m, { cursor });
      if (o.kind !== 'result') return violated(`${m}: the cursor of page 2 asked again got ${describeOutcome(o)}`, messageOf(o));
      if (JSON.stringify(o.result[LIST_KEY[m]]) !== JSON.stringify(before)) {
        return violated(`${m}: the same cursor returned a different page (nothing changed in between); servers SHOULD provide stable cursors`, messageOf(o));
      }
      return pass(`${m}: page 2 read twice, identical`);
    }
    return notApplicable('no list has more than one page');
  },
};

export const paginationChecks: CheckDef[] = [terminates, noDuplicates, invalidCursor, cursorStable];
