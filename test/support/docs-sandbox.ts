/**
 * Where the documentation's code blocks run (test/house/docs-blocks.test.ts): a temporary directory
 * standing in for a reader's project, with every name the examples use mapped to something of
 * this repository, never to the network:
 *
 * - `mcpwire` (the command) → `node dist/cli/main.js`; `import … from 'mcpwire'` /
 *   `'mcpwire/host'` → this package, through `node_modules/mcpwire` → the project root (so its
 *   package.json `exports` decide, as for a user);
 * - `npx [-y] <package> …` → the bin of that package when it is an installed devDependency
 *   (e.g. @modelcontextprotocol/server-everything, server-filesystem); any other package fails;
 * - `node server.js`, `node my-server.js` → the bundled mock stdio server
 *   (mock-servers/stdio-server.mjs, default scenario: echo, add, progress…);
 *   `node my-agent.js` → a small agent on `connect()` that calls `echo` on it;
 * - URLs: `http://127.0.0.1:3000/mcp` → the clean check fixture HTTP server; `https://mcp.example.com/mcp` →
 *   a scenario server with the resources and prompts the docs read (docs-http-server.ts);
 *   `https://registry.example.com` → the scripted MCP registry (mock-servers/registry-server.mjs)
 *   serving the documents of test/support/registry-fixtures.ts;
 * - the global config (`$XDG_CONFIG_HOME/mcpwire/config.json`) names one server, `mock`.
 *
 * Each block gets its own working directory and HOME (config files never leak between blocks
 * or from the machine).
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { startDocsHttpServer } from './docs-http-server.js';
import { startRegistry } from '../../mock-servers/registry-server.mjs';
import { memoryDoc, remoteDoc } from './registry-fixtures.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The remote server the docs' host examples name: resources and prompts they read. */
const DOCS_SCENARIO = {
  extends: 'default',
  serverInfo: { name: 'docs', version: '1.0.0' },
  resources: [{ uri: 'file:///guide.md', name: 'guide', mimeType: 'text/markdown', text: '# Guide\n' }],
  prompts: [
    {
      name: 'summarize',
      description: 'Summarize a topic',
      arguments: [{ name: 'topic', required: true }],
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize {{topic}}.' } }],
    },
  ],
};

const AGENT = `import { connect } from 'mcpwire';
const client = await connect({ transport: 'stdio', id: 'demo', command: process.execPath, args: ['server.js'] },
  { clientInfo: { name: 'my-agent', version: '1.0.0' } });
const result = await client.callTool('echo', { text: 'hi' });
console.log(JSON.stringify(result.content));
await client.close();
`;

/** A word for the shell, single-quoted. */
const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * npx in the sandbox: `npx [-y|--yes] <package>[@<version>] …` runs that package's (first) bin with
 * node when it is an installed devDependency of mcpwire, as npx does once the package is in its
 * cache; any other package fails (127); nothing is ever downloaded. A shell script that `exec`s
 * node, so the server is the only process: a node shim in between cost ~0.1 s of CPU per call
 * (a docs run makes ~25).
 */
function npxShim(): string {
  const devDependencies = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }).devDependencies ?? {};
  const cases: string[] = [];
  for (const name of Object.keys(devDependencies)) {
    const dir = join(ROOT, 'node_modules', name);
    let pkg: { bin?: string | Record<string, string> };
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
    } catch {
      continue; // not installed
    }
    const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0];
    if (bin) cases.push(`  ${shq(name)}) exec ${shq(process.execPath)} ${shq(join(dir, bin))} "$@" ;;`);
  }
  return [
    '#!/bin/sh',
    "# docs test shim for npx: runs an installed devDependency's bin; never downloads anything.",
    'while [ "$1" = -y ] || [ "$1" = --yes ]; do shift; done',
    'spec=${1-}; [ $# -gt 0 ] && shift',
    '# the name without a trailing @version (a scope\'s leading @ stays)',
    'name=$spec',
    'case ${spec#?} in *@*) case ${spec##*@} in */*) ;; *) name=${spec%@*} ;; esac ;; esac',
    'case $name in',
    ...cases,
    '  *) echo "docs test npx shim: $spec is not an installed devDependency of mcpwire (or has no bin)" >&2; exit 127 ;;',
    'esac',
    '',
  ].join('\n');
}

