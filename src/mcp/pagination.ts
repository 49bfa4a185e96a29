/**
 * Cursor pagination (server/utilities/pagination): follow `nextCursor` to the end. Cursors are
 * opaque; a cursor seen twice means the server loops, and we stop instead of spinning forever.
 * Cursors are not persistent across sessions (server.utilities.pagination#4): when a page fails
 * because its cursor belongs to a session that has been replaced, the caller says so
 * (`isRestart`) and the listing starts over from the first page on the new session.
 */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export type PaginationProblem = 'MCPWIRE_PAGINATION_LOOP' | 'MCPWIRE_PAGINATION_LIMIT' | 'MCPWIRE_PAGINATION_RESTART';

export interface PaginateOptions {
  /** Upper bound on pages fetched (default 1000). */
  maxPages?: number;
  onProblem?: (code: PaginationProblem, message: string) => void;
  /** True for an error that means "start again from the first page" (a stale cursor). */
  isRestart?: (err: unknown) => boolean;
  /** How many times a listing may start over before the error is surfaced (default 3). */
  maxRestarts?: number;
}

export async function paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: PaginateOptions = {},
): Promise<T[]> {
  const maxRestarts = options.maxRestarts ?? 3;
  for (let restarts = 0; ; restarts++) {
    try {
      return await walk(fetchPage, options);
    } catch (err) {
      if (restarts >= maxRestarts || options.isRestart?.(err) !== true) throw err;
      options.onProblem?.('MCPWIRE_PAGINATION_RESTART', 'the session changed during the listing: starting again from the first page');
    }
  }
}

async function walk<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, options: PaginateOptions): Promise<T[]> {
  const maxPages = options.maxPages ?? 1000;
  const seen = new Set<string>();
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      options.onProblem?.('MCPWIRE_PAGINATION_LIMIT', `stopped after ${maxPages} pages (raise maxPages if this is expected)`);
      return all;
    }
    const { items, nextCursor } = await fetchPage(cursor);
    for (const item of items) all.push(item);
    if (nextCursor === undefined || nextCursor === null) return all;
    if (typeof nextCursor !== 'string' || seen.has(nextCursor)) {
      options.onProblem?.(
        'MCPWIRE_PAGINATION_LOOP',
        `server returned cursor ${JSON.stringify(nextCursor).slice(0, 80)} again after ${page + 1} pages: stopped following it`,
      );
      return all;
    }
    seen.add(nextCursor);
    cursor = nextCursor;
  }
}
