/**
 * Reading a paginated list the way a careful client does (server/utilities/pagination): follow
 * `nextCursor`, never more than MAX_PAGES pages, stop when a cursor repeats (a loop), and keep
 * every page's message for evidence. Memoized per session so every check sees the same list.
 */
import type { CheckContext, Session } from './context.js';
import { isObject } from './context.js';
import type { Outcome, Recorded } from './probe.js';

export const MAX_PAGES = 50;

export type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

/** The array each list result carries. */
export const LIST_KEY: Readonly<Record<ListMethod, string>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/** The capability a list method needs. */
export const LIST_CAPABILITY: Readonly<Record<ListMethod, string>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'prompts/list': 'prompts',
};

export interface Listing {
  method: ListMethod;
  items: Record<string, unknown>[];
  /** Where each item came from: its page's message and its index in that page's array. */
  origins: Array<{ page: Recorded | undefined; index: number }>;
  pages: Recorded[];
  /** A page request that did not return a result. */
  failed?: { outcome: Outcome; page: number };
  /** A cursor the server handed out twice: following it would never end. */
  loop?: { cursor: unknown; page: number; message: unknown };
  /** Stopped at MAX_PAGES with a nextCursor still present. */
  tooManyPages?: boolean;
  /** A page whose list key was not an array. */
  malformed?: { page: number; message: unknown };
}

export async function listAll(ctx: CheckContext, s: Session, method: ListMethod): Promise<Listing> {
  return ctx.memo(`list:${method}`, () => readAll(s, method));
}

async function readAll(s: Session, method: ListMethod): Promise<Listing> {
  const out: Listing = { method, items: [], origins: [], pages: [] };
  const seen = new Set<string>();
  let cursor: unknown;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const o = await s.probe.request(method, cursor === undefined ? {} : { cursor });
    if (o.kind !== 'result') {
      out.failed = { outcome: o, page };
      return out;
    }
    if (o.message) out.pages.push(o.message);
    const arr = o.result[LIST_KEY[method]];
    if (!Array.isArray(arr)) {
      out.malformed = { page, message: o.message?.message ?? o.result };
      return out;
    }
    arr.forEach((it: unknown, index: number) => {
      if (!isObject(it)) return;
      out.items.push(it);
      out.origins.push({ page: o.message, index });
    });
    const next = o.result.nextCursor;
    if (next === undefined || next === null) return out;
    const key = JSON.stringify(next);
    if (seen.has(key)) {
      out.loop = { cursor: next, page, message: o.message?.message ?? o.result };
      return out;
    }
    seen.add(key);
    cursor = next;
  }
  out.tooManyPages = true;
  return out;
}

/** Whether a capability is declared (an object, per ServerCapabilities). */
export function declared(s: Session, capability: string): boolean {
  return isObject(s.capabilities[capability]);
}
