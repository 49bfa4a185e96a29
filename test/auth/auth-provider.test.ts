/**
 * The OAuth provider's refresh bookkeeping (src/auth/provider.ts) against the mock AS
 * (mock-servers/oauth-as.mjs) on 127.0.0.1: what a token response without `expires_in` means,
 * a logout by someone else, which token a 401 refused, and the no-round-trip `headers()`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createOAuthProvider, MemoryTokenStore, type OAuthProviderOptions, type StoredGrant } from '../../src/index.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';

interface Mock {
  url: string;
  base: string;
  counters: Record<string, number>;
  close(): Promise<void>;
}

const REDIRECT = 'http://127.0.0.1:9/callback';

async function follow(url: URL, signal: AbortSignal): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual', signal });
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mock(options: Record<string, unknown> = {}): Promise<Mock> {
  const m = (await startOAuthMock(options)) as Mock;
  mocks.push(m);
  return m;
}

function provider(m: Mock, extra: Partial<OAuthProviderOptions> = {}) {
  return createOAuthProvider({ serverUrl: m.url, serverKey: 'mock', redirectUri: REDIRECT, interaction: follow, ...extra });
}

/** A store holding a real grant of `m` (refreshable), made to look expired when `expired`. */
async function loggedIn(m: Mock, expired: boolean): Promise<{ store: MemoryTokenStore; grant: StoredGrant }> {
  const store = new MemoryTokenStore();
  const grant = await provider(m, { store }).authorize();
  expect(grant.refresh_token).toBeDefined();
  if (expired) await store.set('mock', { ...grant, expires_at: Date.now() - 1000 });
  return { store, grant: (await store.get('mock'))! };
}

describe('refresh bookkeeping', () => {
  it('a refreshed token without expires_in has an unknown expiry, not the old one: five requests make one refresh, the refresh token rotates once', async () => {
    const m = await mock({ rotate: true, noExpiresIn: true });
    const { store } = await loggedIn(m, true);
    const p = provider(m, { store });
    const sent = new Set<string>();
    for (let i = 0; i < 5; i++) sent.add((await p.headers()).authorization!);
    expect(m.counters.refresh).toBe(1);
    expect(sent.size).toBe(1);
    const g = (await store.get('mock'))!;
    expect(g.expires_at).toBeUndefined();
    expect(`Bearer ${g.access_token}`).toBe([...sent][0]);
  });

  it('a grant logged out meanwhile (the store entry is gone) is neither refreshed nor written back', async () => {
    const m = await mock({ rotate: true });
    const { store } = await loggedIn(m, true);
    const p = provider(m, { store });
    await p.status(); // loads the (expired) grant
    await store.delete('mock'); // another process logs out
    expect(await p.headers()).toEqual({});
    expect(m.counters.refresh).toBe(0);
    expect(await store.get('mock')).toBeUndefined();
  });

  it('basic.authorization#18: a 401 for a token already replaced by a refresh is replayed with the new one, not refreshed again', async () => {
    const m = await mock({ rotate: true });
    const { store, grant } = await loggedIn(m, false);
    const p = provider(m, { store });
    const refused = `Bearer ${grant.access_token}`;
    expect((await p.headers()).authorization).toBe(refused);
    // Two requests carried the same token and both were refused; their 401s arrive one after the other.
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', sentAuthorization: refused }, 0)).toBe(true);
    expect(m.counters.refresh).toBe(1);
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', sentAuthorization: refused }, 0)).toBe(true);
    expect(m.counters.refresh).toBe(1);
    expect((await p.headers()).authorization).not.toBe(refused);
  });

  it('basic.authorization#18: a 401 for a request that carried no token while one is held by now is replayed with it, not refreshed', async () => {
    const m = await mock({ rotate: true });
    const { store } = await loggedIn(m, false);
    const p = provider(m, { store });
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer realm="mcp"' }, 0)).toBe(true);
    expect(m.counters.refresh + m.counters.authorize).toBe(1); // the login of loggedIn() only
  });

  it('headers({ refresh: false }) gives the token held now, expired or not: no refresh, no token endpoint call', async () => {
    const m = await mock({ rotate: true });
    const { store, grant } = await loggedIn(m, true);
    const p = provider(m, { store });
    await p.status();
    expect(await p.headers({ refresh: false })).toEqual({ authorization: `Bearer ${grant.access_token}` });
    expect(m.counters.refresh).toBe(0);
  });
});
