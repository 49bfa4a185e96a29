/**
 * Every fenced code block of README.md and docs/*.md runs: a reader who
 * copies an example gets what it says.
 *
 * - ```ts / ```js blocks are transpiled (TypeScript's transpileModule) and executed with node in
 *   a sandbox project where `mcpwire` and `mcpwire/host` resolve to this package; they are also
 *   type-checked as strict user code.
 * - ```sh blocks run with bash (`set -e`), with the `mcpwire` command, `npx <devDependency>`,
 *   `node server.js` and the example URLs mapped to this repository (test/support/docs-sandbox.ts).
 * - json/jsonc/untagged blocks are data or output shown to the reader: json must parse unless
 *   it elides with "…".
 * - `<!-- docs-test: no-run: <reason> -->` on the line before a fence marks a block that genuinely
 *   cannot run here; they stay few.
 * - `<!-- docs-test: ran-by: test/<file>.test.ts (<why>) -->` before a fence marks a block another
 *   test runs in the setting it needs (README's global install runs in test/house/package.test.ts
 *   against the packed tarball).
 * - Annotations live in those HTML comments, which a reader never sees rendered: a fence's info
 *   string is its language alone.
 *
 * Needs dist/ (npm test builds it first).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATA_LANGS, projectBlocks, SCRIPT_LANGS, SHELL_LANGS, type DocBlock } from '../support/docs-blocks.js';
import { createSandbox, ROOT, run, substitute, transpile, typeCheck, type RunResult, type Sandbox } from '../support/docs-sandbox.js';

/** At most this many blocks may be `no-run` (today: the Quick start's `npm ci` lines). */
const MAX_NO_RUN = 2;
const BLOCK_TIMEOUT_MS = 90_000;
/**
 * Blocks run two at a time: each has its own directory and HOME and the servers they share answer
 * any number of clients, and most of a block's time is waiting on its processes, so this file —
 * the suite's longest — ends sooner without costing CPU.
 */
const BLOCKS_AT_ONCE = 2;

const blocks = projectBlocks(ROOT);
const RAN_BY = /(?:^|\s)ran-by:\s*(\S+)/;
const ranElsewhere = blocks.filter((b) => RAN_BY.test(b.info));
const runnable = blocks.filter((b) => b.noRun === undefined && !RAN_BY.test(b.info) && (SCRIPT_LANGS.has(b.lang) || SHELL_LANGS.has(b.lang)));

function report(b: DocBlock, r: RunResult): string {
  const tail = (s: string) => s.split('\n').slice(-40).join('\n');
  return `${b.where} (${b.lang}) exited ${r.signal ?? r.code}\n--- stdout\n${tail(r.stdout)}\n--- stderr\n${tail(r.stderr)}`;
}

