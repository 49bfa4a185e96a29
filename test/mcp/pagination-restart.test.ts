/**
 * `paginate` starts a listing over from the first page when a page fails with an
 * error the caller marks as a restart (a cursor of a replaced session;
 * server.utilities.pagination#4), at most `maxRestarts` times; other errors surface at once.
 */
import { describe, expect, it } from 'vitest';
import { paginate } from '../../src/mcp/pagination.js';

class Stale extends Error {}

describe('paginate restarts on a stale cursor', () => {
  it('drops the pages collected so far and starts again without a cursor (server.utilities.pagination#4)', async () => {
    const asked: (string | undefined)[] = [];
    let stale = true;
    const problems: string[] = [];
    const items = await paginate(
      async (cursor) => {
        asked.push(cursor);
        if (cursor === undefined) return { items: ['a'], nextCursor: 'c1' };
        if (stale) {
          stale = false;
          throw new Stale('cursor of the old session');
        }
        return { items: ['b'] };
      },
      { isRestart: (e) => e instanceof Stale, onProblem: (code) => problems.push(code) },
    );
    expect(items).toEqual(['a', 'b']);
    expect(asked).toEqual([undefined, 'c1', undefined, 'c1']);
    expect(problems).toEqual(['MCPWIRE_PAGINATION_RESTART']);
  });

  it('gives up after maxRestarts and surfaces the error; other errors are not retried', async () => {
    let calls = 0;
    const err = await paginate(
      async (cursor) => {
        calls++;
        if (cursor === undefined) return { items: [1], nextCursor: 'c' };
        throw new Stale('always stale');
      },
      { isRestart: (e) => e instanceof Stale, maxRestarts: 2 },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(Stale);
    expect(calls).toBe(6); // three walks of two pages
    let other = 0;
    const boom = await paginate(
      async () => {
        other++;
        throw new Error('boom');
      },
      { isRestart: (e) => e instanceof Stale },
    ).catch((e) => e);
    expect(boom.message).toBe('boom');
    expect(other).toBe(1);
  });
});
