/**
 * mcpwire as a user gets it: `npm pack` (of the built dist/; `npm run build` first), then
 * `npm install <tarball>` in a fresh project outside the clone, where `npx mcpwire demo`, `--help`
 * (naming the shipped docs/cli.md by its path) and `import('mcpwire')` must work with nothing of the repository around them. Also what the
 * tarball holds (LICENSE, README.md, dist/, the user's docs/*.md; no tests, no mock-servers) and that its source maps
 * resolve, and README.md's install block (`sh ran-by: test/house/package.test.ts`), run against the
 * tarball with a temporary global prefix.
 *
 * Dependencies come from the npm cache when they are there (`--prefer-offline`), else from the
 * registry. The two installs run side by side (each ~10 s, mostly waiting on npm).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractBlocks } from '../support/docs-blocks.js';
import { root } from '../support/cli-process.js';

const RAN_BY = 'ran-by: test/house/package.test.ts';
const STEP_MS = 120_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { ...opts, timeout: STEP_MS, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr: err && code === 1 && !stderr ? String(err) : stderr });
    });
  });
}

const show = (r: Run) => `exit ${r.code}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`;

/** The environment of a user's shell: no npm_* variables of the npm that runs this test, the real npm cache. */
function userEnv(dir: string, cache: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  const home = join(dir, 'home');
  mkdirSync(join(home, '.config'), { recursive: true });
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    MCPWIRE_CONFIG_PATH: join(home, '.config', 'mcpwire', 'config.json'),
    npm_config_cache: cache,
    npm_config_prefer_offline: 'true',
    // the CA bundle of the user's environment, which the suite's own processes go without (vitest.config.ts)
    ...(process.env.MCPWIRE_SUITE_EXTRA_CA_CERTS !== undefined ? { NODE_EXTRA_CA_CERTS: process.env.MCPWIRE_SUITE_EXTRA_CA_CERTS } : {}),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
    ...extra,
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('the packed package, installed outside the clone', () => {
  let dir: string;
  let tarball: string;
  let files: string[];
  let cache: string;
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpwire-package-'));
    const env = userEnv(join(dir, 'pack'), '');
    delete env.npm_config_cache;
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, env });
    expect(packed.code, show(packed)).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(dir, info.filename);
    files = info.files.map((f) => f.path);
    mkdirSync(join(dir, 'extracted'));
    const tar = await run('tar', ['-xzf', tarball, '-C', join(dir, 'extracted')], { cwd: dir, env: process.env });
    expect(tar.code, show(tar)).toBe(0);
    cache = (await run('npm', ['config', 'get', 'cache'], { cwd: dir, env })).stdout.trim();
  }, STEP_MS);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds LICENSE, README.md, package.json and dist/ — no tests, no mock servers, no sources of the clone', () => {
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/cli/main.js', 'dist/cli/demo-server/main.js']));
    expect(readFileSync(join(dir, 'extracted', 'package', 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/);
    // the user's manuals ship too: the CLI's --help points to docs/cli.md by its installed path
    expect(files).toEqual(expect.arrayContaining(['docs/cli.md', 'docs/daemon.md', 'docs/serve.md', 'docs/host.md']));
    const foreign = files.filter((f) => !/^(dist|schema)\//.test(f) && !/^docs\/[\w-]+\.md$/.test(f) && !['LICENSE', 'README.md', 'package.json'].includes(f));
    expect(foreign).toEqual([]);
    expect(files.filter((f) => /(^|\/)(test|mock-servers|spec-conformance|bench)\/|\.test\.|\.spec\./.test(f))).toEqual([]);
  });

  it('every sourceMappingURL resolves to a shipped map, and every map source is shipped or inlined', () => {
    const pkgDir = join(dir, 'extracted', 'package');
    const broken: string[] = [];
    for (const file of filesUnder(pkgDir).filter((f) => f.endsWith('.js'))) {
      const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'));
      if (!m) continue;
      if (m[1].startsWith('data:')) continue;
      const map = join(dirname(file), m[1]);
      if (!existsSync(map)) {
        broken.push(`${relative(pkgDir, file)} → ${m[1]} (not shipped)`);
        continue;
      }
      const { sources = [], sourcesContent = [], sourceRoot = '' } = JSON.parse(readFileSync(map, 'utf8')) as { sources?: string[]; sourcesContent?: Array<string | null>; sourceRoot?: string };
      sources.forEach((s, i) => {
        if (typeof sourcesContent[i] === 'string') return;
        const resolved = posix.join(posix.dirname(relative(pkgDir, map)), sourceRoot, s);
        if (!existsSync(join(pkgDir, resolved))) broken.push(`${relative(pkgDir, map)}: source ${s} neither shipped nor inlined`);
      });
    }
    expect(broken.slice(0, 10)).toEqual([]);
  });

  it.concurrent('npm install <tarball> in a fresh project: npx mcpwire demo and import("mcpwire") work there', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh-project', private: true, type: 'module' }));
    const env = userEnv(project, cache);
    const install = await run('npm', ['install', '--no-package-lock', tarball], { cwd: project, env });
    expect(install.code, show(install)).toBe(0);

    const demo = await run('npx', ['--no-install', 'mcpwire', 'demo'], { cwd: project, env });
    expect(demo.code, show(demo)).toBe(0);
    expect(demo.stdout).toMatch(/^connected to mcpwire-demo-server .* over stdio, protocol 2025-11-25/m);
    expect(demo.stdout).toMatch(/^progress → done 5 steps/m);

    // --help names the manual by a path the user has: the installed package's docs/cli.md. Run by
    // the installed bin npx ran above (npx's own start is an npm process, ~0.5 s of CPU, and that
    // npx finds the installed bin is proved once, by `npx mcpwire demo`)
    const bin = join(project, 'node_modules', '.bin', 'mcpwire');
    const help = await run(bin, ['--help'], { cwd: project, env });
    expect(help.code, show(help)).toBe(0);
    const manual = /^every command and option: (.+)$/m.exec(help.stdout)?.[1];
    expect(manual, help.stdout).toBe(join(project, 'node_modules', 'mcpwire', 'docs', 'cli.md'));
    expect(readFileSync(manual!, 'utf8')).toMatch(/^## `status \[<id>\]`/m);
    const demoHelp = await run(bin, ['demo', '--help'], { cwd: project, env });
    expect(demoHelp.stdout).toContain(`see ${manual}`);

    const script = `
      const { connect } = await import('mcpwire');
      const { createHost } = await import('mcpwire/host');
      const { parseTrace } = await import('mcpwire/trace');
      const client = await connect({ transport: 'stdio', id: 'demo', command: ${JSON.stringify(bin)}, args: ['demo', '--server'] });
      const r = await client.callTool('echo', { text: 'from the installed package' });
      await client.close();
      console.log(JSON.stringify({ text: r.content[0].text, host: typeof createHost, trace: typeof parseTrace, from: import.meta.resolve('mcpwire') }));`;
    const lib = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env });
    expect(lib.code, show(lib)).toBe(0);
    const out = JSON.parse(lib.stdout.trim().split('\n').at(-1)!) as { text: string; host: string; trace: string; from: string };
    expect(out).toMatchObject({ text: 'from the installed package', host: 'function', trace: 'function' });
    expect(out.from.startsWith(`file://${join(project, 'node_modules', 'mcpwire')}/`)).toBe(true);
  }, 3 * STEP_MS);

  it.concurrent("README.md's install block runs against the tarball (npm install -g to a temporary prefix)", async () => {
    const blocks = extractBlocks(readFileSync(join(root, 'README.md'), 'utf8'), 'README.md').filter((b) => b.info.includes(RAN_BY));
    expect(blocks.map((b) => b.lang)).toEqual(['sh']);
    const cwd = join(dir, 'readme');
    mkdirSync(cwd);
    copyFileSync(tarball, join(cwd, `${pkg.name}-${pkg.version}.tgz`));
    const prefix = join(dir, 'global');
    const env = userEnv(cwd, cache, { npm_config_prefix: prefix, PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` });
    writeFileSync(join(cwd, 'block.sh'), blocks[0].code);
    const r = await run('bash', ['-e', '-o', 'pipefail', 'block.sh'], { cwd, env });
    expect(r.code, show(r)).toBe(0);
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'mcpwire', 'dist', 'cli', 'main.js'))).toBe(true);
    expect(r.stdout).toMatch(/^connected to mcpwire-demo-server .* over stdio/m);
    expect(r.stdout).toMatch(/^hi$/m);
  }, 3 * STEP_MS);
});
