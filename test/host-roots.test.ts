/**
 * client/roots from the host config: a server entry's `roots` (absolute directories the user
 * authorized) become the client's `roots` option, as percent-encoded file:// URIs of the
 * directories that exist and are readable when the server asks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHost, validateServerEntry, type ConnectFn, type ResolvedServer } from '../src/host/index.js';
import { emptyNormalizedConfig } from '../src/host/config/types.js';
import type { ClientOptions, Root } from '../src/index.js';

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
