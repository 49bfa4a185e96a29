/**
 * client/roots from the host config: a server entry's `roots` (absolute directories the user
 * authorized) become the client's `roots` option, as percent-encoded file:// URIs of the
 * directories that exist and are readable when the server asks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createHost, validateServerEntry, type ConnectFn, type ResolvedServer } from '../../src/host/index.js';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import type { ClientOptions, Root } from '../../src/index.js';
import { checkRoot, directoryRoot, fileUriFromPath } from '../../src/mcp/roots.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-host-roots-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('host config: roots', () => {
  it('client.roots#3: an entry\'s `roots` must be absolute directory paths', () => {
    const ok = validateServerEntry({ transport: 'stdio', command: 'node', roots: ['/srv/app', '/home/u/my project'] });
    expect(ok.ok && ok.entry.config.roots).toEqual(['/srv/app', '/home/u/my project']);
    const bad = validateServerEntry({ transport: 'stdio', command: 'node', roots: ['relative/dir'] });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues[0]).toMatchObject({ field: 'roots.0', message: 'must be an absolute directory path' });
  });

  it('client.roots#5 / #3: the host offers exactly the authorized directories that are still readable, as encoded file:// URIs; an embedder\'s own roots win', async () => {
    const a = path.join(tmp, 'a b');
    fs.mkdirSync(a);
    const missing = path.join(tmp, 'missing');
    const seen: ClientOptions[] = [];
    const connect: ConnectFn = async (_config, options) => {
      seen.push(options);
      throw new Error('not needed');
    };
    const server = (id: string): ResolvedServer => ({
      id, source: 'global', file: '/u/config.json', enabled: true, transport: 'stdio',
      config: { ...emptyNormalizedConfig(), command: 'node', roots: [a, missing] },
    });
    const host = createHost([server('s')], { connect, backoff: { maxRetries: 0 } });
    await host.start();
    await host.close();
    const roots = seen[0].roots as () => Root[];
    expect(roots()).toEqual([{ uri: `file://${tmp.split('/').map(encodeURIComponent).join('/')}/a%20b`, name: 'a b' }]);
    fs.mkdirSync(missing);
    expect(roots().map((r) => r.name)).toEqual(['a b', 'missing']);
    const mine = [{ uri: 'file:///mine' }];
    const own = createHost([server('t')], { connect, backoff: { maxRetries: 0 }, clientOptions: { roots: mine } });
    await own.start();
    await own.close();
    expect(seen[1].roots).toBe(mine);
  });
});

describe('file:// roots from each platform\'s paths (client.roots#3)', () => {
  it('client.roots#3: Windows drive paths become file:///C:/… with backslashes as slashes and every special character percent-encoded', () => {
    const cases: Array<[string, string]> = [
      ['C:\\Users\\me\\My Project', 'file:///C:/Users/me/My%20Project'],
      ['D:\\work\\100% #1?\\', 'file:///D:/work/100%25%20%231%3F'],
      ['C:\\Users\\Zoë\\日本', 'file:///C:/Users/Zo%C3%AB/%E6%97%A5%E6%9C%AC'],
      ['C:\\a\\..\\b\\.\\c~[1]{x}^`', 'file:///C:/b/c%7E%5B1%5D%7Bx%7D%5E%60'],
      ['C:\\', 'file:///C:/'],
      ['c:/mixed/slashes', 'file:///c:/mixed/slashes'],
      ['\\\\?\\C:\\long\\path', 'file:///C:/long/path'],
    ];
    for (const [p, uri] of cases) {
      expect(fileUriFromPath(p, 'win32'), p).toBe(uri);
      expect(checkRoot({ uri }).uri).toBe(uri);
    }
    // Node's own decoder, told the path is a Windows one, reads each back to the same file.
    expect(fileURLToPath('file:///D:/work/100%25%20%231%3F', { windows: true })).toBe('D:\\work\\100% #1?');
  });

  it('client.roots#3: UNC paths \\\\server\\share become file://server/share/…; `..` stays inside the share', () => {
    expect(fileUriFromPath('\\\\fileserver\\team share\\proj #2', 'win32')).toBe('file://fileserver/team%20share/proj%20%232');
    expect(fileUriFromPath('\\\\FileServer\\share\\..\\..\\x', 'win32')).toBe('file://fileserver/share/x');
    expect(fileUriFromPath('\\\\?\\UNC\\srv\\share\\d', 'win32')).toBe('file://srv/share/d');
    expect(fileURLToPath('file://fileserver/team%20share/proj%20%232', { windows: true })).toBe('\\\\fileserver\\team share\\proj #2');
  });

  it('Windows paths that name no one directory are refused: drive-relative, root-relative, a host no URI can carry', () => {
    for (const p of ['C:relative', '\\rooted', 'relative\\dir', '\\\\bad host\\share', '\\\\localhost\\c$']) {
      expect(() => fileUriFromPath(p, 'win32'), p).toThrow(/absolute Windows path|server name/);
    }
  });

  it('directoryRoot takes the platform: the name is the last Windows path segment', () => {
    expect(directoryRoot('C:\\work\\My App', undefined, { platform: 'win32' })).toEqual({ uri: 'file:///C:/work/My%20App', name: 'My App' });
    expect(directoryRoot('sub dir', undefined, { platform: 'win32', cwd: 'E:\\p' })).toEqual({ uri: 'file:///E:/p/sub%20dir', name: 'sub dir' });
    expect(directoryRoot('/srv/app', 'app', { platform: 'darwin' })).toEqual({ uri: 'file:///srv/app', name: 'app' });
  });

  it("POSIX (Linux, macOS): the same URI as Node's pathToFileURL for every ASCII character and a sample of others", () => {
    const chars = [...Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).filter((c) => c !== '/' && c !== '\0'), 'é', '日', '😀', '\u00a0', '\ufeff'];
    for (const c of chars) {
      const p = `/srv/a${c}b/${c}${c}x`;
      expect(fileUriFromPath(p, 'linux'), JSON.stringify(c)).toBe(pathToFileURL(p).href);
    }
  });

  it('POSIX: a directory whose name ends in a control character keeps it (the URL parser would strip it: another directory)', () => {
    expect(directoryRoot('/srv/a\u0001', undefined, { platform: 'linux' }).uri).toBe('file:///srv/a%01');
    expect(directoryRoot('/srv/a\u0001').uri).toBe('file:///srv/a%01');
  });
});
