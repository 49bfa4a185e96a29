/**
 * A CLI run in a process that outlives it (the suite's in-process runner, test/support/
 * cli-in-process.ts): each run starts from the state a fresh process has, answers as the bin
 * does, and what a run leaves behind in the process is caught.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { perRun } from '../../src/cli/run-state.js';
import { runCliHere } from '../support/cli-in-process.js';
import { runCli } from '../support/cli-process.js';
import { cleanup, mockJs, node, sandbox, trust } from '../support/cli-user.js';

afterAll(cleanup);

describe('run(): one command in this process', () => {
  it('forgets at its start what an earlier run kept (perRun)', async () => {
    let resets = 0;
    perRun(() => resets++);
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      expect(await run(['--version'])).toBe(0);
      expect(resets).toBe(1);
      expect(await run(['--version'])).toBe(0);
      expect(resets).toBe(2);
    } finally {
      process.stdout.write = write;
    }
  });
});

describe('the in-process runner answers as the process does', () => {
  const sb = sandbox({ m: { transport: 'stdio', command: node, args: [mockJs] } });
  const env = { ...process.env, ...sb.env };
  const cases: string[][] = [
    ['--help'],
    ['--version'],
    ['nosuchcommand', '--json'],
    ['mcp', 'list', '--json'],
    ['tools', 'm', '--json'],
    ['call', 'm', 'echo', 'text=same'],
    ['call', 'm', 'no_such_tool'],
  ];
  it.each(cases.map((args) => [args.join(' '), args] as const))('mcpwire %s', async (_name, args) => {
    await trust(sb);
    const [here, there] = [await runCliHere(args, { cwd: sb.proj, env }), await runCli(args, { cwd: sb.proj, env })];
    // durations differ run to run ("(12 ms)"): compared without them
    const plain = (s: string) => s.replace(/\d+ ms\b/g, 'N ms');
    expect({ code: here.code, stdout: plain(here.stdout), stderr: plain(here.stderr) }).toEqual({ code: there.code, stdout: plain(there.stdout), stderr: plain(there.stderr) });
  });

  it('leaves the environment, working directory and exit code as it found them', async () => {
    const before = { cwd: process.cwd(), home: process.env.HOME, exitCode: process.exitCode };
    const r = await runCliHere(['call', 'm', 'no_such_tool'], { cwd: sb.proj, env });
    expect(r.code).toBe(1);
    expect({ cwd: process.cwd(), home: process.env.HOME, exitCode: process.exitCode }).toEqual(before);
  });

  it('two runs at once both answer (the second, while the first is running, is a process)', async () => {
    const [a, b] = await Promise.all([runCliHere(['tools', 'm', '--names'], { cwd: sb.proj, env }), runCliHere(['tools', 'm', '--names'], { cwd: sb.proj, env })]);
    expect(a).toEqual(b);
    expect(a.code).toBe(0);
  });
});
