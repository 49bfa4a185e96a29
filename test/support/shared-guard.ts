/**
 * Setup file of vitest.config.ts's `shared` project, whose files run one after another in the same
 * worker: a file that leaves fake timers on, `process.env`, process listeners, the exit code, the
 * working directory, the umask or globals changed fails here, after its own afterAll hooks, naming
 * what it left (process-state.ts). A file may change these while it runs if it restores them.
 */
import { afterAll } from 'vitest';
import { changed, processState, type ProcessState } from './process-state.js';

// Read when this file loads, before the test file is imported: what its top level changes counts too.
const before: ProcessState = processState();
afterAll(() => {
  const left = changed(before, processState());
  if (left.length) throw new Error(`this file left process-wide state changed for the next file in its worker (restore it in afterEach/afterAll, or list the file in vitest.config.ts ISOLATED):\n  ${left.join('\n  ')}`);
});