export interface Sandbox {
  dir: string;
  /** Text replacements applied to every block before it runs: [what the docs say, what runs]. */
  substitutions: Array<[string, string]>;
  /** A fresh working directory and HOME for one block; returns its cwd and env. */
  blockEnv(name: string): { cwd: string; env: NodeJS.ProcessEnv };
  close(): Promise<void>;
}

export async function createSandbox(): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpwire-docs-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-sandbox', private: true, type: 'module' }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'mcpwire'), 'dir');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mcpwire'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'dist', 'cli', 'main.js'))} "$@"\n`);
  writeFileSync(join(bin, 'npx'), npxShim());
  chmodSync(join(bin, 'mcpwire'), 0o755);
  chmodSync(join(bin, 'npx'), 0o755);

  const httpFixture = await startCheckFixture();
  const docsServer = await startDocsHttpServer(DOCS_SCENARIO as never);
  const registry = await startRegistry({ documents: [memoryDoc('2026.1.0'), memoryDoc(), remoteDoc()] });
  const substitutions: Array<[string, string]> = [
    ['http://127.0.0.1:3000/mcp', httpFixture.url], // "a server on localhost" → the clean bundled HTTP server
    ['https://mcp.example.com/mcp', docsServer.url], // a remote server → resources/prompts the docs read
    ['https://registry.example.com', registry.url], // an MCP registry → the scripted one (mock-servers/registry-server.mjs)
  ];
  let n = 0;
  return {
    dir,
    substitutions,
    blockEnv(name) {
      const cwd = join(dir, 'blocks', `${++n}-${name.replace(/[^\w.-]+/g, '_')}`);
      const home = join(cwd, '.home');
      mkdirSync(join(home, '.config'), { recursive: true });
      const server = `import ${JSON.stringify(pathToFileURL(join(ROOT, 'mock-servers', 'stdio-server.mjs')).href)};\n`;
      writeFileSync(join(cwd, 'server.js'), server);
      writeFileSync(join(cwd, 'my-server.js'), server);
      writeFileSync(join(cwd, 'my-agent.js'), AGENT);
      copyFileSync(join(ROOT, 'README.md'), join(cwd, 'README.md'));
      // The user's global config (trusted, unlike a project's): one server, the bundled mock.
      mkdirSync(join(home, '.config', 'mcpwire'), { recursive: true });
      const mock = { transport: 'stdio', command: process.execPath, args: [join(cwd, 'server.js')] };
      writeFileSync(join(home, '.config', 'mcpwire', 'config.json'), JSON.stringify({ version: 1, mcp: { servers: { mock } } }));
      const env: NodeJS.ProcessEnv = {
        PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        TMPDIR: process.env.TMPDIR ?? tmpdir(),
        LANG: process.env.LANG ?? 'C.UTF-8',
        CI: 'true',
        NO_COLOR: '1',
      };
      return { cwd, env };
    },
    async close() {
      await Promise.allSettled([httpFixture.close(), docsServer.close(), registry.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The clean Streamable HTTP server of the `mcpwire check` tests (mock-servers/check-fixtures):
 * what `mcpwire check --fail-on-warning` passes on, and it serves tools too.
 */
function startCheckFixture(): Promise<{ url: string; close(): Promise<void> }> {
  const file = join(ROOT, 'mock-servers', 'check-fixtures', 'http-server.mjs');
  const child = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ url: (JSON.parse(line) as { url: string }).url, close });
    });
    child.once('exit', (code) => reject(new Error(`check fixture HTTP server exited (${code})`)));
  });
}

export function substitute(code: string, substitutions: Array<[string, string]>): string {
  let out = code;
  for (const [from, to] of substitutions) out = out.split(from).join(to);
  return out;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      stderr += `\n[docs test] timed out after ${opts.timeoutMs} ms\n`;
      killGroup();
    }, opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(); // nothing a block started outlives it
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** TypeScript → ESM JavaScript (Node 20 has no type stripping). */
export function transpile(code: string, fileName: string): string {
  const out = ts.transpileModule(code, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  const errors = (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (errors.length) throw new Error(`${fileName}: ${errors.join('; ')}`);
  return out.outputText;
}

/** Type-checks .mts files as a user's project would (strict, NodeNext, `mcpwire` from node_modules). */
export function typeCheck(files: string[]): string[] {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}
