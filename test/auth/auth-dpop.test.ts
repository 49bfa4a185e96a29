/**
 * DPoP (RFC 9449) in the OAuth provider (src/auth/provider.ts, src/auth/dpop.ts) against the
 * mock AS + MCP endpoint (mock-servers/oauth-as.mjs), which verifies every proof it gets
 * (signature, htm, htu, ath, jti, the key the token is bound to) on 127.0.0.1.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileTokenStore } from '../../src/auth/file-store.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createOAuthProvider, MemoryTokenStore, type McpClient, type OAuthProviderOptions } from '../../src/index.js';
import { at, follow, oauthMockHarness, REDIRECT, type Mock } from '../support/oauth-mock.js';

const { clients, mock, provider } = oauthMockHarness();

const part = (jwt: string, i: 0 | 1): Record<string, unknown> => JSON.parse(Buffer.from(jwt.split('.')[i], 'base64url').toString());

describe('DPoP (RFC 9449)', () => {
  it('opt-in: the token request carries a proof, the DPoP-bound token goes out as `DPoP` with a fresh proof per request (htm, htu without query or fragment, iat, jti, ath)', async () => {
    const m = await mock({ dpop: true });
    const store = new MemoryTokenStore();
    const p = provider(m, { store, dpop: true });
    const g = await p.authorize();
    expect(g.token_type).toBe('dpop');
    expect(at(m, '/token')[0].dpop).toBeDefined();
    const stored = (await store.get('mock'))!;
    expect(stored.dpop_jwk).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });
    expect(p.secrets()).toContain(stored.dpop_jwk!.d);

    const a = await p.headers({ method: 'post', url: `${m.url}?session=1#frag` });
    const b = await p.headers({ method: 'GET', url: m.url });
    expect(a.authorization).toBe(`DPoP ${g.access_token}`);
    const [ca, cb] = [part(a.dpop!, 1), part(b.dpop!, 1)];
    expect(part(a.dpop!, 0)).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
    expect((part(a.dpop!, 0).jwk as Record<string, unknown>).d).toBeUndefined();
    expect(ca).toMatchObject({ htm: 'POST', htu: m.url, ath: createHash('sha256').update(g.access_token).digest('base64url') });
    expect(cb).toMatchObject({ htm: 'GET', htu: m.url });
    expect(ca.jti).not.toBe(cb.jti);
    expect(Math.abs((ca.iat as number) - Date.now() / 1000)).toBeLessThan(300);
  });

  it('end to end: the MCP endpoint accepts only the bound token with a proof of its key, on every request', async () => {
    const m = await mock({ dpop: true, dpopRequired: true });
    const c = await connect({ transport: 'http', url: m.url, id: 'mock' }, { authProvider: provider(m), timeoutMs: 10_000 });
    clients.push(c);
    await c.listTools();
    await c.callTool('whoami', {});
    const mcp = at(m, '/mcp').filter((e) => e.method === 'POST').slice(1);
    expect(mcp.length).toBeGreaterThanOrEqual(3);
    for (const e of mcp) {
      expect(e.authorization).toMatch(/^DPoP at-/);
      expect(e.dpopError).toBeUndefined();
    }
    expect(new Set(mcp.map((e) => part(e.dpop!, 1).jti)).size).toBe(mcp.length);
  });

  it('RFC 9449 §9 end to end: the MCP endpoint wants its nonce → the transport hands the DPoP-Nonce of the 401 to the provider, the request is replayed with it', async () => {
    const m = await mock({ dpop: true, dpopRequired: true, rsNonce: true });
    const c = await connect({ transport: 'http', url: m.url, id: 'mock' }, { authProvider: provider(m), timeoutMs: 10_000 });
    clients.push(c);
    await c.listTools();
    const proofs = at(m, '/mcp')
      .filter((e) => e.dpop !== undefined)
      .map((e) => part(e.dpop!, 1).nonce);
    expect(proofs[0]).toBeUndefined();
    expect(proofs.slice(1).length).toBeGreaterThanOrEqual(2);
    expect(proofs.slice(1).every((n) => n === 'rs-nonce')).toBe(true);
  });

  it('automatic only when the AS lists ES256 and the resource metadata asks for bound tokens', async () => {
    const advertisedOnly = await mock({ dpop: true });
    expect((await provider(advertisedOnly).authorize()).token_type).toBe('bearer');
    const both = await mock({ dpop: true, dpopRequired: true });
    expect((await provider(both).authorize()).token_type).toBe('dpop');
    const off = await mock({ dpop: true, dpopRequired: true });
    expect((await provider(off, { dpop: false }).authorize()).token_type).toBe('bearer');
  });

  it('a refresh keeps the key: the new token is bound to the same one (the AS refuses a refresh proved with another key)', async () => {
    const m = await mock({ dpop: true, rotate: true });
    const store = new MemoryTokenStore();
    const g = await provider(m, { store, dpop: true }).authorize();
    await store.set('mock', { ...g, expires_at: Date.now() - 1000 });
    const p = provider(m, { store, dpop: true });
    const h = await p.headers();
    expect(m.counters.refresh).toBe(1);
    const after = (await store.get('mock'))!;
    expect(after.access_token).not.toBe(g.access_token);
    expect(after.dpop_jwk).toEqual(g.dpop_jwk);
    expect(h.authorization).toBe(`DPoP ${after.access_token}`);
  });

  it('RFC 9449 §8: the AS answers use_dpop_nonce → the token request is made once more with its nonce', async () => {
    const m = await mock({ dpop: true, asNonce: true });
    const g = await provider(m, { dpop: true }).authorize();
    expect(g.token_type).toBe('dpop');
    const proofs = at(m, '/token').map((e) => part(e.dpop!, 1));
    expect(proofs.map((c) => c.nonce)).toEqual([undefined, 'as-nonce']);
    expect(proofs[0].jti).not.toBe(proofs[1].jti);
  });

  it('RFC 9449 §9: a 401 use_dpop_nonce from the resource server → replay with a proof carrying its nonce; the same nonce refused again is not retried', async () => {
    const m = await mock({ dpop: true });
    const p = provider(m, { dpop: true });
    await p.authorize();
    const info = { status: 401 as const, wwwAuthenticate: 'DPoP error="use_dpop_nonce"', dpopNonce: 'rs-nonce' };
    expect(await p.onUnauthorized(info, 0)).toBe(true);
    expect(part((await p.headers()).dpop!, 1).nonce).toBe('rs-nonce');
    expect(await p.onUnauthorized(info, 1)).toBe(false);
  });

  it('a replay that only took the resource server\'s nonce does not use up the 401 reaction: the refused token is then refreshed, and the refreshed token refused again is not', async () => {
    const m = await mock({ dpop: true, rotate: true });
    const p = provider(m, { dpop: true });
    const g = await p.authorize();
    const sent = `DPoP ${g.access_token}`;
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'DPoP error="use_dpop_nonce"', dpopNonce: 'rs-nonce', sentAuthorization: sent }, 0)).toBe(true);
    m.expireAll();
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', sentAuthorization: sent }, 1)).toBe(true);
    const fresh = (await p.headers()).authorization!;
    expect(fresh).not.toBe(sent);
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', sentAuthorization: fresh }, 2)).toBe(false);
  });

  it('the token a step-up ended with, refused with a 401 at the next attempt, is not reacted to (one reaction per request)', async () => {
    const m = await mock();
    const p = provider(m);
    await p.authorize();
    expect(await p.onUnauthorized({ status: 403, wwwAuthenticate: 'Bearer error="insufficient_scope", scope="more"' }, 0)).toBe(true);
    const stepped = (await p.headers()).authorization!;
    expect(await p.onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', sentAuthorization: stepped }, 1)).toBe(false);
  });

  it('basic.authorization#70: the key is kept in the token store beside the grant (mode 0600), and a new provider signs with it', async () => {
    const m = await mock({ dpop: true, dpopRequired: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-dpop-'));
    try {
      const file = path.join(dir, 'mcp-auth.json');
      const g = await provider(m, { store: new FileTokenStore(file) }).authorize();
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const again = provider(m, { store: new FileTokenStore(file) });
      const h = await again.headers();
      expect(part(h.dpop!, 0).jwk).toMatchObject({ x: g.dpop_jwk!.x, y: g.dpop_jwk!.y });
      expect(again.secrets()).toContain(g.dpop_jwk!.d);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
