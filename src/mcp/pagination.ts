/**
 * Cursor pagination (server/utilities/pagination): follow `nextCursor` to the end. Cursors are
 * opaque; a cursor seen twice means the server loops, and we stop instead of spinning forever.
 */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export interface PaginateOptions {
  /** Upper bound on pages fetched (default 1000). */
  maxPages?: number;
  onProblem?: (code: 'MCPWIRE_PAGINATION_LOOP' | 'MCPWIRE_PAGINATION_LIMIT', message: string) => void;
}

export async function paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: PaginateOptions = {},
): Promise<T[]> {
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
