/**
 * The sandbox's pure parts: the policy a config resolves to, bubblewrap's arguments, the macOS
 * sandbox-exec profile for each config shape, the proxy's allow-list matching, the config
 * schema and VS Code's import — and the refusals: Windows, and Linux without bubblewrap.
 */
import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { sandboxLoosened, sandboxSettings, sandboxSchema, type SandboxSettings } from '../../src/host/config/sandbox.js';
import { validateServerEntry } from '../../src/host/config/schema.js';
import { convertImportEntry } from '../../src/host/config/imports.js';
import { bwrapArgs, PROXY_SOCKET } from '../../src/transport/spawn/bwrap.js';
import { findBwrap, prepareSandbox } from '../../src/transport/spawn/sandbox-launch.js';
import { packageRoot, resolvePolicy, type PolicyFs, type SandboxPolicy } from '../../src/transport/spawn/sandbox-policy.js';
import { allowedBy, isInternalAddress } from '../../src/transport/spawn/sandbox-proxy.js';
import { sbString, seatbeltProfile } from '../../src/transport/spawn/seatbelt.js';
import { inferDenials } from '../../src/host/sandbox-note.js';
import { StdioTransport } from '../../src/transport/stdio.js';

/** A file system of a few files and one symlinked node_modules. */
const files = new Set(['/usr/bin/node', '/home/me/app/package.json', '/home/me/app/node_modules/srv/dist/index.js', '/opt/tool/bin/tool', '/srv/x/package.json', '/srv/x/server.js']);
const fakeFs: PolicyFs = {
  realpath: (p) => (p.startsWith('/w/link/') ? p.replace('/w/link/', '/home/me/app/') : p === '/w/link' ? '/home/me/app/node_modules' : p),
  isFile: (p) => files.has(p),
};
const target = (command: string, args: string[] = []) => ({ command, args, cwd: '/home/me/app', env: { PATH: '/usr/bin:/opt/tool/bin' }, platform: 'linux' as const });

describe('the policy a sandbox config resolves to', () => {
  it('defaults: system directories and the package of the script Node runs; nothing writable; no network; base env names', () => {
    const p = resolvePolicy({}, target('node', ['node_modules/srv/dist/index.js']), fakeFs);
    expect(p.read).toEqual(['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/home/me/app/node_modules']);
    expect(p.write).toEqual([]);
    expect(p.network).toBe('none');
    expect(p.env).toEqual(['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ']);
  });

  it("a command outside the system's directories: its install prefix; a project script: the project", () => {
    expect(resolvePolicy({}, target('tool'), fakeFs).read).toContain('/opt/tool');
    expect(resolvePolicy({}, target('node', ['/srv/x/server.js']), fakeFs).read).toContain('/srv/x');
    expect(packageRoot('/a/node_modules/@s/p/node_modules/q/i.js', fakeFs)).toBe('/a/node_modules');
  });

  it('grants are added, with the real path of a symlinked one too; env names are added', () => {
    const p = resolvePolicy({ filesystem: { read: ['/w/link'], write: ['/data'] }, env: ['GITHUB_TOKEN'], network: { allow: ['api.github.com'] } }, target('node'), fakeFs);
    expect(p.read).toEqual(expect.arrayContaining(['/w/link', '/home/me/app/node_modules']));
    expect(p.write).toEqual(['/data']);
    expect(p.env).toContain('GITHUB_TOKEN');
    expect(p.network).toEqual({ allow: ['api.github.com'] });
  });
});

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({ read: ['/usr', '/etc', '/app'], write: [], network: 'none', env: ['PATH'], ...over });

