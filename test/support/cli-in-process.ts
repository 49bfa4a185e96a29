/**
 * `mcpwire <args>` run in the test's own process: the built CLI's `run()` (dist/cli/run.js, the
 * code the bin runs; `npm run build` first) with the run's argv, environment, working directory,
 * stdin and captured stdout/stderr swapped in for its duration, so that a test about a command's
 * output and exit code costs that command's work and not a Node start and the CLI's module
 * loading (~0.1-0.3 s of CPU per run; the suite runs several hundred such commands).
 *
 * Same contract as `runCli` (cli-process.ts), and it falls back to it — a real process — where a
 * process is what is tested or needed: a command that runs until stopped or ends its process
 * (serve, tap, replay, watch, log-level, app, daemon, login, demo, `registry launch`,
 * `trace show --follow`) and a run while another in-process run is still going (two commands at
 * once stay two processes). `timeoutMs` bounds a process only: an in-process run is bounded by
 * its test's timeout.
 *
 * `MCPWIRE_SUITE_CLI_PROCESS=1 npx vitest run <files>` runs every command as a process instead.
 *
 * What a process boundary would have discarded is checked instead: a run that leaves process-wide
 * state changed (listeners but 'exit' and signals, globals, the umask, fake timers) fails, naming
 * it; the environment, working directory, argv and exit code are restored by the runner.
 */
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { changed, processState } from './process-state.js';
import { cli, MAX_BUFFER, root, runCli, type CliOptions, type CliRun } from './cli-process.js';

type Run = (argv: string[], options?: { ownProcess?: boolean }) => Promise<number>;
let loaded: Promise<Run> | undefined;
const runModule = path.join(root, 'dist', 'cli', 'run.js');

/** Commands that run until stopped, end their process themselves, or ask a person: always a process. */
const PROCESS_ONLY = new Set(['serve', 'tap', 'replay', 'watch', 'log-level', 'app', 'daemon', 'login', 'demo', 'conformance-client']);

/** Whether `args` need a process: a command word of PROCESS_ONLY (any argument that is not an option, roughly), a follow, `registry launch`. */
function needsProcess(args: string[]): boolean {
  const words = args.filter((a) => !a.startsWith('-'));
  if (words.some((w) => PROCESS_ONLY.has(w))) return true;
  if (args.includes('--follow') || args.includes('-f')) return true;
  return words[0] === 'registry' && words[1] === 'launch';
}

let running = false;

/** MCPWIRE_SUITE_CLI_PROCESS=1: every run a process, as before this runner (to compare the two). */
const EVERY_RUN_A_PROCESS = process.env.MCPWIRE_SUITE_CLI_PROCESS === '1';

/**
 * A stream standing in for stdout or stderr: not a TTY (as a pipe to a test is not), collecting
 * text up to `max` bytes (what runCli's maxBuffer allows a process); what goes past is dropped and
 * the run fails.
 */
function capture(max: number): { stream: Writable; text: () => string; over: () => boolean } {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      if (size + b.length > max) {
        over = true;
      } else {
        chunks.push(b);
        size += b.length;
      }
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8'), over: () => over };
}

/** Replaces the keys of the live `process.env` (so os.homedir() and children see it) with `env`'s. */
function setEnv(env: NodeJS.ProcessEnv): void {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
}

const STREAMS = ['stdin', 'stdout', 'stderr'] as const;

/** Runs `mcpwire <args>` (in this process where it can) and resolves with its exit code and output (never rejects on the command's failure). */
export async function runCliHere(args: string[], options: CliOptions = {}): Promise<CliRun> {
  if (running || needsProcess(args) || EVERY_RUN_A_PROCESS) return runCli(args, options);
  running = true;
  try {
    const run = await (loaded ??= import(runModule).then((m: { run: Run }) => m.run));
    const env = { ...(options.env ?? process.env) };
    const before = processState();
    const saved = { env: { ...process.env }, cwd: process.cwd(), argv: process.argv, exitCode: process.exitCode, exit: process.exit };
    const descriptors = STREAMS.map((s) => [s, Object.getOwnPropertyDescriptor(process, s)] as const);
    const max = options.maxBuffer ?? MAX_BUFFER;
    const out = capture(max);
    const err = capture(max);
    const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)], { objectMode: false });
    const fakes = { stdin, stdout: out.stream, stderr: err.stream };
    let code: number;
    try {
      setEnv(env);
      process.chdir(options.cwd ?? root);
      process.argv = [process.execPath, cli, ...args];
      for (const s of STREAMS) Object.defineProperty(process, s, { configurable: true, enumerable: true, get: () => fakes[s] });
      // a command that ends its process is in PROCESS_ONLY; any other call would end the test worker
      process.exit = ((c?: number) => {
        throw new Error(`mcpwire ${args.join(' ')} called process.exit(${String(c)}) in process: run it with runCli`);
      }) as typeof process.exit;
      try {
        code = await run(args);
      } catch (e) {
        process.stderr.write(`mcpwire: ${e instanceof Error ? e.message : String(e)}\n`);
        code = 1;
      }
    } finally {
      for (const [s, d] of descriptors) if (d) Object.defineProperty(process, s, d);
      process.exit = saved.exit;
      process.argv = saved.argv;
      process.exitCode = saved.exitCode;
      process.chdir(saved.cwd);
      setEnv(saved.env);
    }
    if (out.over() || err.over()) throw new Error(`mcpwire ${args.join(' ')} wrote more than ${max} bytes on stdout or stderr`);
    const left = changed(before, processState());
    if (left.length) throw new Error(`mcpwire ${args.join(' ')} left process-wide state changed (a process would have ended with it):\n  ${left.join('\n  ')}`);
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    running = false;
  }
}
