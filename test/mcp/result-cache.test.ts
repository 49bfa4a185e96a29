/**
 * The client-side result cache (src/mcp/result-cache.ts) against server/utilities/caching of
 * revision 2026-07-28: the key (method, params, authorization context), freshness from `ttlMs`,
 * what is never cached, invalidation by notifications, and the bounds. A fake clock: no waits.
 */
import { describe, expect, it } from 'vitest';
import type { RequestOptions } from '../../src/protocol/options.js';
import { authContextId, authContextSource, cacheKey, canonicalJson, readThrough, ResultCache } from '../../src/mcp/result-cache.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

const TOOLS = { resultType: 'complete', tools: [{ name: 'echo', inputSchema: { type: 'object' } }], ttlMs: 60_000, cacheScope: 'public' };
const A = 'auth:a';

describe('result cache: the key', () => {
  it('server.utilities.caching#2: a request with other params or another method is not served the cached result', () => {
    const cache = new ResultCache({ now: clock().now });
    expect(cache.put('tools/list', undefined, A, TOOLS)).toBe(true);
    expect(cache.get('tools/list', undefined, A)).toEqual(TOOLS);
    expect(cache.get('tools/list', { cursor: 'p2' }, A)).toBeUndefined();
    expect(cache.get('prompts/list', undefined, A)).toBeUndefined();
    cache.put('resources/read', { uri: 'file:///a' }, A, { resultType: 'complete', contents: [], ttlMs: 1000 });
    expect(cache.get('resources/read', { uri: 'file:///b' }, A)).toBeUndefined();
    expect(cache.get('resources/read', { uri: 'file:///a' }, A)).toBeDefined();
  });

  it('params are compared as canonical JSON: key order and the client\'s own _meta do not matter', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(cacheKey('resources/read', { uri: 'u', _meta: { progressToken: 1 } }, A)).toBe(cacheKey('resources/read', { uri: 'u' }, A));
    const cache = new ResultCache({ now: clock().now });
    cache.put('tools/list', { cursor: 'c', extra: { b: 1, a: 2 } }, A, TOOLS);
    expect(cache.get('tools/list', { extra: { a: 2, b: 1 }, cursor: 'c', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }, A)).toEqual(TOOLS);
  });

  it('server.utilities.caching#12: a result is never served in another authorization context, public or private', () => {
    const cache = new ResultCache({ now: clock().now });
    cache.put('tools/list', undefined, authContextId({ Authorization: 'Bearer one' }), TOOLS);
    expect(cache.get('tools/list', undefined, authContextId({ authorization: 'Bearer one' }))).toEqual(TOOLS);
    expect(cache.get('tools/list', undefined, authContextId({ Authorization: 'Bearer two' }))).toBeUndefined();
    expect(cache.get('tools/list', undefined, authContextId(undefined))).toBeUndefined();
  });

  it('the authorization context id is a digest: the credential itself is not in it', () => {
    const id = authContextId({ Authorization: 'Bearer s3cr3t-token-value' });
    expect(id).toMatch(/^auth:[A-Za-z0-9_-]{43}$/);
    expect(id).not.toContain('s3cr3t');
    expect(authContextId({})).toBe('anonymous');
    expect(authContextId({ authorization: '' })).toBe('anonymous');
  });

  it('a hit is a copy: a caller changing it does not change what the next caller gets', () => {
    const cache = new ResultCache({ now: clock().now });
    cache.put('tools/list', undefined, A, TOOLS);
    const first = cache.get<typeof TOOLS>('tools/list', undefined, A)!;
    first.tools.push({ name: 'added', inputSchema: { type: 'object' } });
    expect(cache.get<typeof TOOLS>('tools/list', undefined, A)!.tools).toHaveLength(1);
  });
});

