/**
 * The persistent token store (src/auth/file-store.ts, `mcp-auth.json`), its
 * cross-process lock (src/auth/lock.ts), the loopback redirect receiver (src/auth/loopback.ts)
 * and the browser opener (src/auth/opener.ts). The cross-process case runs two real node
 * processes against dist/ (`npm run build` first).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isAbortError, isTimeoutError } from '../../src/errors.js';
import { FileTokenStore, isTokenStoreCorruptError, TokenStoreCorruptError } from '../../src/auth/file-store.js';
import { lockPathFor, TokenStoreLockError, withFileLock } from '../../src/auth/lock.js';
import { parsePastedRedirect, startLoopbackReceiver } from '../../src/auth/loopback.js';
import { openBrowser } from '../../src/auth/opener.js';
import type { StoredGrant } from '../../src/auth/types.js';
import { tempDirs } from '../support/temp-dirs.js';
import { until } from '../support/until.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const tmp = tempDirs('mcpwire-auth-store-');

const ACCESS = 'at-secret-5b1e0c7d';
const REFRESH = 'rt-secret-9a8e31f4';
const CLIENT_SECRET = 'cs-secret-44d0be19';
const grant = (over: Partial<StoredGrant> = {}): StoredGrant => ({
  access_token: ACCESS,
  refresh_token: REFRESH,
  expires_at: 1_760_000_000_000,
  token_type: 'Bearer',
  scope: 'files:read',
  client_id: 'client-1',
  client_secret: CLIENT_SECRET,
  ...over,
});

describe('FileTokenStore (mcp-auth.json)', () => {
  it('stores entries in the seed format, mode 0600 in a 0700 directory (basic.authorization#70)', async () => {
    const file = path.join(tmp(), 'cfg', 'mcpwire', 'mcp-auth.json');
    const store = new FileTokenStore(file);
    expect(await store.get('srv')).toBeUndefined();
    await store.set('srv', grant());
    await store.set('other', grant({ access_token: 'x', scope: undefined }));
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(json.version).toBe(1);
    expect(json.servers.srv).toEqual({
      access_token: ACCESS,
      refresh_token: REFRESH,
      expires_at: 1_760_000_000_000,
      token_type: 'Bearer',
      scope: 'files:read',
      client_id: 'client-1',
      client_secret: CLIENT_SECRET,
    });
    expect(Object.keys(json.servers).sort()).toEqual(['other', 'srv']);
    if (process.platform !== 'win32') {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    }
    expect(await store.get('srv')).toEqual(grant());
    expect(Object.keys(await store.list()).sort()).toEqual(['other', 'srv']);
    await store.delete('srv');
    expect(await store.get('srv')).toBeUndefined();
    expect(await store.get('other')).toMatchObject({ access_token: 'x' });
    // No temporary files left beside the store.
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['mcp-auth.json']);
  });

  it('replaces a world-readable store with a 0600 one (atomic rename, not an in-place write)', async () => {
    if (process.platform === 'win32') return;
    const file = path.join(tmp(), 'mcp-auth.json');
    fs.writeFileSync(file, JSON.stringify({ version: 1, servers: {} }), { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const inode = fs.statSync(file).ino;
    await new FileTokenStore(file).set('a', grant());
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file).ino).not.toBe(inode);
  });

  it('keeps extra keys of an entry (a later version may add some)', async () => {
    const file = path.join(tmp(), 'mcp-auth.json');
    fs.writeFileSync(file, JSON.stringify({ version: 1, servers: { a: { ...grant(), future_field: { x: 1 } } } }));
    const store = new FileTokenStore(file);
    await store.set('b', grant());
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).servers.a.future_field).toEqual({ x: 1 });
  });

  const corrupt: [string, string, RegExp][] = [
    ['not JSON', `{"version":1,"servers":{"a":{"access_token":"${ACCESS}"`, /not JSON/],
    ['an array', '[]', /not a JSON object/],
    ['another version', JSON.stringify({ version: 2, servers: {} }), /"version" is not 1/],
    ['servers not an object', JSON.stringify({ version: 1, servers: [] }), /"servers" is not an object/],
    ['a token that is not a string', JSON.stringify({ version: 1, servers: { a: { access_token: 5 } } }), /servers\["a"\]\.access_token is not a string/],
    ['expires_at not a number', JSON.stringify({ version: 1, servers: { a: { access_token: ACCESS, expires_at: 'soon' } } }), /servers\["a"\]\.expires_at is not a number/],
    ['an entry without access_token', JSON.stringify({ version: 1, servers: { a: { refresh_token: REFRESH } } }), /access_token is missing/],
  ];
  for (const [what, text, reason] of corrupt) {
    it(`reports a corrupt store (${what}) with a typed error naming the file, and never overwrites it`, async () => {
      const file = path.join(tmp(), 'mcp-auth.json');
      fs.writeFileSync(file, text);
      const store = new FileTokenStore(file);
      const err = await store.get('a').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TokenStoreCorruptError);
      expect(isTokenStoreCorruptError(err)).toBe(true);
      const e = err as TokenStoreCorruptError;
      expect(e.code).toBe('MCPWIRE_TOKEN_STORE_CORRUPT');
      expect(e.file).toBe(file);
      expect(e.message).toContain(file);
      expect(e.message).toMatch(reason);
      expect(e.message).not.toContain(ACCESS);
      expect(e.message).not.toContain(REFRESH);
      // Writes refuse too: the file stays exactly as it was.
      await expect(store.set('b', grant())).rejects.toBeInstanceOf(TokenStoreCorruptError);
      await expect(store.delete('a')).rejects.toBeInstanceOf(TokenStoreCorruptError);
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    });
  }

  it('refuses to store an entry of the wrong shape', async () => {
    const store = new FileTokenStore(path.join(tmp(), 'mcp-auth.json'));
    await expect(store.set('a', { token_type: 'Bearer' } as unknown as StoredGrant)).rejects.toBeInstanceOf(TokenStoreCorruptError);
  });

  it('withLock is re-entrant: get/set/delete inside it run within the same hold', async () => {
    const file = path.join(tmp(), 'mcp-auth.json');
    const store = new FileTokenStore(file);
    const out = await store.withLock('a', async () => {
      expect(fs.existsSync(lockPathFor(file))).toBe(true);
      await store.set('a', grant());
      const g = await store.get('a');
      await store.delete('b');
      return g?.access_token;
    });
    expect(out).toBe(ACCESS);
    expect(fs.existsSync(lockPathFor(file))).toBe(false);
  });

  it('serializes holders in one process: critical sections never overlap', async () => {
    const file = path.join(tmp(), 'mcp-auth.json');
    const store = new FileTokenStore(file);
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.withLock('a', async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 10));
          await store.set(`k${i}`, grant());
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(Object.keys(await store.list())).toHaveLength(5);
  });

  it('concurrent set() of different keys keep every entry (read-modify-write under the lock)', async () => {
    const store = new FileTokenStore(path.join(tmp(), 'mcp-auth.json'));
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.set(`s${i}`, grant({ access_token: `t${i}` }))));
    expect(Object.keys(await store.list()).sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7']);
  });
});

describe('withFileLock across processes (src/auth/lock.ts)', () => {
  it('two processes refreshing one entry at once: one refresh runs, the other finds its result', async () => {
    const dir = tmp();
    const file = path.join(dir, 'mcp-auth.json');
    const counter = path.join(dir, 'refreshes.log');
    await new FileTokenStore(file).set('srv', grant({ access_token: 'old' }));
    const storeUrl = pathToFileURL(path.join(root, 'dist/auth/file-store.js')).href;
    // The provider's refresh shape: under the lock, re-read; refresh only if still the stale token.
    const script = `
      import fs from 'node:fs';
      const { FileTokenStore } = await import(${JSON.stringify(storeUrl)});
      const store = new FileTokenStore(process.argv[1]);
      const seen = await store.get('srv');
      await new Promise((r) => setTimeout(r, 50));
      const got = await store.withLock('srv', async () => {
        const now = await store.get('srv');
        if (now.access_token !== seen.access_token) return 'reused:' + now.access_token;
        fs.appendFileSync(process.argv[2], process.pid + '\\n');
        await new Promise((r) => setTimeout(r, 400));
        await store.set('srv', { ...now, access_token: 'new-' + process.pid });
        return 'refreshed:new-' + process.pid;
      });
      process.stdout.write(got);
    `;
    const runOne = () =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['--input-type=module', '-e', script, file, counter], { timeout: 30_000 }, (err, out, errOut) => (err ? reject(new Error(errOut || String(err))) : resolve(out))),
      );
    const outs = await Promise.all([runOne(), runOne()]);
    expect(fs.readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
    const refreshed = outs.filter((o) => o.startsWith('refreshed:'));
    const reused = outs.filter((o) => o.startsWith('reused:'));
    expect(refreshed).toHaveLength(1);
    expect(reused).toEqual([refreshed[0].replace('refreshed:', 'reused:')]);
    expect((await new FileTokenStore(file).get('srv'))?.access_token).toBe(refreshed[0].slice('refreshed:'.length));
  });

  it('takes over a stale lock (its holder died)', async () => {
    const file = path.join(tmp(), 'mcp-auth.json');
    fs.mkdirSync(lockPathFor(file));
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(lockPathFor(file), old, old);
    await new FileTokenStore(file, { lock: { staleMs: 5_000 } }).set('a', grant());
    expect(fs.existsSync(lockPathFor(file))).toBe(false);
  });

  it('gives up with a typed error when a live lock is held too long, and honours abort', async () => {
    const file = path.join(tmp(), 'mcp-auth.json');
    fs.mkdirSync(lockPathFor(file));
    const keepFresh = setInterval(() => fs.utimesSync(lockPathFor(file), new Date(), new Date()), 500);
    try {
      const err = await withFileLock(file, async () => 'never', { waitMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TokenStoreLockError);
      expect((err as TokenStoreLockError).code).toBe('MCPWIRE_TOKEN_STORE_LOCK');
      const ac = new AbortController();
      const p = withFileLock(file, async () => 'never', { signal: ac.signal }).catch((e: unknown) => e);
      setTimeout(() => ac.abort(), 100);
      expect(isAbortError(await p)).toBe(true);
    } finally {
      clearInterval(keepFresh);
    }
  });
});

describe('loopback redirect receiver (src/auth/loopback.ts)', () => {
  it('listens on 127.0.0.1 with an OS-picked port, resolves with the redirect URL once, then closes (basic.authorization#75)', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-1' });
    expect(rx.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const waiting = rx.wait();
    const other = await fetch(new URL('/other?code=x', rx.redirectUri));
    expect(other.status).toBe(404);
    const missing = await fetch(rx.redirectUri);
    expect(missing.status).toBe(400);
    // A wrong state is refused and does not end the wait (basic.authorization#85).
    const forged = await fetch(`${rx.redirectUri}?code=forged&state=nope`);
    expect(forged.status).toBe(400);
    const ok = await fetch(`${rx.redirectUri}?code=code-secret-1&state=st-1&iss=https%3A%2F%2Fas`);
    expect(ok.status).toBe(200);
    const page = await ok.text();
    expect(page).toContain('close this window');
    expect(page).not.toContain('code-secret-1');
    const url = await waiting;
    expect(url.searchParams.get('code')).toBe('code-secret-1');
    expect(url.searchParams.get('state')).toBe('st-1');
    await rx.close();
    await expect(fetch(rx.redirectUri)).rejects.toThrow();
    expect((await rx.wait()).href).toBe(url.href);
  });

  it('an error redirect resolves too (the flow reports the error)', async () => {
    const rx = await startLoopbackReceiver();
    rx.expectState('s2');
    const waiting = rx.wait();
    await fetch(`${rx.redirectUri}?error=access_denied&state=s2`);
    expect((await waiting).searchParams.get('error')).toBe('access_denied');
  });

  it('times out with TimeoutError and closes', async () => {
    const rx = await startLoopbackReceiver({ timeoutMs: 100 });
    const err = await rx.wait().catch((e: unknown) => e);
    expect(isTimeoutError(err)).toBe(true);
    await expect(fetch(rx.redirectUri)).rejects.toThrow();
  });

  it('abort rejects with AbortError and closes', async () => {
    const rx = await startLoopbackReceiver();
    const ac = new AbortController();
    const p = rx.wait(ac.signal).catch((e: unknown) => e);
    ac.abort();
    expect(isAbortError(await p)).toBe(true);
    await rx.close();
    await expect(fetch(rx.redirectUri)).rejects.toThrow();
  });

  it('parsePastedRedirect takes a full URL, a query or a bare code', () => {
    const r = 'http://127.0.0.1:5000/callback';
    expect(parsePastedRedirect('  http://127.0.0.1:5000/callback?code=a&state=s \n', r, 's')?.searchParams.get('code')).toBe('a');
    expect(parsePastedRedirect('code=b&state=s', r, 's')?.href).toBe(`${r}?code=b&state=s`);
    const bare = parsePastedRedirect('c0de', r, 'st');
    expect(bare?.searchParams.get('code')).toBe('c0de');
    expect(bare?.searchParams.get('state')).toBe('st');
    expect(parsePastedRedirect('   ', r, 's')).toBeUndefined();
  });
});

describe('browser opener (src/auth/opener.ts)', () => {
  it('passes the URL as one argument to the platform opener, never through a shell', async () => {
    if (process.platform === 'win32' || process.platform === 'darwin') return;
    const dir = tmp();
    const out = path.join(dir, 'argv.txt');
    fs.writeFileSync(path.join(dir, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$#" "$1" > ${JSON.stringify(out)}\n`, { mode: 0o755 });
    const url = 'http://127.0.0.1:1/authorize?a=1&b=$(touch pwned)&c=`x`';
    expect(await openBrowser(url, { PATH: dir })).toBe(true);
    // The shell creates the file before printf writes to it: wait for both lines, not the file.
    const written = await until('the opener to record its arguments', () => {
      const text = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
      return text.split('\n').length > 2 && text;
    });
    expect(written).toBe(`1\n${url}\n`);
    expect(fs.existsSync(path.join(dir, 'pwned'))).toBe(false);
  });

  it('never fails when there is no opener, and opens nothing for a non-web URL or MCPWIRE_NO_BROWSER', async () => {
    expect(await openBrowser('http://127.0.0.1:1/x', { PATH: tmp() })).toBe(false);
    expect(await openBrowser('file:///etc/passwd', process.env)).toBe(false);
    expect(await openBrowser('http://127.0.0.1:1/x', { ...process.env, MCPWIRE_NO_BROWSER: '1' })).toBe(false);
  });
});
