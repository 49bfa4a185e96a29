/**
 * Pagination over the gateway's aggregate lists (server.utilities.pagination): the cursor is
 * opaque to the client — base64url of `g<offset>` — and a cursor the gateway did not give out is
 * -32602 Invalid params (server.utilities.pagination#5). The aggregate is built again for each page, so a list that changed
 * between pages shifts; the `list_changed` notification tells the client to list again.
 */
import { invalidParams } from './downstream.js';

export const DEFAULT_PAGE_SIZE = 100;

export function encodeCursor(offset: number): string {
  return Buffer.from(`g${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string') throw invalidParams('invalid cursor');
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^g(\d{1,9})$/.exec(text);
  if (m === null || encodeCursor(Number(m[1])) !== cursor) throw invalidParams('invalid cursor: list again without one');
  return Number(m[1]);
}

/** One page of `items` under `key`, with `nextCursor` when more follow. */
export function page<T>(key: string, items: readonly T[], cursor: unknown, size = DEFAULT_PAGE_SIZE): Record<string, unknown> {
  const offset = decodeCursor(cursor);
  if (offset > items.length) throw invalidParams('invalid cursor: list again without one');
  const out: Record<string, unknown> = { [key]: items.slice(offset, offset + size) };
  if (offset + size < items.length) out.nextCursor = encodeCursor(offset + size);
  return out;
}