describe('result cache: freshness', () => {
  it('server.utilities.caching#5 / #9: fresh for ttlMs after it was received, stale (fetched again) from then on', () => {
    const c = clock();
    const cache = new ResultCache({ now: c.now });
    cache.put('tools/list', undefined, A, { ...TOOLS, ttlMs: 5000 });
    c.advance(4999);
    expect(cache.get('tools/list', undefined, A)).toBeDefined();
    c.advance(1);
    expect(cache.get('tools/list', undefined, A)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('server.utilities.caching#4: ttlMs 0 is immediately stale — not kept', () => {
    const cache = new ResultCache({ now: clock().now });
    expect(cache.put('tools/list', undefined, A, { ...TOOLS, ttlMs: 0 })).toBe(false);
    expect(cache.get('tools/list', undefined, A)).toBeUndefined();
  });

  it('server.utilities.caching#6: without ttlMs a result is immediately stale — not kept', () => {
    const { ttlMs: _, ...noTtl } = TOOLS;
    const cache = new ResultCache({ now: clock().now });
    expect(cache.put('tools/list', undefined, A, noTtl)).toBe(false);
    expect(cache.get('tools/list', undefined, A)).toBeUndefined();
  });

  it('server.utilities.caching#7: a negative ttlMs is treated as 0 — not kept', () => {
    const cache = new ResultCache({ now: clock().now });
    expect(cache.put('tools/list', undefined, A, { ...TOOLS, ttlMs: -5 })).toBe(false);
    expect(cache.put('tools/list', undefined, A, { ...TOOLS, ttlMs: 'soon' })).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('a newer result replaces the older one with its own freshness', () => {
    const c = clock();
    const cache = new ResultCache({ now: c.now });
    cache.put('tools/list', undefined, A, { ...TOOLS, ttlMs: 100_000 });
    cache.put('tools/list', undefined, A, { ...TOOLS, tools: [], ttlMs: 10 });
    expect(cache.size).toBe(1);
    c.advance(10);
    expect(cache.get('tools/list', undefined, A)).toBeUndefined();
  });
});

describe('result cache: what is never cached', () => {
  it('server.utilities.caching#3: a multi round-trip retry (inputResponses or requestState) is neither stored nor served', () => {
    const cache = new ResultCache({ now: clock().now });
    cache.put('resources/read', { uri: 'u' }, A, { resultType: 'complete', contents: [], ttlMs: 1000 });
    expect(cache.put('resources/read', { uri: 'u', inputResponses: { k: {} } }, A, { resultType: 'complete', contents: [], ttlMs: 1000 })).toBe(false);
    expect(cache.put('resources/read', { uri: 'v', requestState: 'sealed' }, A, { resultType: 'complete', contents: [], ttlMs: 1000 })).toBe(false);
    expect(cache.get('resources/read', { uri: 'u', requestState: 'sealed' }, A)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('an interim input_required result and a method without caching hints (tools/call) are not kept', () => {
    const cache = new ResultCache({ now: clock().now });
    expect(cache.put('resources/read', { uri: 'u' }, A, { resultType: 'input_required', inputRequests: {}, ttlMs: 1000 })).toBe(false);
    expect(cache.put('tools/call', { name: 'echo' }, A, { resultType: 'complete', content: [], ttlMs: 1000 })).toBe(false);
    expect(cache.size).toBe(0);
  });
});

describe('result cache: invalidation', () => {
  it('a list_changed makes that family\'s cached pages stale at once, and nothing else', () => {
    const cache = new ResultCache({ now: clock().now });
    const put = (m: string, p?: Record<string, unknown>): boolean => cache.put(m, p, A, { resultType: 'complete', ttlMs: 60_000 });
    put('tools/list');
    put('tools/list', { cursor: 'p2' });
    put('prompts/list');
    put('resources/list');
    put('resources/templates/list');
    put('resources/read', { uri: 'file:///x' });
    expect(cache.onNotification('notifications/tools/list_changed', {})).toBe(2);
    expect(cache.get('tools/list', { cursor: 'p2' }, A)).toBeUndefined();
    expect(cache.get('prompts/list', undefined, A)).toBeDefined();
    expect(cache.onNotification('notifications/resources/list_changed', {})).toBe(2);
    expect(cache.get('resources/read', { uri: 'file:///x' }, A)).toBeDefined();
    expect(cache.onNotification('notifications/prompts/list_changed', undefined)).toBe(1);
    expect(cache.size).toBe(1);
    put('tools/list');
    put('prompts/list');
    expect(cache.onNotification('toolsListChanged', {})).toBe(1); // the client event of the same notification
    expect(cache.onNotification('progress', {})).toBe(0);
    expect(cache.size).toBe(2);
  });

  it('a resource updated notification drops the reads of that URI only', () => {
    const cache = new ResultCache({ now: clock().now });
    const read = { resultType: 'complete', contents: [], ttlMs: 60_000 };
    cache.put('resources/read', { uri: 'file:///x' }, A, read);
    cache.put('resources/read', { uri: 'file:///x' }, 'auth:b', read);
    cache.put('resources/read', { uri: 'file:///y' }, A, read);
    expect(cache.onNotification('notifications/resources/updated', { uri: 'file:///x' })).toBe(2);
    expect(cache.get('resources/read', { uri: 'file:///y' }, A)).toBeDefined();
    expect(cache.onNotification('notifications/resources/updated', {})).toBe(0);
    cache.put('resources/read', { uri: 'file:///x' }, A, read);
    expect(cache.onNotification('resourceUpdated', { uri: 'file:///x' })).toBe(1);
  });

  it('server.utilities.caching#15: invalidateMethod discards every cached page of a list', () => {
    const cache = new ResultCache({ now: clock().now });
    cache.put('tools/list', undefined, A, TOOLS);
    cache.put('tools/list', { cursor: 'p2' }, A, TOOLS);
    cache.put('prompts/list', undefined, A, TOOLS);
    expect(cache.invalidateMethod('tools/list')).toBe(2);
    expect(cache.size).toBe(1);
  });
});

describe('result cache: bounds', () => {
  it('at most maxEntries results: the least recently used goes first', () => {
    const cache = new ResultCache({ now: clock().now, maxEntries: 2 });
    cache.put('resources/read', { uri: 'a' }, A, TOOLS);
    cache.put('resources/read', { uri: 'b' }, A, TOOLS);
    expect(cache.get('resources/read', { uri: 'a' }, A)).toBeDefined(); // a is now the most recent
    cache.put('resources/read', { uri: 'c' }, A, TOOLS);
    expect(cache.size).toBe(2);
    expect(cache.get('resources/read', { uri: 'b' }, A)).toBeUndefined();
    expect(cache.get('resources/read', { uri: 'a' }, A)).toBeDefined();
    expect(cache.get('resources/read', { uri: 'c' }, A)).toBeDefined();
  });

  it('at most maxBytes of results: older ones are evicted, a result larger than the bound is not kept', () => {
    const big = (n: number): Record<string, unknown> => ({ resultType: 'complete', contents: [{ uri: 'x', text: 'é'.repeat(n) }], ttlMs: 1000 });
    const one = Buffer.byteLength(JSON.stringify(big(100)));
    const cache = new ResultCache({ now: clock().now, maxBytes: one * 2 + 10 });
    cache.put('resources/read', { uri: 'a' }, A, big(100));
    cache.put('resources/read', { uri: 'b' }, A, big(100));
    expect(cache.bytes).toBe(one * 2);
    cache.put('resources/read', { uri: 'c' }, A, big(100));
    expect(cache.size).toBe(2);
    expect(cache.bytes).toBeLessThanOrEqual(one * 2 + 10);
    expect(cache.get('resources/read', { uri: 'a' }, A)).toBeUndefined();
    expect(cache.put('resources/read', { uri: 'huge' }, A, big(1000))).toBe(false);
    expect(cache.get('resources/read', { uri: 'huge' }, A)).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});

describe('result cache: a read through it (readThrough)', () => {
  /** A fake request path: each call issues `rounds` request ids (an input round is one more) and answers `result`. */
  function server(result: Record<string, unknown>, rounds = 1) {
    const calls: (RequestOptions | undefined)[] = [];
    let id = 0;
    const send = async (o: RequestOptions | undefined): Promise<Record<string, unknown>> => {
      calls.push(o);
      for (let i = 0; i < rounds; i++) o?.onRequestId?.(++id);
      return result;
    };
    return { calls, send };
  }
  const ctx = (id: string) => async (): Promise<string> => id;

  it('a fresh result answers without a request; { fresh: true } asks again and keeps the new one', async () => {
    const cache = new ResultCache({ now: clock().now });
    const s = server(TOOLS);
    await readThrough(cache, 'tools/list', undefined, undefined, ctx(A), s.send);
    expect(await readThrough(cache, 'tools/list', undefined, {}, ctx(A), s.send)).toEqual(TOOLS);
    expect(s.calls).toHaveLength(1);
    await readThrough(cache, 'tools/list', undefined, { fresh: true }, ctx(A), s.send);
    expect(s.calls).toHaveLength(2);
    expect(cache.size).toBe(1);
  });

  it('the caller\'s onRequestId still hears every id', async () => {
    const cache = new ResultCache({ now: clock().now });
    const ids: unknown[] = [];
    await readThrough(cache, 'tools/list', undefined, { onRequestId: (i) => ids.push(i) }, ctx(A), server(TOOLS, 2).send);
    expect(ids).toEqual([1, 2]);
  });

  it('server.utilities.caching#3: a result reached through an input round (a retry with inputResponses) is not kept', async () => {
    const cache = new ResultCache({ now: clock().now });
    const read = { resultType: 'complete', contents: [], ttlMs: 60_000 };
    await readThrough(cache, 'resources/read', { uri: 'u' }, undefined, ctx(A), server(read, 2).send);
    expect(cache.size).toBe(0);
    await readThrough(cache, 'resources/read', { uri: 'u' }, undefined, ctx(A), server(read, 1).send);
    expect(cache.size).toBe(1);
  });

  it('server.utilities.caching#15: a page the server refuses drops every cached page of that list', async () => {
    const cache = new ResultCache({ now: clock().now });
    cache.put('tools/list', undefined, A, TOOLS);
    cache.put('tools/list', { cursor: 'p2' }, A, TOOLS);
    cache.put('prompts/list', undefined, A, TOOLS);
    const refused = async (): Promise<never> => {
      throw new Error('invalid cursor');
    };
    await expect(readThrough(cache, 'tools/list', { cursor: 'p3' }, undefined, ctx(A), refused)).rejects.toThrow('invalid cursor');
    expect(cache.get('tools/list', undefined, A)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('server.utilities.caching#12: a result fetched while the credential changed is not kept under either context', async () => {
    const cache = new ResultCache({ now: clock().now });
    let token = 'one';
    const s = server(TOOLS);
    const send = async (o: RequestOptions | undefined): Promise<Record<string, unknown>> => {
      token = 'two'; // refreshed while the request was out
      return s.send(o);
    };
    await readThrough(cache, 'tools/list', undefined, undefined, async () => `auth:${token}`, send);
    expect(cache.size).toBe(0);
  });

  it('the authorization context comes from the configured headers and the provider\'s current credential, never refreshed for it', async () => {
    const asked: unknown[] = [];
    let token = 'one';
    const provider = {
      headers: (o?: { refresh?: boolean }) => {
        asked.push(o);
        return { Authorization: `Bearer ${token}` };
      },
    };
    const source = authContextSource({ transport: 'http', url: 'http://127.0.0.1:1/mcp' }, provider);
    const first = await source();
    token = 'two';
    expect(await source()).not.toBe(first);
    expect(asked).toEqual([{ refresh: false }, { refresh: false }]);
    const fixed = authContextSource({ transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { authorization: 'Bearer k' } }, undefined);
    expect(await fixed()).toBe(authContextId({ Authorization: 'Bearer k' }));
    expect(await authContextSource({ transport: 'stdio', command: 'x' }, undefined)()).toBe('anonymous');
  });
});