describe('bubblewrap arguments', () => {
  it('every namespace, no capability, dies with the host, fresh /dev /proc /tmp, read-only grants, the command after --', () => {
    const a = bwrapArgs({ policy: policy(), argv: ['node', 'srv.js'] });
    expect(a.slice(0, 11)).toEqual(['--die-with-parent', '--unshare-all', '--cap-drop', 'ALL', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--ro-bind-try']);
    expect(a).not.toContain('--share-net');
    expect(a.join(' ')).toContain('--ro-bind-try /app /app');
    expect(a.slice(-5)).toEqual(['--chdir', '/tmp', '--', 'node', 'srv.js']);
  });

  it('a writable directory inside a read-only one is mounted after it (deeper last); cwd is kept when granted', () => {
    const a = bwrapArgs({ policy: policy({ write: ['/app/data'] }), argv: ['x'], cwd: '/app' }).join(' ');
    expect(a.indexOf('--ro-bind-try /app /app')).toBeLessThan(a.indexOf('--bind-try /app/data /app/data'));
    expect(a).toContain('--chdir /app --');
    expect(bwrapArgs({ policy: policy(), argv: ['x'], cwd: '/home/me' }).join(' ')).toContain('--chdir /tmp --');
  });

  it("an allow-list binds the host's proxy socket in", () => {
    const a = bwrapArgs({ policy: policy({ network: { allow: ['a.example'] } }), argv: ['x'], proxySocket: '/tmp/p/proxy.sock' }).join(' ');
    expect(a).toContain(`--bind /tmp/p/proxy.sock ${PROXY_SOCKET}`);
  });
});

describe('the macOS sandbox-exec profile, per config shape', () => {
  it('defaults: deny by default; read the grants; write only the private temp dir; no network rule', () => {
    const p = seatbeltProfile({ policy: policy(), tmp: '/private/var/folders/x/T/mcpwire-sandbox-1' });
    const lines = p.trim().split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    expect(p).toContain('(allow file-read* (subpath "/usr") (subpath "/etc") (subpath "/app"))');
    expect(p).toContain('(allow file-read* file-write* (subpath "/private/var/folders/x/T/mcpwire-sandbox-1"))');
    expect(p).not.toMatch(/network/);
    expect(p).toContain('(allow signal (target same-sandbox))');
  });

  it('write grants join the temp dir; an allow-list opens only the proxy port on loopback', () => {
    const p = seatbeltProfile({ policy: policy({ write: ['/Users/me/notes'], network: { allow: ['api.github.com'] } }), tmp: '/t', proxyPort: 41234 });
    expect(p).toContain('(allow file-read* file-write* (subpath "/t") (subpath "/Users/me/notes"))');
    expect(p).toContain('(allow network-outbound (remote ip "localhost:41234"))');
    expect(p.match(/network/g)).toHaveLength(1);
  });

  it('paths are quoted: a quote or backslash cannot end the string; control characters are refused', () => {
    expect(sbString('/a"b\\c')).toBe('"/a\\"b\\\\c"');
    expect(() => sbString('/a\nb')).toThrow(/control characters/);
    const p = seatbeltProfile({ policy: policy({ read: ['/x") (allow default) ("'] }), tmp: '/t' });
    expect(p).not.toContain('(allow default)"');
    expect(p).toContain('(subpath "/x\\") (allow default) (\\"")');
  });
});

describe("the proxy's allow-list", () => {
  it('exact names, *.domain below it (not the apex), host:port, case and trailing dot ignored', () => {
    const allow = ['api.github.com', '*.npmjs.org', 'localhost:8080'];
    expect(allowedBy(allow, 'API.GitHub.com.', 443)).toBe('api.github.com');
    expect(allowedBy(allow, 'registry.npmjs.org', 443)).toBe('*.npmjs.org');
    expect(allowedBy(allow, 'npmjs.org', 443)).toBeUndefined();
    expect(allowedBy(allow, 'evilnpmjs.org', 443)).toBeUndefined();
    expect(allowedBy(allow, 'localhost', 8080)).toBe('localhost:8080');
    expect(allowedBy(allow, 'localhost', 8081)).toBeUndefined();
    expect(allowedBy(allow, 'github.com', 443)).toBeUndefined();
  });

  it('loopback and link-local addresses are internal (a name must not lead there)', () => {
    for (const a of ['127.0.0.1', '127.8.8.8', '::1', '169.254.169.254', '::ffff:127.0.0.1', 'fe80::1']) expect(isInternalAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '2606:2800::1']) expect(isInternalAddress(a), a).toBe(false);
  });
});

describe('the sandbox config', () => {
  it('true and {} are the defaults; false and absent are off', () => {
    const defaults = { filesystem: { read: [], write: [] }, network: 'none', env: [] };
    expect(sandboxSettings(true)).toEqual(defaults);
    expect(sandboxSettings({})).toEqual(defaults);
    expect(sandboxSettings(false)).toBeUndefined();
    expect(sandboxSettings(undefined)).toBeUndefined();
  });

  it('the full shape normalizes; a misspelt key, a relative path or a URL in the allow-list is an error naming the field', () => {
    const ok = validateServerEntry({ command: 'node', transport: 'stdio', sandbox: { filesystem: { read: ['/r'], write: ['/w'] }, network: { allow: ['api.github.com', '*.npmjs.org', 'localhost:3000'] }, env: ['TOKEN'] } });
    expect(ok.ok && ok.entry.config.sandbox).toEqual({ filesystem: { read: ['/r'], write: ['/w'] }, network: { allow: ['api.github.com', '*.npmjs.org', 'localhost:3000'] }, env: ['TOKEN'] });
    const bad = (sandbox: unknown) => {
      const v = validateServerEntry({ command: 'node', transport: 'stdio', sandbox });
      return v.ok ? [] : v.issues.map((i) => i.field);
    };
    expect(bad({ filesytem: {} }).join()).toContain('sandbox');
    expect(bad({ filesystem: { write: ['data'] } })).toContain('sandbox.filesystem.write.0');
    expect(bad({ network: { allow: ['https://x.example/'] } })).toContain('sandbox.network.allow.0');
    expect(bad({ network: 'all' }).join()).toContain('sandbox');
    expect(sandboxSchema.safeParse({ network: 'none' }).success).toBe(true);
  });

  it('an HTTP server with a sandbox is an error (only the host starts stdio servers)', () => {
    const v = validateServerEntry({ transport: 'http', url: 'https://x.example/mcp', sandbox: true });
    expect(v.ok ? [] : v.issues).toContainEqual({ field: 'sandbox', message: 'applies to stdio servers only (the host starts them)' });
  });

  it("VS Code's sandboxEnabled/sandbox import as the native sandbox; its deny lists are reported as ignored", () => {
    const ctx = { env: {}, workspaceFolder: '/ws', userHome: '/home/me' };
    const r = convertImportEntry(
      { command: 'npx', sandboxEnabled: true, sandbox: { filesystem: { allowWrite: ['${workspaceFolder}/out'], denyRead: ['${userHome}/.ssh'] }, network: { allowedDomains: ['api.example.com'] } } },
      'vscode',
      ctx,
    );
    expect(r.entry.sandbox).toEqual({ filesystem: { write: ['/ws/out'] }, network: { allow: ['api.example.com'] } });
    expect(r.warnings.map((w) => w.field)).toContain('sandbox.filesystem.denyRead');
    const off = convertImportEntry({ command: 'npx', sandbox: { filesystem: {} } }, 'vscode', ctx);
    expect(off.entry.sandbox).toBeUndefined();
    expect(off.warnings.map((w) => w.field)).toContain('sandbox');
  });
});

describe('whether a changed sandbox is looser (trust is kept only when it is not)', () => {
  const s = (o: Partial<SandboxSettings> & { read?: string[]; write?: string[] } = {}): SandboxSettings => ({
    filesystem: { read: o.read ?? [], write: o.write ?? [] },
    network: o.network ?? 'none',
    env: o.env ?? [],
  });
  it('removing it, a new path outside the old grants, a new env name, any new host is looser', () => {
    expect(sandboxLoosened(s(), undefined)).toBe(true);
    expect(sandboxLoosened(s({ write: ['/a'] }), s({ write: ['/b'] }))).toBe(true);
    expect(sandboxLoosened(s({ read: ['/a'] }), s({ write: ['/a'] }))).toBe(true);
    expect(sandboxLoosened(s(), s({ env: ['TOKEN'] }))).toBe(true);
    expect(sandboxLoosened(s(), s({ network: { allow: ['x.example'] } }))).toBe(true);
    expect(sandboxLoosened(s({ network: { allow: ['x.example'] } }), s({ network: { allow: ['x.example', 'y.example'] } }))).toBe(true);
  });
  it('the same, a narrower path, fewer hosts, no network, or adding a sandbox where there was none is not', () => {
    expect(sandboxLoosened(s({ write: ['/a'] }), s({ write: ['/a'] }))).toBe(false);
    expect(sandboxLoosened(s({ write: ['/a'] }), s({ write: ['/a/b'], read: ['/a/c'] }))).toBe(false);
    expect(sandboxLoosened(s({ network: { allow: ['x.example', 'y.example'] } }), s({ network: { allow: ['x.example'] } }))).toBe(false);
    expect(sandboxLoosened(s({ network: { allow: ['x.example'] } }), s())).toBe(false);
    expect(sandboxLoosened(undefined, s())).toBe(false);
  });
});

describe('where no sandbox can be had, the server is not started', () => {
  it('macOS: sandbox-exec with the generated profile, HOME/TMPDIR the private temp dir, removed by cleanup; an allow-list adds the proxy on loopback', async () => {
    const l = await prepareSandbox({ command: 'node', args: ['srv.js'], sandbox: {}, env: { K: 'v' } }, 'darwin', { PATH: '/usr/bin', SECRET: 's' });
    expect(l.file).toBe('/usr/bin/sandbox-exec');
    expect(l.args[0]).toBe('-p');
    expect(l.args[1]).toContain('(deny default)');
    expect(l.args.slice(2)).toEqual(['node', 'srv.js']);
    expect(l.env).toMatchObject({ PATH: '/usr/bin', K: 'v', HOME: l.env.TMPDIR });
    expect(l.env.SECRET).toBeUndefined();
    expect(l.args[1]).toContain(`(allow file-read* file-write* (subpath "${l.env.TMPDIR}"))`);
    expect(fs.existsSync(l.env.TMPDIR!)).toBe(true);
    l.cleanup();
    expect(fs.existsSync(l.env.TMPDIR!)).toBe(false);
    const denied: string[] = [];
    const p = await prepareSandbox({ command: 'node', args: [], sandbox: { network: { allow: ['x.example'] }, onDenied: (d) => denied.push(d.host) } }, 'darwin', { PATH: '/usr/bin' });
    try {
      const port = /remote ip "localhost:(\d+)"/.exec(p.args[1])?.[1];
      expect(port).toBeDefined();
      expect(p.env.HTTPS_PROXY).toBe(`http://127.0.0.1:${port}`);
      const answer = await new Promise<string>((resolve) => {
        const c = net.connect(Number(port), '127.0.0.1', () => c.write('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n'));
        let got = '';
        c.on('data', (d: Buffer) => (got += d.toString()));
        c.on('close', () => resolve(got));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(denied).toEqual(['evil.example']);
    } finally {
      p.cleanup();
    }
  });

  it('Windows: refused, naming the platform', async () => {
    await expect(prepareSandbox({ command: 'node', args: [], sandbox: {} }, 'win32')).rejects.toMatchObject({
      code: 'MCPWIRE_SANDBOX_UNSUPPORTED',
      message: expect.stringContaining('not supported on Windows (win32)'),
    });
  });

  it.skipIf(process.platform !== 'linux')('Linux without bubblewrap: the error says how to install it, and nothing is spawned', async () => {
    expect(findBwrap({ PATH: '/nonexistent', MCPWIRE_BWRAP: '/nonexistent/bwrap' })).toBeUndefined();
    const saved = process.env.MCPWIRE_BWRAP;
    process.env.MCPWIRE_BWRAP = '/nonexistent/bwrap';
    try {
      const t = new StdioTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], sandbox: {}, serverId: 'jail' });
      const err = await t.start().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'MCPWIRE_SANDBOX_UNAVAILABLE', serverId: 'jail' });
      expect(String((err as Error).message)).toContain('apt-get install bubblewrap');
      expect(t.pid).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.MCPWIRE_BWRAP;
      else process.env.MCPWIRE_BWRAP = saved;
    }
  });
});

describe('what a failing call shows the sandbox denied', () => {
  const grants = { filesystem: { read: [], write: ['/data'] }, network: 'none' as const, env: [] };
  it('EROFS: a write to a read-only path; ENOENT outside the grants: not visible; a refused connection: no network', () => {
    expect(inferDenials("EROFS: read-only file system, open '/app/x.txt'", grants, 'linux')).toEqual(['probably denied: write to /app/x.txt (granted read-only)']);
    expect(inferDenials("ENOENT: no such file or directory, open '/home/me/.ssh/id_rsa'", grants, 'linux')).toEqual([
      "probably denied: /home/me/.ssh/id_rsa (outside the sandbox's grants: not visible inside)",
    ]);
    expect(inferDenials("ENOENT: no such file or directory, open '/data/missing'", grants, 'linux')).toEqual([]);
    expect(inferDenials('connect ECONNREFUSED 127.0.0.1:80', grants, 'linux')).toEqual(['probably denied: network (the sandbox has none)']);
  });
});
