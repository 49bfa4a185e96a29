/**
 * `mcpwire registry search|show`, `mcp add --from-registry`, `mcp update`, end to end against a
 * scripted local registry (mock-servers/registry-server.mjs) serving the registry repository's
 * example server.json files, the same adapted to what runs here, and a generated catalog.
 * npm: the entry (`npx -y @modelcontextprotocol/server-memory@<version>`) is run through an `npx`
 * stand-in on PATH that execs the installed package, so nothing is downloaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { startRegistry } from '../../mock-servers/registry-server.mjs';
import { cleanup, run, sandbox, writeJson, type Sandbox } from '../support/cli-user.js';
import { bundleDoc, catalog, example, MEMORY, memoryBin, memoryBundle, memoryDoc, memoryPkg, memoryVersion, npxShim, ociDoc, remoteDoc, sha256, zip } from '../support/registry-fixtures.js';
import { serverJsonProblems } from '../../src/registry/validate.js';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { hasScript, onPty, visible } from '../support/pty.js';

type Registry = Awaited<ReturnType<typeof startRegistry>>;
let reg: Registry;
const SECRET = 'Bearer s3cret-registry-token-93f1';

beforeAll(async () => {
  reg = await startRegistry({
    documents: [memoryDoc('2026.1.0'), memoryDoc(), remoteDoc(), ociDoc(), example('valid/with-package.json'), hybridDoc(), secretArgDoc('1.0.0'), secretArgDoc('1.1.0'), ...catalog(250)],
  });
});
afterAll(async () => {
  await reg.close();
  cleanup();
});

const env = (sb: Sandbox, extra: Record<string, string> = {}) => ({ MCPWIRE_REGISTRY: reg.url, PATH: `${npxShim(path.join(sb.dir, 'bin'))}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}/usr/bin${path.delimiter}/bin`, ...extra });
/** The memory server offered two ways: its npm package and a remote. */
function hybridDoc(): Record<string, unknown> {
  return { ...memoryDoc(), name: 'io.github.example/hybrid-memory', remotes: [{ type: 'streamable-http', url: 'https://memory.example.com/mcp' }] };
}
/** The memory server's package with a secret named argument (`--token`), at `version` of the document. */
function secretArgDoc(version: string): Record<string, unknown> {
  const d = memoryDoc();
  const pkg = (d.packages as Record<string, unknown>[])[0];
  pkg.packageArguments = [{ type: 'named', name: '--token', isSecret: true, isRequired: true }];
  return { ...d, name: 'io.github.example/secret-arg', version };
}
const projectConfig = (sb: Sandbox) => JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')) as { mcp: { servers: Record<string, Record<string, unknown>> } };

describe('the documents the tests serve', () => {
  it('the published 2025-12-11 schema accepts every valid one and refuses the invalid examples, naming the field', () => {
    const served = [memoryDoc('2026.1.0'), memoryDoc(), remoteDoc(), ociDoc(), example('valid/with-package.json'), hybridDoc(), secretArgDoc('1.0.0'), secretArgDoc('1.1.0'), ...catalog(250)];
    for (const d of [...served, example('valid/with-remote.json'), bundleDoc('http://127.0.0.1:1/b.mcpb', 'a'.repeat(64))]) {
      expect(serverJsonProblems(d), String(d.name)).toEqual([]);
    }
    expect(serverJsonProblems(example('invalid/package-version-latest.json')).map((p) => p.path)).toContain('/packages/0/version');
    expect(serverJsonProblems(example('invalid/positional-argument-missing-value.json')).length).toBeGreaterThan(0);
  });
});

