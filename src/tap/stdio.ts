/**
 * `mcpwire tap --trace t.jsonl -- <server command…>`: stands in for a stdio server in any host's
 * config. The host's stdin goes to the server's stdin and the server's stdout to the host's
 * stdout byte for byte (streams are piped; the trace reads a copy of each chunk after it has been
 * passed on), the server's stderr is the tap's stderr (inherited), signals the tap receives go to
 * the server, and the tap exits as the server did (same code, or the same signal).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { localSpawnPlan } from '../transport/spawn/system.js';
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { McpWireError } from '../errors.js';
import { redactArgs, redactCommandLine } from '../trace/command-line.js';
import { createTracer, type Tracer, type TraceWarning } from '../trace/tracer.js';
import { LineSplitter, Recorder } from './recorder.js';

export interface StdioTapOptions {
  /** The server command and its arguments. */
  command: string;
  args: string[];
  /** Trace file (appended; created 0600). */
  trace: string;
  /** The `server` field of the trace lines. Default: the command's base name. */
  name?: string;
  strict?: boolean;
  onWarning?: (w: TraceWarning) => void;
  /** Defaults to the process's own streams. */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

export interface TapExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Env names whose values are credentials: their values are redacted wherever they appear. */
const SECRET_ENV = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|AUTH/i;

export function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([k, v]) => SECRET_ENV.test(k) && typeof v === 'string' && v !== '')
    .map(([, v]) => v as string);
}

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const LAUNCHERS = new Set(['node', 'npx', 'uvx', 'uv', 'python', 'python3', 'deno', 'bun', 'bunx', 'pnpm', 'yarn', 'docker', 'pipx']);
const LAUNCHER_WORDS = new Set(['run', 'dlx', 'exec', 'x', 'tool']);

/**
 * The trace's server name when --name is not given: the command's base name, or for a launcher
 * (`npx -y @scope/server-x`, `node dist/server.js`, `uvx mcp-server-y`) the package or script it runs.
 */
export function defaultServerName(command: string, args: string[]): string {
  const base = basename(command).replace(/\.(exe|cmd|bat)$/i, '');
  if (!LAUNCHERS.has(base)) return base;
  const target = args.find((a) => !a.startsWith('-') && !LAUNCHER_WORDS.has(a));
  if (!target) return base;
  const name = target
    .replace(/@[^@/]*$/, '') // a version: pkg@1.2.3
    .split('/')
    .filter(Boolean)
    .pop()!
    .replace(/\.(m?js|cjs|ts|py)$/, '');
  return name || base;
}

/** Runs the relay until the server exits; resolves with how it exited. */
export async function runStdioTap(options: StdioTapOptions): Promise<TapExit> {
  const env = options.env ?? process.env;
  const tracer = await createTracer({
    file: options.trace,
    serverId: options.name ?? defaultServerName(options.command, options.args),
    transport: 'stdio',
    // Credentials given as arguments are redacted wherever the server echoes them, too.
    secrets: [...secretEnvValues(env), ...redactArgs(options.args).secrets],
    strict: options.strict,
    onWarning: options.onWarning,
  });
  const recorder = new Recorder(tracer);
  // Each relayed connection gets its own session tag, so several taps (or several runs) writing
  // one file stay apart: requests pair with their answers within one connection only.
  recorder.setSession(`tap-${randomUUID()}`);
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;

  // Resolved as the stdio transport does: on Windows `npx` is npx.cmd, run through cmd.exe with
  // each argument escaped for it (never a shell on the raw command line).
  const plan = localSpawnPlan(options.command, options.args, env);
  const child = spawn(plan.file, plan.args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env,
    windowsHide: true,
    windowsVerbatimArguments: plan.windowsVerbatimArguments,
  });
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (err) => resolve(err));
  });
  if (spawned) {
    tracer.event({ type: 'diagnostic', code: 'MCPWIRE_SPAWN', message: `cannot start ${options.command}: ${spawned.message}` });
    await tracer.close();
    throw new McpWireError('MCPWIRE_SPAWN', `cannot start ${options.command}: ${spawned.message}`, { phase: 'connect' });
  }
  tracer.event({ type: 'transport', event: { type: 'spawn', pid: child.pid, command: redactCommandLine(options.command, options.args) } });

  const stopRelay = relay(stdin, stdout, child, recorder);
  const stopForwarding = forwardSignals(child, tracer);
  const exit = await new Promise<TapExit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  stopForwarding();
  stopRelay();
  tracer.event({ type: 'transport', event: { type: 'exit', code: exit.code, signal: exit.signal } });
  await tracer.close();
  return exit;
}

/** Pipes host → server and server → host, the recorder reading copies; returns what ends it. */
function relay(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, child: ChildProcess, recorder: Recorder): () => void {
  // host → server
  const up = new LineSplitter((line) => recorder.text('out', line));
  stdin.pipe(child.stdin!);
  stdin.on('data', (chunk: Buffer) => up.push(chunk));
  child.stdin!.on('error', () => {
    // the server closed its stdin (or died): what the host still sends has nowhere to go
  });
  // server → host
  const down = new LineSplitter((line) => recorder.text('in', line));
  child.stdout!.pipe(stdout, { end: false });
  child.stdout!.on('data', (chunk: Buffer) => down.push(chunk));
  stdout.on('error', () => {
    // the host went away: so does the server
    child.kill('SIGTERM');
  });
  return () => {
    stdin.unpipe(child.stdin!);
    up.end();
    down.end();
  };
}

/** Signals the tap receives go to the server (and into the trace); returns what stops it. */
function forwardSignals(child: ChildProcess, tracer: Tracer): () => void {
  const forward = (signal: NodeJS.Signals) => {
    tracer.event({ type: 'transport', event: { type: 'signal', signal, forwarded: true } });
    child.kill(signal);
  };
  const handlers = FORWARDED.map((s) => [s, () => forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return () => {
    for (const [s, h] of handlers) process.off(s, h);
  };
}
