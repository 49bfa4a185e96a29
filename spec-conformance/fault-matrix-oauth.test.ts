/**
 * The fault matrix, OAuth rows (the table is in README.md "Fault matrix"): a
 * host with an OAuth-protected HTTP server (mock-servers/oauth-as.mjs: AS and MCP endpoint on
 * 127.0.0.1) beside a healthy stdio server, logged in through `host.login` (the mock approves,
 * the loopback receiver takes the redirect). Tokens are secrets too: `finish()` looks for the
 * access and refresh tokens the store held in every output.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../src/auth/memory-store.js';
import { FaultBench, SECRET } from '../test/fixtures/faults/bench.js';
// @ts-expect-error a plain .mjs mock without types
import { startOAuthMock } from '../mock-servers/oauth-as.mjs';

interface OAuthMock {
  url: string;
  counters: Record<string, number>;
  expireAll(): void;
  close(): Promise<void>;
}

let bench: FaultBench | undefined;
let as: OAuthMock | undefined;
let tokens: string[] = [];
afterEach(async () => {
  const b = bench;
  bench = undefined;
  try {
    await b?.finish(tokens);
  } finally {
    tokens = [];
    await as?.close();
    as = undefined;
  }
});

const text = FaultBench.text;

/** The browser: the mock auto-approves; following its redirect delivers the code to the loopback receiver. */
async function browser(url: URL): Promise<void> {
  const res = await fetch(url, { redirect: 'manual' });
  await res.body?.cancel();
  const back = await fetch(res.headers.get('location')!);
  await back.body?.cancel();
}

/** A port nothing listens on (the AS is down). */
async function deadPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function loggedIn(fetchImpl?: typeof fetch): Promise<{ b: FaultBench; store: MemoryTokenStore }> {
  as = (await startOAuthMock({})) as OAuthMock;
  const store = new MemoryTokenStore();
  const b = await FaultBench.start(
    { id: 'faulty', transport: 'http', config: { url: as.url, headers: { 'X-Api-Key': SECRET } } },
    { host: { auth: { store, openBrowser: browser, ...(fetchImpl ? { fetch: fetchImpl } : {}) } } },
  );
  bench = b;
  expect(b.status('faulty').state).toBe('auth_required');
  const s = await b.host.login('faulty');
  expect(s.state).toBe('ready');
  return { b, store };
}

async function heldTokens(store: MemoryTokenStore): Promise<string[]> {
  const g = await store.get('faulty');
  return [g?.access_token, g?.refresh_token].filter((t): t is string => typeof t === 'string');
}

describe('fault matrix: OAuth', { timeout: 60_000 }, () => {
  it('fault: the access token expires before a call reaches the server (401 invalid_token) → one refresh, the call is replayed and answers (basic.authorization#18)', async () => {
    const { b, store } = await loggedIn();
    tokens.push(...(await heldTokens(store)));
    as!.expireAll();
    const r = await b.call('faulty', 'whoami');
    expect(r.isError).toBe(false);
    expect(as!.counters.refresh).toBe(1);
    expect(as!.counters.authorize).toBe(1);
    tokens.push(...(await heldTokens(store)));
    expect(b.status('faulty').state).toBe('ready');
    await b.expectHealthy();
  });

  it('fault: the AS is down during the refresh → the call fails naming the server and the auth phase; the grant is kept for later', async () => {
    let asDown = false;
    let port = 0;
    const viaDeadAs: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (asDown && url.pathname === '/token') url.port = String(port);
      return fetch(url, init);
    };
    const { b, store } = await loggedIn(viaDeadAs);
    tokens.push(...(await heldTokens(store)));
    port = await deadPort();
    asDown = true;
    as!.expireAll();
    const r = await b.call('faulty', 'whoami');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/\[server "faulty" during auth\] the access token was refused and refreshing it failed: .*ECONNREFUSED.*MCPWIRE_AUTH_REFRESH_FAILED/);
    expect(text(r)).not.toMatch(/timed out/);
    expect(await store.get('faulty')).toMatchObject({ refresh_token: expect.any(String) });
    await b.expectHealthy();
  });
});