describe('mcpwire registry search / show', () => {
  it('search: name, version, what it offers; paged with the next cursor', async () => {
    const sb = sandbox();
    const r = await run(sb, ['registry', 'search', 'catalog', '--limit', '100'], { env: env(sb) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('io.example.catalog/server-0001');
    expect(r.stdout).toContain('remote');
    expect(r.stderr).toMatch(/more: mcpwire registry search catalog --limit 100 --cursor io\.example\.catalog\/server-0100/);
    const last = await run(sb, ['registry', 'search', 'catalog', '--limit', '100', '--cursor', 'io.example.catalog/server-0200', '--json'], { env: env(sb) });
    const page = JSON.parse(last.stdout) as { servers: { name: string }[]; next_cursor: string | null };
    expect(page.servers).toHaveLength(50);
    expect(page.next_cursor).toBeNull();
    expect(reg.requests.some((q) => q.query.version === 'latest' && q.query.cursor === 'io.example.catalog/server-0200')).toBe(true);
  });

  it('show: the choices and what each needs', async () => {
    const sb = sandbox();
    const r = await run(sb, ['registry', 'show', 'io.github.user/remote-weather'], { env: env(sb) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('--remote: remote http://{host}/mcp (streamable-http)');
    expect(r.stdout).toMatch(/Authorization \(header; required; secret: set REMOTE_WEATHER_AUTHORIZATION/);
    expect(r.stdout).toMatch(/host \(variable; optional; default "api\.example\.com"\)/);
  });
});

describe('which registry: --registry > MCPWIRE_REGISTRY > mcp.registry of the global config > the official one', () => {
  const ONLY = 'io.example.other/only-here';
  it('each one wins over those after it; a project\'s mcp.registry is not read; an unusable setting is an error naming it', { timeout: 120_000 }, async () => {
    const other = await startRegistry({ documents: [{ ...catalog(1)[0], name: ONLY }] });
    try {
      const sb = sandbox();
      writeJson(sb.globalFile, { version: 1, mcp: { registry: other.url, servers: {} } });
      const search = async (args: string[], extra: Record<string, string>) => {
        const r = await run(sb, ['registry', 'search', ...args, '--json'], { env: env(sb, { MCPWIRE_REGISTRY: '', ...extra }) });
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as { registry: string; servers: { name: string }[] };
      };
      const fromConfig = await search([], {});
      expect(fromConfig.registry).toBe(other.url);
      expect(fromConfig.servers.map((x) => x.name)).toEqual([ONLY]);
      expect((await search([], { MCPWIRE_REGISTRY: reg.url })).registry).toBe(reg.url);
      expect((await search(['--registry', other.url], { MCPWIRE_REGISTRY: reg.url })).registry).toBe(other.url);
      // mcp add takes the same registry
      const add = await run(sb, ['mcp', 'add', 'o', '--from-registry', ONLY], { env: env(sb, { MCPWIRE_REGISTRY: '' }) });
      expect(add.code, add.stderr).toBe(0);
      expect((projectConfig(sb).mcp.servers.o.from_registry as { registry: string }).registry).toBe(other.url);
      // a project's setting is not read (a cloned project must not choose where servers come from)
      writeJson(sb.projectFile, { version: 1, mcp: { registry: 'http://127.0.0.1:1', servers: {} } });
      const proj = await run(sb, ['registry', 'search', '--json'], { env: env(sb, { MCPWIRE_REGISTRY: '' }) });
      expect(proj.code, proj.stderr).toBe(0);
      expect(JSON.parse(proj.stdout).registry).toBe(other.url);
      expect(other.requests.length).toBeGreaterThan(0);
      writeJson(sb.globalFile, { version: 1, mcp: { registry: 'ftp://registry.example.com', servers: {} } });
      const bad = await run(sb, ['registry', 'search', 'x'], { env: env(sb, { MCPWIRE_REGISTRY: '' }) });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`global config ${sb.globalFile}: field "mcp.registry": must be an absolute http(s) URL without credentials; fix it, or say the registry with --registry <url> or MCPWIRE_REGISTRY`);
    } finally {
      await other.close();
    }
  });
});

describe('mcp add --from-registry', { timeout: 120_000 }, () => {
  it('npm: writes npx -y <pkg>@<version> pinned to the resolved version, with provenance; the entry runs and answers tools', async () => {
    const sb = sandbox();
    const mem = path.join(sb.dir, 'memory.json');
    const add = await run(sb, ['mcp', 'add', '--from-registry', MEMORY, '--set', `MEMORY_FILE_PATH=${mem}`], { env: env(sb) });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(`added server "server-memory" (npm ${memoryPkg}@${memoryVersion})`);
    const entry = projectConfig(sb).mcp.servers['server-memory'];
    expect(entry).toMatchObject({ transport: 'stdio', command: 'npx', args: ['-y', `${memoryPkg}@${memoryVersion}`], env: { MEMORY_FILE_PATH: mem } });
    expect(entry.from_registry).toEqual({ registry: reg.url, name: MEMORY, version: memoryVersion, package: 'npm', inputs: { MEMORY_FILE_PATH: [mem] } });
    const tools = await run(sb, ['tools', 'server-memory', '--names'], { env: env(sb) });
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('create_entities');
    const list = await run(sb, ['mcp', 'list'], { env: env(sb) });
    expect(list.stdout).toContain(`from registry: ${MEMORY}@${memoryVersion} (npm)`);
  });

  it('mcp update: shows the move to the newer version (dry run), writes it with --yes, keeps the values given', async () => {
    const sb = sandbox();
    const mem = path.join(sb.dir, 'memory.json');
    expect((await run(sb, ['mcp', 'add', 'mem', '--from-registry', `${MEMORY}@2026.1.0`, '--set', `MEMORY_FILE_PATH=${mem}`], { env: env(sb) })).code).toBe(0);
    expect(projectConfig(sb).mcp.servers.mem.args).toEqual(['-y', `${memoryPkg}@2026.1.0`]);
    const dry = await run(sb, ['mcp', 'update', 'mem'], { env: env(sb) });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`version: 2026.1.0 → ${memoryVersion}`);
    expect(dry.stdout).toContain('nothing written');
    expect(projectConfig(sb).mcp.servers.mem.args).toEqual(['-y', `${memoryPkg}@2026.1.0`]);
    const yes = await run(sb, ['mcp', 'update', 'mem', '--yes'], { env: env(sb) });
    expect(yes.code, yes.stderr).toBe(0);
    const entry = projectConfig(sb).mcp.servers.mem;
    expect(entry.args).toEqual(['-y', `${memoryPkg}@${memoryVersion}`]);
    expect(entry.env).toEqual({ MEMORY_FILE_PATH: mem });
    expect((await run(sb, ['mcp', 'update', 'mem'], { env: env(sb) })).stdout).toContain('nothing to change');
  });

  it('mcp update of an entry with a secret argument shows what changes without the secret', async () => {
    const sb = sandbox();
    const secret = 'arg-secret-5512-value';
    const e = env(sb, { SA_TOKEN: secret, MEMORY_FILE_PATH: path.join(sb.dir, 'm.json') });
    const add = await run(sb, ['mcp', 'add', 'sa', '--from-registry', 'io.github.example/secret-arg@1.0.0', '--set', 'MEMORY_FILE_PATH=/tmp/m.json'], { env: e });
    expect(add.code, add.stderr).toBe(0);
    expect(projectConfig(sb).mcp.servers.sa).toMatchObject({ args: ['-y', `${memoryPkg}@${memoryVersion}`, '--token', '${SA_TOKEN}'], env: { SA_TOKEN: '${SA_TOKEN}' }, secret_names: ['SA_TOKEN'] });
    const dry = await run(sb, ['mcp', 'update', 'sa'], { env: e });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('version: 1.0.0 → 1.1.0');
    expect(dry.stdout + dry.stderr + add.stdout + add.stderr + fs.readFileSync(sb.projectFile, 'utf8')).not.toContain(secret);
  });

  it('remote: URL variable filled, the secret header stored as ${VAR} in secret_names; it reaches the server with the header and is never in config, trace or output', async () => {
    const mock = (await startHttpMock({ bearer: 's3cret-registry-token-93f1' })) as { url: string; close(): Promise<void> };
    try {
      const sb = sandbox();
      const host = new URL(mock.url).host;
      const add = await run(sb, ['mcp', 'add', 'weather', '--from-registry', 'io.github.user/remote-weather', '--set', `host=${host}`], { env: env(sb) });
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toContain('set WEATHER_AUTHORIZATION in the environment');
      const text = fs.readFileSync(sb.projectFile, 'utf8');
      const entry = projectConfig(sb).mcp.servers.weather;
      expect(entry).toMatchObject({ transport: 'http', url: `http://${host}/mcp`, headers: { Authorization: '${WEATHER_AUTHORIZATION}' }, secret_names: ['WEATHER_AUTHORIZATION', 'Authorization'] });
      const trace = path.join(sb.dir, 'trace.jsonl');
      const tools = await run(sb, ['tools', 'weather', '--trace', trace], { env: env(sb, { WEATHER_AUTHORIZATION: SECRET }) });
      expect(tools.code, tools.stderr).toBe(0);
      const without = await run(sb, ['tools', 'weather'], { env: env(sb, { WEATHER_AUTHORIZATION: 'Bearer wrong' }) });
      expect(without.code).not.toBe(0);
      const list = await run(sb, ['mcp', 'list', '--json'], { env: env(sb, { WEATHER_AUTHORIZATION: SECRET }) });
      for (const out of [text, add.stdout, add.stderr, tools.stdout, tools.stderr, list.stdout, fs.readFileSync(trace, 'utf8')]) expect(out).not.toContain('s3cret-registry-token-93f1');
    } finally {
      await mock.close();
    }
  });

  it('remote with a secret URL variable: the URL holds ${VAR}, never the value; the value is redacted from output, mcp list, trace, errors and status', { timeout: 120_000 }, async () => {
    const key = 'k9PathSecret-7731-zq';
    const mock = (await startHttpMock({ path: `/mcp/${key}` })) as { url: string; close(): Promise<void> };
    const doc = { ...remoteDoc(), name: 'io.github.example/path-key', remotes: [{ type: 'streamable-http', url: 'http://{host}/mcp/{api_key}', variables: { host: { default: 'api.example.com' }, api_key: { description: 'Your key', isSecret: true, isRequired: true } } }] };
    expect(serverJsonProblems(doc)).toEqual([]);
    const r2 = await startRegistry({ documents: [doc] });
    try {
      const sb = sandbox();
      const host = new URL(mock.url).host;
      const e = (extra: Record<string, string> = {}) => env(sb, { MCPWIRE_REGISTRY: r2.url, ...extra });
      const add = await run(sb, ['mcp', 'add', 'pk', '--from-registry', 'io.github.example/path-key', '--set', `host=${host}`], { env: e() });
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toContain('set PK_API_KEY in the environment');
      expect(projectConfig(sb).mcp.servers.pk).toMatchObject({ transport: 'http', url: `http://${host}/mcp/\${PK_API_KEY}`, secret_names: ['PK_API_KEY'] });
      const trace = path.join(sb.dir, 'trace.jsonl');
      const ok = await run(sb, ['tools', 'pk', '--names', '--trace', trace], { env: e({ PK_API_KEY: key }) });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('echo');
      const list = await run(sb, ['mcp', 'list'], { env: e({ PK_API_KEY: key }) });
      const listJson = await run(sb, ['mcp', 'list', '--json'], { env: e({ PK_API_KEY: key }) });
      const outs = [fs.readFileSync(sb.projectFile, 'utf8'), add.stdout, add.stderr, ok.stdout, ok.stderr, list.stdout, list.stderr, listJson.stdout, fs.readFileSync(trace, 'utf8')];
      // A wrong key: the server answers 404 on that path; the error, the trace and status never show the key given.
      const wrong = 'k9WrongSecret-4410-qq';
      const trace2 = path.join(sb.dir, 'trace2.jsonl');
      const bad = await run(sb, ['tools', 'pk', '--trace', trace2], { env: e({ PK_API_KEY: wrong }) });
      expect(bad.code).not.toBe(0);
      // read connects to the one server on its own (not through a host): its trace knows the key too
      const trace3 = path.join(sb.dir, 'trace3.jsonl');
      const read = await run(sb, ['read', 'pk', 'test://static/1', '--trace', trace3], { env: e({ PK_API_KEY: wrong }) });
      expect(read.code).not.toBe(0);
      expect(fs.readFileSync(trace3, 'utf8')).toContain('no MCP endpoint at');
      const status = await run(sb, ['status', '--json'], { env: e({ PK_API_KEY: wrong }) });
      const statusText = await run(sb, ['status'], { env: e({ PK_API_KEY: wrong }) });
      expect(status.stdout + statusText.stdout).toContain('pk');
      for (const out of [...outs, bad.stdout, bad.stderr, status.stdout, status.stderr, statusText.stdout, statusText.stderr, read.stdout, read.stderr, fs.readFileSync(trace2, 'utf8'), fs.readFileSync(trace3, 'utf8')]) {
        expect(out).not.toContain(key);
        expect(out).not.toContain(wrong);
      }
    } finally {
      await Promise.all([mock.close(), r2.close()]);
    }
  });

  it('mcpb: a bundle with the right SHA-256 is unpacked under the config dir and runs; a wrong one is refused and nothing is written', async () => {
    const bundle = memoryBundle();
    reg.addFile('memory.mcpb', bundle);
    const url = `${reg.url}/files/memory.mcpb`;
    const bad = await startRegistry({ documents: [bundleDoc(url, 'f'.repeat(64))] });
    try {
      const sb = sandbox();
      const refused = await run(sb, ['mcp', 'add', 'mb', '--from-registry', 'io.github.example/memory-bundle'], { env: env(sb, { MCPWIRE_REGISTRY: bad.url }) });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`does not match its fileSha256 (expected ${'f'.repeat(64)}, got ${sha256(bundle)}); nothing was installed`);
      expect(fs.existsSync(sb.projectFile)).toBe(false);
      reg.publish(bundleDoc(url, sha256(bundle)));
      const add = await run(sb, ['mcp', 'add', 'mb', '--from-registry', 'io.github.example/memory-bundle'], { env: env(sb) });
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toContain(`bundle verified (sha256 ${sha256(bundle)})`);
      const entry = projectConfig(sb).mcp.servers.mb;
      expect(entry.command).toBe('node');
      expect(String((entry.args as string[])[0])).toContain(path.join('bundles', sha256(bundle), 'server', 'index.mjs'));
      const tools = await run(sb, ['tools', 'mb', '--names'], { env: env(sb, { MEMORY_FILE_PATH: path.join(sb.dir, 'm.json') }) });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toContain('create_entities');
    } finally {
      await bad.close();
    }
  });
});

describe('a package that serves HTTP once started (transport streamable-http)', () => {
  const NAME = 'io.github.example/http-package';
  const httpPackageDoc = () => ({
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: NAME,
    description: 'A local package serving Streamable HTTP on the port it is given',
    version: '1.0.0',
    packages: [{ registryType: 'npm', identifier: 'example-http-mcp', version: '1.0.0', transport: { type: 'streamable-http', url: 'http://127.0.0.1:{--port}/mcp' }, packageArguments: [{ type: 'named', name: '--port', description: 'Port to serve on', isRequired: true }] }],
  });
  /** An `npx` that runs the scripted HTTP server (mock-servers/http-server.mjs, loopback) for example-http-mcp@1.0.0. */
  const httpNpx = (dir: string) => {
    fs.mkdirSync(dir, { recursive: true });
    const mock = path.join(path.dirname(memoryBin).split('node_modules')[0], 'mock-servers', 'http-server.mjs');
    fs.writeFileSync(path.join(dir, 'npx'), `#!/bin/sh\nif [ "$1" = "-y" ] && [ "$2" = "example-http-mcp@1.0.0" ]; then shift 2; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(mock)} "$@"; fi\necho "npx stand-in: unexpected arguments: $*" >&2\nexit 1\n`, { mode: 0o755 });
    return dir;
  };
  const freePort = () => new Promise<number>((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); }); });

  it('the entry starts the package, waits for its port and relays stdio to its URL: it answers tools; a port already taken is refused', { timeout: 120_000 }, async () => {
    expect(serverJsonProblems(httpPackageDoc())).toEqual([]);
    const r2 = await startRegistry({ documents: [httpPackageDoc()] });
    try {
      const sb = sandbox();
      const e = { ...env(sb, { MCPWIRE_REGISTRY: r2.url }), PATH: `${httpNpx(path.join(sb.dir, 'bin'))}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}/usr/bin${path.delimiter}/bin` };
      const port = await freePort();
      const show = await run(sb, ['registry', 'show', NAME], { env: e });
      expect(show.stdout).toContain('--package npm: npm example-http-mcp@1.0.0 (streamable-http; runs with npx)');
      const add = await run(sb, ['mcp', 'add', 'hp', '--from-registry', NAME, `--set=--port=${port}`], { env: e });
      expect(add.code, add.stderr).toBe(0);
      const entry = projectConfig(sb).mcp.servers.hp;
      expect(entry).toMatchObject({ transport: 'stdio', command: process.execPath });
      expect((entry.args as string[]).slice(1)).toEqual(['registry', 'launch', '--url', `http://127.0.0.1:${port}/mcp`, '--', 'npx', '-y', 'example-http-mcp@1.0.0', '--port', String(port)]);
      // a loaded machine: node, npx and the package start before the first answer
      const tools = await run(sb, ['tools', 'hp', '--names', '--timeout-ms', '60000'], { env: e });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toContain('echo');
      const call = await run(sb, ['call', 'hp', 'echo', 'text=through the launcher', '--timeout-ms', '60000'], { env: e });
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toContain('through the launcher');
      // the package is gone with the session: the port is free again
      expect(await new Promise((resolve) => { const c = net.connect(port, '127.0.0.1'); c.once('connect', () => (c.destroy(), resolve(true))); c.once('error', () => resolve(false)); })).toBe(false);
      const squatter = net.createServer().listen(port, '127.0.0.1');
      await new Promise((resolve) => squatter.once('listening', resolve));
      try {
        const taken = await run(sb, ['tools', 'hp', '--timeout-ms', '60000'], { env: e });
        expect(taken.code).not.toBe(0);
        expect(taken.stdout + taken.stderr).toContain(`127.0.0.1:${port} is already taken by another program`);
      } finally {
        await new Promise((resolve) => squatter.close(resolve));
      }
    } finally {
      await r2.close();
    }
  });
});