describe('documentation code blocks (README.md, docs/*.md)', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('finds the blocks; each has a known language; no-run blocks are few and each says why', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(runnable.filter((b) => SCRIPT_LANGS.has(b.lang)).length).toBeGreaterThanOrEqual(2);
    expect(runnable.filter((b) => SHELL_LANGS.has(b.lang)).length).toBeGreaterThanOrEqual(4);
    const unknown = blocks.filter((b) => !SCRIPT_LANGS.has(b.lang) && !SHELL_LANGS.has(b.lang) && !DATA_LANGS.has(b.lang));
    expect(unknown.map((b) => `${b.where} \`\`\`${b.info}`)).toEqual([]);
    const noRun = blocks.filter((b) => b.noRun !== undefined);
    expect(noRun.filter((b) => b.noRun!.length < 15).map((b) => `${b.where}: no-run needs a reason ("no-run: why")`)).toEqual([]);
    expect(noRun.filter((b) => DATA_LANGS.has(b.lang)).map((b) => `${b.where}: no-run on a data block`)).toEqual([]);
    expect(noRun.length, noRun.map((b) => `${b.where}: ${b.noRun}`).join('\n')).toBeLessThanOrEqual(MAX_NO_RUN);
  });

  it("README's first screen: a sentence saying what mcpwire is before Quick start, and how long npm test takes", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const head = readme.slice(0, readme.indexOf('## Quick start'));
    expect(head).toMatch(/\nmcpwire is a [^\n]*Model Context Protocol/);
    const quick = blocks.find((b) => b.file === 'README.md' && b.code.includes('npm test'))!;
    expect(quick.code).toMatch(/npm test .*#.*about ten minutes on 2 cores/);
  });

  it('annotations are HTML comments before the fence, never words in the fence a reader sees', () => {
    expect(blocks.filter((b) => /(?:^|\s)(?:no-run|ran-by)\b/.test(b.fenceInfo)).map((b) => `${b.where}: \`\`\`${b.fenceInfo}`)).toEqual([]);
    const annotated = blocks.filter((b) => b.annotation !== '');
    expect(annotated.length).toBeGreaterThanOrEqual(2);
    expect(annotated.filter((b) => !/^(?:no-run|ran-by):/.test(b.annotation)).map((b) => `${b.where}: ${b.annotation}`)).toEqual([]);
  });

  it('a block run by another test names a test file that exists and reads that block', () => {
    const bad = ranElsewhere.filter((b) => {
      const test = RAN_BY.exec(b.info)![1];
      const file = join(ROOT, test);
      return !/^test\/(?:[\w-]+\/)*[\w.-]+\.test\.ts$/.test(test) || !existsSync(file) || !readFileSync(file, 'utf8').includes(`ran-by: ${test}`);
    });
    expect(bad.map((b) => `${b.where}: ${b.info}`)).toEqual([]);
  });

  it('json blocks parse (unless they elide with "…")', () => {
    const bad = blocks
      .filter((b) => b.lang === 'json' && !b.code.includes('…'))
      .filter((b) => {
        try {
          JSON.parse(b.code);
          return false;
        } catch {
          return true;
        }
      });
    expect(bad.map((b) => b.where)).toEqual([]);
  });

  describe('each runnable block', () => {
    // the concurrent tests of this describe, BLOCKS_AT_ONCE at a time (vitest resets the config after the file)
    beforeAll(() => vi.setConfig({ maxConcurrency: BLOCKS_AT_ONCE }));
    // and back for the next file of this worker, not only by vitest's own reset
    afterAll(() => vi.resetConfig());
    for (const b of runnable) {
      it.concurrent(`${b.where} (${b.lang}) runs`, async ({ expect }) => {
        const { cwd, env } = sandbox.blockEnv(b.where);
        const code = substitute(b.code, sandbox.substitutions);
        let r: RunResult;
        if (SHELL_LANGS.has(b.lang)) {
          writeFileSync(join(cwd, 'block.sh'), code);
          r = await run('bash', ['-e', '-o', 'pipefail', '-x', 'block.sh'], { cwd, env, timeoutMs: BLOCK_TIMEOUT_MS });
        } else {
          const js = b.lang === 'ts' || b.lang === 'typescript' ? transpile(code, 'block.mts') : code;
          writeFileSync(join(cwd, 'block.mjs'), js);
          r = await run(process.execPath, ['block.mjs'], { cwd, env, timeoutMs: BLOCK_TIMEOUT_MS });
        }
        expect(r.code, report(b, r)).toBe(0);
      }, BLOCK_TIMEOUT_MS + 10_000);
    }
  });

  it("README's number of checks is what `mcpwire check --list` prints", async () => {
    const { cwd, env } = sandbox.blockEnv('check-list');
    const r = await run(process.execPath, [join(ROOT, 'dist', 'cli', 'main.js'), 'check', '--list'], { cwd, env, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const listed = r.stdout.split('\n').filter((l) => l.trim() !== '').length;
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(/(\d+) checks \(/.exec(readme)?.[1]).toBe(String(listed));
  });

  it('ts blocks type-check as strict user code', () => {
    const dir = join(sandbox.dir, 'typecheck');
    mkdirSync(dir, { recursive: true });
    const files = blocks
      .filter((b) => b.lang === 'ts' || b.lang === 'typescript')
      .map((b, i) => {
        const file = join(dir, `block${i}-${b.file.replace(/\W+/g, '_')}-${b.line}.mts`);
        writeFileSync(file, b.code);
        return file;
      });
    expect(typeCheck(files)).toEqual([]);
  }, 60_000);
});
