// Most test files share a worker with the files run after them (vitest.config.ts: no isolation,
// so the fork and the packages load once per worker). A file that changes process-wide state —
// fake timers, process.env, process-level listeners, the exit code, globals, the working
// directory — must run isolated: this keeps vitest.config.ts's ISOLATED list in step with the files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ISOLATED } from '../../vitest.config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SELF = 'test/house/test-isolation.test.ts';

/** What changes state the next file in the same worker would see. */
const PROCESS_WIDE = new RegExp(
  [
    String.raw`vi\.(?:mock|doMock|stubGlobal|stubEnv)\(`,
    String.raw`process\.chdir`,
    String.raw`process\.env\.[A-Z_]+ *=[^=]`,
    String.raw`process\.env\[[^\]]+\] *=[^=]`,
    String.raw`delete process\.env`,
    String.raw`process\.env *=[^=]`,
    String.raw`useFakeTimers`,
    String.raw`globalThis\.[a-zA-Z_]+ *=[^=]`,
    String.raw`process\.exitCode *=`,
    String.raw`process\.on\(`,
    String.raw`setMaxListeners`,
    String.raw`process\.umask`,
  ].join('|'),
);

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || rel === 'spec-conformance/runner' ? [] : testFiles(rel);
    return e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

describe('test isolation', () => {
  const files = [...testFiles('test'), ...testFiles('spec-conformance')].filter((f) => f !== SELF);

  it('every file that changes process-wide state is in vitest.config.ts ISOLATED', () => {
    const missing = files.filter((f) => PROCESS_WIDE.test(fs.readFileSync(path.join(root, f), 'utf8')) && !ISOLATED.includes(f));
    expect(missing).toEqual([]);
  });

  it('ISOLATED names existing test files only', () => {
    expect(ISOLATED.filter((f) => !files.includes(f))).toEqual([]);
  });
});
