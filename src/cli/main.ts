#!/usr/bin/env node
/**
 * `mcpwire` entry point (the package's bin): the process around one run (`./run.ts`). The exit
 * code is set, not forced: the process ends when the command has closed what it opened.
 */
// Piping into `head` closes stdout early: stop quietly, as other command-line tools do.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

// loaded by its path: run.ts finds the commands beside it (`./commands/<command>.js`)
const { run } = await import('./run.js');
run(process.argv.slice(2), { ownProcess: true }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`mcpwire: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
