/**
 * What a CLI command loads before it does its job, pinned: every `mcpwire` command is a fresh
 * process, so a module it reaches statically is compiled on every run, whether the command uses it
 * or not. The OAuth flows (auth/provider.ts, auth/revoke.ts and oauth4webapi), the tool search
 * index, the tracer and the trace readers, and string-width's Unicode tables load where they are
 * first used; a command that lists or edits the config does not load the host's supervisor either.
 *
 * Two readings: the static graph of the command's source (src/cli/commands/<c>.ts; `import type`
 * is erased, a lazy `import()` is not followed), and what the built entry in dist/ loads — the
 * chunks scripts/postbuild.mjs made, read through their source maps, since a chunk holds whatever
 * modules the bundler grouped with the one a command needs (test/house/build-bundle.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error the mock is plain JavaScript
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { staticGraph } from '../../scripts/static-graph.mjs';
import { quickHelp } from '../../src/cli/usages.js';
import { runCli } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const built = fs.existsSync(path.join(dist, 'cli', 'commands', 'mcp-list.js'));

/** Modules only some paths use: an OAuth flow, a tool search, a trace written or read. */
const LAZY = [
  'auth/provider.ts',
  'auth/revoke.ts',
  'auth/flow.ts',
  'host/search/tool-index.ts',
  'host/search/vocabulary.ts',
  'trace/tracer.ts',
  'trace/read.ts',
  'trace/show.ts',
  'trace/stats.ts',
  'trace/html.ts',
];
/**
 * Of those, what the sources keep out too. The CLI takes the redactor from its door
 * `mcpwire/trace` (src/trace-api.ts), which also holds the readers: their modules are reached in
 * the source and left out of the commands' chunks by the bundle (its modules have no side effects
 * at load, so a door whose bindings go unused is not imported).
 */
const LAZY_IN_SOURCE = LAZY.filter((m) => !['trace/read.ts', 'trace/show.ts', 'trace/stats.ts', 'trace/html.ts'].includes(m));
/** Packages only those paths use (string-width: a text that is not printable ASCII). */
const LAZY_PACKAGES = ['oauth4webapi', 'string-width'];
/** What a command that reads or edits the config alone has no use for: the supervisor and its OAuth side. */
const HOST = ['host/host.ts', 'host/calls.ts', 'host/server-slot.ts', 'host/oauth.ts'];

/** What a command that connects nothing has no use for: the client (the root's chunk but its base: errors, versions, secrets). */
const CLIENT = ['mcp/client.ts', 'mcp/client-core.ts', 'mcp/session.ts', 'transport/stdio.ts'];

/** The commands of the suite's and users' most frequent runs; `config` ones never connect. */
const CONFIG_COMMANDS = ['mcp-list', 'mcp-add', 'mcp-remove', 'mcp-enable', 'mcp-disable', 'trust', 'untrust'];
const HOST_COMMANDS = ['status', 'call', 'tools', 'read', 'prompt', 'prompts', 'resources', 'ping', 'request', 'login', 'logout', 'auth', 'daemon', 'serve', 'tap'];

function rel(file: string, base: string): string {
  return path.relative(base, file).split(path.sep).join('/');
}

/** The source modules and packages `src/cli/commands/<command>.ts` reaches statically. */
function sourceReach(command: string): { modules: string[]; packages: string[] } {
  const g = staticGraph(path.join(src, 'cli', 'commands', `${command}.ts`), { sources: true });
  return { modules: g.files.map((f) => rel(f, src)), packages: g.packages };
}

/** The source modules in the dist/ files `file` reaches statically (what Node compiles before it runs), and the packages it imports. */
function builtReachOf(file: string): { modules: string[]; packages: string[] } {
  const g = staticGraph(file);
  const modules = new Set<string>();
  for (const file of g.files) {
    const map = `${file}.map`;
    if (!fs.existsSync(map)) continue;
    for (const s of (JSON.parse(fs.readFileSync(map, 'utf8')) as { sources: string[] }).sources) modules.add(rel(path.resolve(path.dirname(map), s), src));
  }
  return { modules: [...modules], packages: g.packages };
}

