/**
 * Fenced code blocks of the project's Markdown (README.md, docs/*.md), for
 * test/house/docs-blocks.test.ts.
 *
 * The fence's info string is the language alone; what the docs test needs to know of a block is
 * said on the line right before its fence, in an HTML comment a reader never sees rendered:
 * `<!-- docs-test: no-run: <reason> -->` marks a block that genuinely cannot run in a test (the
 * reason is required); `<!-- docs-test: ran-by: test/<file>.test.ts (<why>) -->` one another test
 * runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface DocBlock {
  /** Path relative to the project root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The fence's info string and the `docs-test:` annotation of the line before it, as one. */
  info: string;
  /** The fence's own info string (the language). */
  fenceInfo: string;
  /** The `<!-- docs-test: … -->` annotation before the fence ('' when none). */
  annotation: string;
  /** Set for `no-run: <reason>` blocks (empty string when the reason is missing). */
  noRun: string | undefined;
  code: string;
  /** `README.md:30` */
  where: string;
}

/** Languages whose blocks are executed with node (TypeScript is transpiled first). */
export const SCRIPT_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);
/** Languages whose blocks are run with bash. */
export const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);
/** Languages of blocks that are data or output shown to the reader, not code. */
export const DATA_LANGS = new Set(['', 'json', 'jsonc', 'text']);

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const ANNOTATION = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;

export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, rest] = open;
    const fenceInfo = rest.trim();
    const annotation = i > 0 ? (ANNOTATION.exec(lines[i - 1])?.[1] ?? '') : '';
    const info = [fenceInfo, annotation].filter(Boolean).join(' ');
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]);
      if (close && close[2][0] === fence[0] && close[2].length >= fence.length && close[3].trim() === '') break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    const lang = fenceInfo.split(/\s+/)[0] ?? '';
    const noRun = /(?:^|\s)no-run(?::\s*(.*))?$/.exec(annotation);
    blocks.push({ file, line: i + 1, lang, info, fenceInfo, annotation, noRun: noRun ? (noRun[1] ?? '').trim() : undefined, code: body.join('\n') + '\n', where: `${file}:${i + 1}` });
    i = j;
  }
  return blocks;
}

/** README.md and every docs/*.md of the project. */
export function projectMarkdownFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(root, 'docs', f));
  return [join(root, 'README.md'), ...docs];
}

export function projectBlocks(root: string): DocBlock[] {
  return projectMarkdownFiles(root).flatMap((f) => extractBlocks(readFileSync(f, 'utf8'), relative(root, f)));
}