describe('mcp update of an MCPB bundle', () => {
  it('shows the version and SHA-256 change; --yes downloads and verifies the new bundle, then writes and it runs; a wrong SHA-256 writes nothing', { timeout: 120_000 }, async () => {
    const name = 'io.github.example/memory-bundle';
    const a = memoryBundle();
    const manifest = JSON.stringify({ manifest_version: '0.2', name: 'memory', version: '1.1.0', server: { type: 'node', entry_point: 'server/index.mjs', mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'] } } });
    const b = zip({ 'manifest.json': manifest, 'server/index.mjs': `import ${JSON.stringify(memoryBin)};\n` });
    const r2 = await startRegistry({ files: { 'a.mcpb': a, 'b.mcpb': b } });
    try {
      r2.publish(bundleDoc(`${r2.url}/files/a.mcpb`, sha256(a)));
      const sb = sandbox();
      const e = env(sb, { MCPWIRE_REGISTRY: r2.url, MEMORY_FILE_PATH: path.join(sb.dir, 'm.json') });
      expect((await run(sb, ['mcp', 'add', 'mb', '--from-registry', name], { env: e })).code).toBe(0);
      const before = fs.readFileSync(sb.projectFile, 'utf8');
      // 1.2.0 published with a SHA-256 its file does not have: applying it is refused, nothing written
      r2.publish({ ...bundleDoc(`${r2.url}/files/b.mcpb`, 'e'.repeat(64)), version: '1.2.0' });
      const refused = await run(sb, ['mcp', 'update', 'mb', '--yes'], { env: e });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`does not match its fileSha256 (expected ${'e'.repeat(64)}, got ${sha256(b)}); nothing was installed`);
      expect(fs.readFileSync(sb.projectFile, 'utf8')).toBe(before);
      // 1.1.0, right SHA-256: the dry run says what changes and downloads nothing
      const downloads = () => r2.requests.filter((q) => q.path === '/files/b.mcpb').length;
      const fetched = downloads();
      const early = await run(sb, ['mcp', 'update', 'mb', '--to', '1.1.0'], { env: e });
      expect(early.code).toBe(1);
      expect(early.stderr).toContain(`has no version 1.1.0 of ${name} (it has 1.2.0, 1.0.0)`);
      r2.publish({ ...bundleDoc(`${r2.url}/files/b.mcpb`, sha256(b)), version: '1.1.0' });
      const dry2 = await run(sb, ['mcp', 'update', 'mb', '--to', '1.1.0'], { env: e });
      expect(dry2.code, dry2.stderr).toBe(0);
      expect(dry2.stdout).toContain('version: 1.0.0 → 1.1.0');
      expect(dry2.stdout).toContain(`bundle: sha256 ${sha256(a)} → ${sha256(b)}`);
      expect(dry2.stdout).toContain('nothing written');
      expect(downloads()).toBe(fetched);
      expect(fs.readFileSync(sb.projectFile, 'utf8')).toBe(before);
      const yes = await run(sb, ['mcp', 'update', 'mb', '--to', '1.1.0', '--yes'], { env: e });
      expect(yes.code, yes.stderr).toBe(0);
      expect(yes.stdout).toContain(`bundle verified (sha256 ${sha256(b)})`);
      const entry = projectConfig(sb).mcp.servers.mb;
      expect(String((entry.args as string[])[0])).toContain(path.join('bundles', sha256(b), 'server', 'index.mjs'));
      expect(entry.from_registry).toMatchObject({ version: '1.1.0', package: 'mcpb' });
      const tools = await run(sb, ['tools', 'mb', '--names'], { env: e });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toContain('create_entities');
    } finally {
      await r2.close();
    }
  });
});

describe('errors a user meets (nothing is written)', () => {
  const fails = async (args: string[], extra: Record<string, string> = {}) => {
    const sb = sandbox();
    const r = await run(sb, args, { env: env(sb, extra) });
    expect(r.code, r.stdout).not.toBe(0);
    expect(fs.existsSync(sb.projectFile)).toBe(false);
    return r.stderr;
  };

  it('a name that does not exist: did you mean, from the search', async () => {
    const err = await fails(['mcp', 'add', '--from-registry', 'io.github.modelcontextprotocol/server-memroy']);
    expect(err).toContain(`has no server named io.github.modelcontextprotocol/server-memroy; did you mean ${MEMORY}?`);
  });

  it('a version that does not exist: the versions there are', async () => {
    const err = await fails(['mcp', 'add', '--from-registry', `${MEMORY}@9.9.9`]);
    expect(err).toContain(`has no version 9.9.9 of ${MEMORY} (it has ${memoryVersion}, 2026.1.0)`);
  });

  it('a package whose runner is not installed names the missing command', async () => {
    const err = await fails(['mcp', 'add', '--from-registry', 'io.github.example/database-manager'], { PATH: path.dirname(process.execPath) });
    expect(err).toContain('the oci package runs with "docker", which is not installed here (not found on PATH)');
  });

  it('a required value not given, without a terminal: named', async () => {
    const err = await fails(['mcp', 'add', '--from-registry', MEMORY]);
    expect(err).toContain('required value not given: MEMORY_FILE_PATH (environment variable: Where the graph is kept); give it with --set <KEY>=<VALUE>');
  });

  it('a secret given on the command line is refused, its value never echoed', async () => {
    const err = await fails(['mcp', 'add', '--from-registry', 'io.github.user/remote-weather', '--set', 'Authorization=Bearer leaked-value-77']);
    expect(err).toContain('Authorization is a secret: it is never written to a config file; set REMOTE_WEATHER_AUTHORIZATION');
    expect(err).not.toContain('leaked-value-77');
  });

  it('a server.json that does not validate is refused, naming the field', async () => {
    const bad = await startRegistry({ documents: [example('invalid/package-version-latest.json')] });
    try {
      const err = await fails(['mcp', 'add', '--from-registry', 'io.github.user/bad-version'], { MCPWIRE_REGISTRY: bad.url });
      expect(err).toContain('server.json does not validate against the 2025-12-11 schema: /packages/0/version');
    } finally {
      await bad.close();
    }
  });

  it('a registry that is down, answers garbage, answers no list, or answers too much: a clear error', async () => {
    const r2 = await startRegistry({ documents: [memoryDoc()] });
    try {
      for (const [mode, text] of [
        ['error', 'answered HTTP 503'],
        ['garbage', 'with a body that is not JSON'],
        ['not-a-list', 'is not a server list'],
        ['huge', 'answered more than 4194304 bytes'],
      ] as const) {
        r2.mode = mode;
        expect(await fails(['registry', 'search', 'memory'], { MCPWIRE_REGISTRY: r2.url }), mode).toContain(text);
      }
      r2.mode = 'garbage';
      const garbage = await fails(['mcp', 'add', '--from-registry', MEMORY, '--set', 'MEMORY_FILE_PATH=/tmp/x'], { MCPWIRE_REGISTRY: r2.url });
      expect(garbage).toContain(`${MEMORY}@latest: ${r2.url}/v0.1/servers/`);
      expect(garbage).toContain('with a body that is not JSON; nothing was written (the registry does not speak the MCP Registry API (/v0.1) as expected; check its URL: --registry <url>, MCPWIRE_REGISTRY or mcp.registry of the global config choose it)');
      r2.mode = 'error';
      expect(await fails(['mcp', 'add', '--from-registry', `${MEMORY}@1.0.0`, '--set', 'MEMORY_FILE_PATH=/tmp/x'], { MCPWIRE_REGISTRY: r2.url })).toMatch(new RegExp(`${MEMORY.replace(/\./g, '\\.')}@1\\.0\\.0: .* answered HTTP 503.*; nothing was written \\(check the registry URL and your connection, or try again later`));
    } finally {
      await r2.close();
    }
    const port = r2.port;
    expect(await fails(['registry', 'search', 'x'], { MCPWIRE_REGISTRY: `http://127.0.0.1:${port}` })).toMatch(/searching http:\/\/127\.0\.0\.1:\d+ for "x": .*could not be reached: ECONNREFUSED; nothing was written \(check the registry URL/);
  });
});

describe('mcpwire check --server-json', () => {
  it('validates the file, starts the package it describes and checks it; a file that does not validate is refused naming the field', async () => {
    const sb = sandbox();
    const good = path.join(sb.dir, 'server.json');
    fs.writeFileSync(good, JSON.stringify(memoryDoc()));
    const r = await run(sb, ['check', '--server-json', good, '--set', `MEMORY_FILE_PATH=${path.join(sb.dir, 'm.json')}`, '--only', 'lifecycle.initialize-result', '--json'], { env: env(sb) });
    expect(r.stderr).toContain('valid against the server.json schema 2025-12-11');
    expect(r.code, r.stderr).toBe(0);
    const report = (JSON.parse(r.stdout) as { servers: { id: string; report: { target: string; results: { id: string; status: string }[] } }[] }).servers[0].report;
    expect(report.target).toBe(`npx -y ${memoryPkg}@${memoryVersion}`);
    expect(report.results.find((x) => x.id === 'lifecycle.initialize-result')?.status).toBe('pass');
    const bad = path.join(sb.dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify(example('invalid/package-version-latest.json')));
    const refused = await run(sb, ['check', '--server-json', bad], { env: env(sb) });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('does not validate against the 2025-12-11 schema: /packages/0/version');
  });

  it('--remote: checks the remote it describes, its URL variable filled and its secret header read from the environment, the secret in no output', async () => {
    const mock = (await startHttpMock({ bearer: 's3cret-registry-token-93f1' })) as { url: string; close(): Promise<void> };
    try {
      const sb = sandbox();
      const file = path.join(sb.dir, 'server.json');
      fs.writeFileSync(file, JSON.stringify(remoteDoc()));
      const args = ['check', '--server-json', file, '--remote', '--set', `host=${new URL(mock.url).host}`, '--only', 'lifecycle.initialize-result', '--json'];
      const r = await run(sb, args, { env: env(sb, { REMOTE_WEATHER_AUTHORIZATION: SECRET }) });
      expect(r.code, r.stderr).toBe(0);
      const report = (JSON.parse(r.stdout) as { servers: { report: { target: string; results: { id: string; status: string }[] } }[] }).servers[0].report;
      expect(report.target).toContain(`${new URL(mock.url).host}/mcp`);
      expect(report.results.find((x) => x.id === 'lifecycle.initialize-result')?.status).toBe('pass');
      const refused = await run(sb, args, { env: env(sb, { REMOTE_WEATHER_AUTHORIZATION: 'Bearer wrong' }) });
      expect(refused.code).not.toBe(0);
      const missing = await run(sb, args, { env: env(sb) });
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('set REMOTE_WEATHER_AUTHORIZATION in the environment');
      for (const out of [r.stdout, r.stderr, refused.stdout, refused.stderr]) expect(out).not.toContain('s3cret-registry-token-93f1');
    } finally {
      await mock.close();
    }
  });
});

describe.skipIf(!hasScript)('on a terminal', { timeout: 120_000 }, () => {
  it('asks which choice when several fit, then each required value; writes what was answered', async () => {
    const sb = sandbox();
    const mem = path.join(sb.dir, 'asked.json');
    const child = spawn('script', ['-qec', onPty(['mcp', 'add', 'hy', '--from-registry', 'io.github.example/hybrid-memory'], 200), '/dev/null'], { cwd: sb.proj, env: { ...process.env, ...sb.env, ...env(sb) } });
    let out = '';
    let step = 0;
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const seen = visible(out);
      if (step === 0 && /how\? \[1-2\] $/.test(seen)) (step++, child.stdin.write('1\r'));
      else if (step === 1 && /MEMORY_FILE_PATH = $/.test(seen)) (step++, child.stdin.write(`${mem}\r`));
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(out).toContain(`1. npm ${memoryPkg}@${memoryVersion} (stdio)`);
    expect(out).toContain('2. remote https://memory.example.com/mcp (streamable-http)');
    expect(code, out).toBe(0);
    expect(projectConfig(sb).mcp.servers.hy).toMatchObject({ command: 'npx', env: { MEMORY_FILE_PATH: mem } });
  });

  it('without a terminal, several choices are an error listing the flags', async () => {
    const sb = sandbox();
    const r = await run(sb, ['mcp', 'add', '--from-registry', 'io.github.example/hybrid-memory'], { env: env(sb) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`offers several ways to install it; say which: --package npm (npm ${memoryPkg}@${memoryVersion}), --remote (remote https://memory.example.com/mcp)`);
  });
});