const builtReach = (command: string) => builtReachOf(path.join(dist, 'cli', 'commands', `${command}.js`));

/** The dist/ chunk that holds source module `module` (read through the chunks' source maps). */
function chunkOf(module: string): string | undefined {
  const chunks = path.join(dist, 'chunks');
  return fs
    .readdirSync(chunks)
    .filter((f) => f.endsWith('.js.map'))
    .map((f) => path.join(chunks, f))
    .find((map) => (JSON.parse(fs.readFileSync(map, 'utf8')) as { sources: string[] }).sources.some((s) => rel(path.resolve(path.dirname(map), s), src) === module))
    ?.slice(0, -'.map'.length);
}

function unwanted(reach: { modules: string[]; packages: string[] }, modules: string[]): string[] {
  return [...reach.modules.filter((m) => modules.includes(m)), ...reach.packages.filter((p) => LAZY_PACKAGES.includes(p))];
}

describe('a CLI command loads what its own path uses (the OAuth flows, the search index, tracing and string-width where first used)', () => {
  it.each([...CONFIG_COMMANDS, ...HOST_COMMANDS])('%s: its source reaches none of them statically', (command) => {
    expect(unwanted(sourceReach(command), LAZY_IN_SOURCE)).toEqual([]);
  });

  it('mcpwire/host reaches no OAuth flow, no oauth4webapi and no search index statically (revokeGrant and the index load on first use)', () => {
    const g = staticGraph(path.join(src, 'host-api.ts'), { sources: true });
    expect(g.packages).not.toContain('oauth4webapi');
    expect(g.files.map((f) => rel(f, src)).filter((m) => LAZY_IN_SOURCE.includes(m))).toEqual([]);
  });
});

describe.skipIf(!built)('the built commands (dist/): what Node compiles before a command runs', () => {
  it.each(CONFIG_COMMANDS)('%s: no client, no host supervisor, no OAuth flow, no search index, no tracing, no string-width', (command) => {
    const reach = builtReach(command);
    expect(reach.modules).toContain('host/config/load.ts');
    expect(unwanted(reach, [...LAZY, ...HOST, ...CLIENT])).toEqual([]);
  });

  it('call: no host supervisor (it takes a few helpers from mcpwire/host; the bundle follows each name to its module, not the door)', () => {
    const reach = builtReach('call');
    expect(reach.modules).toContain('host/permissions.ts');
    expect(reach.modules.filter((m) => ['host/host.ts', 'host/calls.ts', 'host/server-slot.ts'].includes(m))).toEqual([]);
  });

  it.each(HOST_COMMANDS)('%s: no OAuth flow, no search index, no tracing, no string-width', (command) => {
    expect(unwanted(builtReach(command), LAZY)).toEqual([]);
  });
});

describe.skipIf(!built)('node:readline loads where a question is asked (an elicitation, a registry choice on a terminal), not in every command', () => {
  it.each([...CONFIG_COMMANDS, ...HOST_COMMANDS.filter((c) => c !== 'login'), 'mcp-update', 'registry'])('%s: no node:readline before it runs', (command) => {
    expect(staticGraph(path.join(dist, 'cli', 'commands', `${command}.js`)).builtins.filter((b) => b.startsWith('node:readline'))).toEqual([]);
  });
});

describe.skipIf(!built)('`mcpwire <command> --help` and the argv checks (the suite asks for help ~70 times a run)', () => {
  it('the usage text and "did you mean" load none of the configuration and none of the root (its base: errors, versions, secrets): only the CLI\'s own helpers', () => {
    for (const module of ['cli/usages.ts', 'cli/suggest.ts']) {
      const chunk = chunkOf(module);
      expect(chunk, `a chunk holds src/${module}`).toBeDefined();
      const reach = builtReachOf(chunk!);
      expect(reach.modules).toContain('util/close-names.ts');
      expect(reach.modules.filter((m) => !m.startsWith('cli/') && m !== 'util/close-names.ts'), module).toEqual([]);
      expect(reach.packages).toEqual([]);
    }
  });
});

