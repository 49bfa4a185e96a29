/**
 * Login hints of the built CLI (dist/): a command refused with 401 by a configured
 * OAuth-protected HTTP server says "run `mcpwire login <id>`"; a server whose config brings its
 * own Authorization header is never told to log in (`auth status`, `status`), and an ad-hoc
 * `--url` server (no id to log in to) gets no such hint; an HTTP server that advertises no OAuth
 * is not told to log in, and `login` there says it needs none. The protected server is the OAuth mock
 * (mock-servers/oauth-as.mjs) on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error the mock is plain JavaScript
import { startOAuthMock } from '../../mock-servers/oauth-as.mjs';
// @ts-expect-error the mock is plain JavaScript
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { cleanup, run, sandbox, type Sandbox } from '../support/cli-user.js';

let mock: { url: string; close(): Promise<void> };
let open: { url: string; close(): Promise<void> };
let sb: Sandbox;
beforeAll(async () => {
  mock = (await startOAuthMock({})) as typeof mock;
  open = (await startHttpMock({ mode: 'json' })) as typeof open;
  sb = sandbox({
    prot: { transport: 'http', url: mock.url },
    plain: { transport: 'http', url: open.url },
    keyed: { transport: 'http', url: mock.url, headers: { Authorization: 'Bearer not-an-oauth-token' } },
  });
});
afterAll(async () => {
  await mock.close();
  await open.close();
  cleanup();
});

describe('login hints', { timeout: 60_000 }, () => {
  it('call, read and tools refused with 401 by an OAuth server say "run `mcpwire login <id>`"', async () => {
    for (const args of [['call', 'prot', 'echo', 'text=hi'], ['read', 'prot', 'mem://x'], ['request', 'prot', 'tools/list']]) {
      const r = await run(sb, [...args, '--no-daemon']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(/401.*run `mcpwire login prot`/);
    }
    const tools = await run(sb, ['tools', 'prot', '--no-daemon']);
    expect(tools.stderr).toMatch(/auth_required.*run `mcpwire login prot`/);
  });

  it('a server with its own Authorization header, or an ad-hoc --url one, is not told to log in', async () => {
    const keyed = await run(sb, ['call', 'keyed', 'echo', 'text=hi', '--no-daemon']);
    expect(keyed.code).toBe(1);
    expect(keyed.stderr).not.toMatch(/mcpwire login/);
    const adHoc = await run(sb, ['--url', mock.url, 'call', 'echo', 'text=hi']);
    expect(adHoc.code).toBe(1);
    expect(adHoc.stderr).not.toMatch(/mcpwire login/);
    const auth = await run(sb, ['auth', 'status']);
    expect(auth.stdout).toMatch(/^prot .*mcpwire login prot/m);
    expect(auth.stdout).not.toMatch(/mcpwire login keyed/);
    // its own header is its credential: OAuth does not apply, rather than "none" logged in
    expect(auth.stdout).toMatch(/^keyed +not_applicable /m);
    const status = await run(sb, ['status', '--json']);
    const rows = JSON.parse(status.stdout) as { id: string; state: string; next: string | null }[];
    expect(rows.find((r) => r.id === 'prot')?.next).toBe('mcpwire login prot');
    expect(rows.find((r) => r.id === 'keyed')?.next ?? null).toBeNull();
  });

  it('an HTTP server that advertises no OAuth (no metadata, no 401 challenge) is not told to log in, and login says it needs none', async () => {
    const auth = await run(sb, ['auth', 'status']);
    expect(auth.stdout).toMatch(/^plain +none .*the server advertises no OAuth/m);
    expect(auth.stdout).not.toMatch(/mcpwire login plain/);
    expect(auth.stdout).toMatch(/^prot .*mcpwire login prot/m);
    const login = await run(sb, ['login', 'plain', '--no-browser']);
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/server "plain" advertises no OAuth \(no protected resource metadata, no authorization server metadata, and an unauthenticated request was not refused with a 401 challenge\): it needs no login/);
    expect(login.stderr).not.toMatch(/registration/);
  });
});