describe('`mcpwire <command> --help` is answered from the usage text, without loading the command', () => {
  /** Where run.ts does not take the usage text: `mcp` answers for its subcommands, `demo` and `conformance-client` get run.ts's summary line. */
  const OWN = ['mcp', 'demo', 'conformance-client'];
  const commands = [...fs.readFileSync(path.join(src, 'cli', 'run.ts'), 'utf8').matchAll(/^ {2}'?([a-z-]+)'?: \{ file: '\.\/commands\//gm)].map((m) => m[1]);

  it('run.ts lists the commands (read from its table)', () => {
    expect(commands).toEqual(expect.arrayContaining(['status', 'tools', 'call', 'watch', 'trace', 'tap', 'replay', 'serve']));
  });

  it.each(commands.filter((c) => !OWN.includes(c)))('%s: its usage is in src/cli/usages.ts (a command of its own costs up to ~60 more files for a --help)', (command) => {
    expect(quickHelp(command, ['-h'])).toMatch(/^usage:/);
    expect(quickHelp(command, ['s', 's', '--help'])).toMatch(/^usage:/);
  });
});

describe.skipIf(!built)("a library's connect() to a stdio server (the runtime it loads on first use)", () => {
  it('loads none of the configuration (src/host/config/: its chunk is 120 KB, ~12 ms of CPU for a connect that reads no config)', () => {
    const runtime = chunkOf('transport/spawn/sandbox-launch.ts');
    expect(runtime, 'a chunk holds src/transport/spawn/sandbox-launch.ts').toBeDefined();
    const reach = builtReachOf(runtime!);
    expect(reach.modules).toContain('transport/spawn/env-lookup.ts');
    expect(reach.modules.filter((m) => m.startsWith('host/config/'))).toEqual([]);
  });
});

describe.skipIf(!built)('`check` of a stdio server (the suite runs it often)', () => {
  it('loads no undici before it runs: the raw HTTP probes import it on their first request', () => {
    expect(builtReach('check').packages).not.toContain('undici');
    expect(sourceReach('check').packages).not.toContain('undici');
  });
});

describe.skipIf(!built)('a command over HTTP (what a process loads, read at its exit)', () => {
  const dirs = tempDirs('mcpwire-weight-');
  const preload = pathToFileURL(path.join(root, 'test/support/loaded-report.mjs')).href;
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    server = (await startHttpMock({ mode: 'json' })) as typeof server;
  });
  afterAll(() => server.close());

  /** The npm files (under node_modules/) `mcpwire <args>` loaded, relative to node_modules/. */
  async function loaded(args: string[]): Promise<string[]> {
    const dir = dirs();
    const report = path.join(dir, 'loaded.json');
    const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), MCPWIRE_CONFIG_PATH: path.join(dir, 'config.json'), NODE_OPTIONS: `--import=${preload}`, MCPWIRE_LOADED_REPORT: report };
    const r = await runCli(args, { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(fs.readFileSync(report, 'utf8')) as string[]).filter((f) => f.includes(`${path.sep}node_modules${path.sep}`)).map((f) => f.slice(f.lastIndexOf(`node_modules${path.sep}`) + 'node_modules/'.length).split(path.sep).join('/'));
  }

  it("`call` loads undici's Pool and the HTTP clients beneath it, not undici's index (fetch, WebSocket, caches, mocks: ~0.15 s of CPU a run)", async () => {
    const files = await loaded(['--url', server.url, 'call', 'echo', 'text=hi']);
    expect(files).toContain('undici/lib/dispatcher/pool.js');
    expect(files.filter((f) => f === 'undici/index.js' || f.startsWith('undici/lib/web/') || f.startsWith('undici/lib/mock/') || f.startsWith('undici/lib/cache/'))).toEqual([]);
  });
});
