/**
 * stdio transport (basic/transports, stdio): the client launches the server as a subprocess,
 * writes NDJSON messages to its stdin and reads them from its stdout. stderr is kept in a ring
 * buffer for diagnostics and never treated as a protocol error (basic.transports#4).
 *
 * Shutdown follows basic/lifecycle (basic.lifecycle#15): close stdin, wait for exit, SIGTERM,
 * wait, SIGKILL. The server runs in its own process group on POSIX so that a launcher
 * (`npx …`, `sh -c …`) and what it started are signalled together: no orphans, no zombies.
 * On Windows the two signals are `taskkill /T` and `taskkill /T /F` on the server's process tree
 * (spawn/kill.ts), and the command is resolved with PATHEXT, batch files through cmd.exe with
 * escaped arguments (spawn/command.ts).
 * Being its own group, it does not get the terminal's Ctrl-C: `closeOnExit` closes it when this
 * process gets SIGINT/SIGTERM/SIGHUP or exits (exit-hooks.ts).
 *
 * start() and close() may interleave: close() during start always lets start() settle (the
 * spawn error, or "closed during start") and runs the ladder on a child that did spawn.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { ConnectionClosedError, TransportError } from '../errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES, NdjsonFramer } from '../jsonrpc/framer.js';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import { LineWriter } from './line-writer.js';
import type { KillStep, KillStrength } from './spawn/kill.js';
import type { SandboxLaunch } from './spawn/sandbox-launch.js';
import type { SandboxOptions } from './spawn/sandbox-policy.js';
import type { StderrRing } from './stderr-ring.js';
import type { MessageExtra, SendOptions, Transport, TransportDiagnostic, TransportEvent } from './types.js';

export interface StdioTransportOptions {
  command: string;
  args?: string[];
  cwd?: string;
  /** Explicit variables, merged over the safe inherited set (see env.ts). */
  env?: Record<string, string>;
  /** Pass the whole parent environment (off by default: it holds the host's secrets). */
  inheritEnv?: boolean;
  serverId?: string;
  /** Largest message accepted from the server (default 16 MiB). */
  maxMessageBytes?: number;
  /** How much stderr to keep for diagnostics (default 64 KiB). */
  stderrBufferBytes?: number;
  /** Called with every stderr chunk (e.g. to forward it to a log). */
  onStderr?: (chunk: Buffer) => void;
  shutdown?: {
    /** Wait after closing stdin before SIGTERM (default 2000 ms). */
    stdinCloseWaitMs?: number;
    /** Wait after SIGTERM before SIGKILL (default 2000 ms). */
    sigtermWaitMs?: number;
  };
  /**
   * Close the server (the ladder above) when this process gets SIGINT/SIGTERM/SIGHUP, and SIGKILL its
   * process group on 'exit' (default false; see exit-hooks.ts).
   */
  closeOnExit?: boolean;
  /**
   * Run the server sandboxed (spawn/sandbox-launch.ts): bubblewrap on Linux, sandbox-exec on
   * macOS, refused elsewhere. Its environment is then the sandbox's (`env` names), not `inheritEnv`.
   */
  sandbox?: SandboxOptions;
}

type State = 'new' | 'starting' | 'open' | 'closing' | 'closed';
/** After the process exits, how long to wait for its pipes to drain before finishing anyway. */
const EXIT_DRAIN_MS = 50;
/** How long a failed stdin write waits for the server's exit before ending a server that lives on. */
const STDIN_GONE_GRACE_MS = 250;

type Runtime = typeof import('./stdio-runtime.js');
/** The spawn, environment, exit-hook and kill modules, loaded by the first start() (stdio-runtime.ts). */
let loading: Promise<Runtime> | undefined;
/** The same once loaded: later starts spawn synchronously, and everything after a spawn uses it. */
let rt: Runtime | undefined;

function loadRuntime(): Promise<Runtime> {
  return (loading ??= import('./stdio-runtime.js').then((m) => (rt = m)));
}

export class StdioTransport implements Transport {
  readonly kind = 'stdio';
  onmessage?: (message: unknown, extra?: MessageExtra, text?: string) => void;
  onclose?: (error?: Error) => void;
  ondiagnostic?: (d: TransportDiagnostic) => void;
  onevent?: (e: TransportEvent) => void;

  private readonly opts: StdioTransportOptions;
  private child: ChildProcessWithoutNullStreams | undefined;
  private state: State = 'new';
  /** Made by start() (the ring's module loads with the spawn's). */
  private stderr: StderrRing | undefined;
  private readonly framer: NdjsonFramer;
  /** The server's stdin, once spawned: the lines of one tick in one write (line-writer.ts). */
  private readonly writer = new LineWriter();
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private finished: Promise<void>;
  private finish!: () => void;
  private finishTimer: NodeJS.Timeout | undefined;
  /** The 'spawn' event came (the child is running). */
  private spawned = false;
  private unregisterExit: (() => void) | undefined;
  /** A write to stdin failed (EPIPE…); see `stdinFailed`. */
  private writeFailure: NodeJS.ErrnoException | undefined;
  /** close() was called by the owner (not by `stdinFailed`). */
  private closeRequested = false;
  /** The environment the server was started with (its PATH explains a command not found). */
  private spawnEnv: Record<string, string> = {};
  /** The sandbox's wrapper, proxy and temp dir, when `sandbox` is set (undone when the process is gone). */
  private launch: SandboxLaunch | undefined;

  constructor(options: StdioTransportOptions) {
    this.opts = options;
    this.framer = new NdjsonFramer({
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      onMessage: (m, text) => this.onmessage?.(m, undefined, text),
      onDiagnostic: (d) => this.ondiagnostic?.(d),
    });
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last bytes the server wrote to stderr (at most `stderrBufferBytes`). */
  get stderrTail(): string {
    return this.stderr?.text() ?? '';
  }

  start(): Promise<void> {
    if (this.state !== 'new') return Promise.reject(new TransportError('stdio transport already started', this.where('spawn')));
    this.state = 'starting';
    if (rt !== undefined && this.opts.sandbox === undefined) return this.spawnWith(rt);
    return loadRuntime().then(
      async (loaded) => {
        if (this.opts.sandbox !== undefined && this.state === 'starting') {
          const { command, args = [], cwd, env, serverId, sandbox } = this.opts;
          try {
            this.launch = await loaded.prepareSandbox({ command, args, cwd, env, serverId, sandbox });
          } catch (err) {
            this.state = 'closed';
            this.finish();
            throw err;
          }
        }
        if (this.state === 'starting') return this.spawnWith(loaded);
        // close() came while the modules loaded (or the sandbox was prepared): no process was started.
        this.launch?.cleanup();
        this.state = 'closed';
        this.finish();
        this.onclose?.();
        throw new ConnectionClosedError('stdio transport closed during start', this.where('spawn'));
      },
      (err: Error) => {
        this.state = 'closed';
        this.finish();
        throw new TransportError(`could not start "${this.opts.command}": ${err.message}`, { ...this.where('spawn'), cause: err, code: 'MCPWIRE_SPAWN_FAILED' });
      },
    );
  }

  /** Spawns the server (start(), once the modules of stdio-runtime.ts are loaded). */
  private spawnWith(m: Runtime): Promise<void> {
    const { command, args = [], cwd } = this.opts;
    const stderr = (this.stderr = new m.StderrRing(this.opts.stderrBufferBytes ?? 64 * 1024));
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        const launch = this.launch;
        const env = (this.spawnEnv = launch?.env ?? m.childEnv(this.opts.env, this.opts.inheritEnv));
        const plan = launch !== undefined ? { file: launch.file, args: launch.args, windowsVerbatimArguments: false } : m.localSpawnPlan(command, args, env, cwd);
        child = m.spawn(plan.file, plan.args, {
          cwd,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: process.platform !== 'win32',
          windowsHide: true,
          windowsVerbatimArguments: plan.windowsVerbatimArguments,
        });
      } catch (err) {
        this.launch?.cleanup();
        this.state = 'closed';
        this.finish();
        reject(this.spawnError(err as NodeJS.ErrnoException));
        return;
      }
      this.child = child;
      this.writer.stream = child.stdin;
      if (this.opts.closeOnExit) this.unregisterExit = m.registerExitCloser({ close: () => this.close(), kill: () => this.killGroup() });
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (this.spawned || this.state === 'closed') {
          this.ondiagnostic?.({ code: 'MCPWIRE_CHILD_ERROR', message: `server process error: ${err.message}` });
          return;
        }
        // The spawn failed, whether or not close() was called meanwhile.
        const wasClosing = this.state === 'closing';
        this.state = 'closed';
        this.unregisterExit?.();
        this.launch?.cleanup();
        this.finish();
        reject(this.spawnError(err));
        if (wasClosing) this.onclose?.();
      });
      child.once('spawn', () => {
        this.spawned = true;
        this.onevent?.({ type: 'spawn', pid: child.pid, command });
        if (this.state === 'starting') {
          this.state = 'open';
          resolve();
          return;
        }
        // close() came first: start() fails, the ladder close() began goes on and reaps the child.
        reject(new ConnectionClosedError('stdio transport closed during start', this.where('spawn')));
      });
      child.stdout.on('data', (chunk: Buffer) => this.framer.push(chunk));
      child.stdout.on('end', () => this.framer.end());
      child.stderr.on('data', (chunk: Buffer) => {
        stderr.push(chunk);
        this.opts.onStderr?.(chunk);
      });
      // EPIPE and friends: the exit that follows tells the story — unless the server closed its
      // stdin and lives on (`stdinFailed`).
      child.stdin.on('error', (err: NodeJS.ErrnoException) => this.stdinFailed(err));
      child.stdout.on('error', () => {});
      child.stderr.on('error', () => {});
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        this.onevent?.({ type: 'exit', pid: child.pid, code, signal });
        this.finishTimer = setTimeout(() => this.finalize(), EXIT_DRAIN_MS);
      });
      child.once('close', () => this.finalize());
    });
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.state !== 'open') {
      return Promise.reject(
        new ConnectionClosedError(`cannot send: the server process is ${this.state === 'new' ? 'not started' : 'gone'}`, this.where('transport')),
      );
    }
    // Backpressure: while the pipe is full, senders wait for 'drain'.
    return this.writer.send(message, options?.serialized);
  }

  close(): Promise<void> {
    this.closeRequested = true;
    return this.ladder();
  }

  /** stdin end → SIGTERM → SIGKILL (taskkill /T, /T /F on Windows), each after its wait (basic.lifecycle#15). */
  private async ladder(): Promise<void> {
    if (this.state === 'new') {
      this.state = 'closed';
      this.onclose?.();
      return;
    }
    if (this.state === 'closed') return this.finished;
    if (this.state === 'closing') return this.finished;
    this.state = 'closing';
    const child = this.child;
    // Still loading the spawn's modules: start() sees the close and settles (closed during start).
    if (child === undefined || rt === undefined) return this.finished;
    this.writer.flush();
    const { stdinCloseWaitMs = 2000, sigtermWaitMs = 2000 } = this.opts.shutdown ?? {};
    for (const rung of rt.shutdownLadder(process.platform, child.pid, { stdinCloseWaitMs, sigtermWaitMs })) {
      if (rung.kind === 'close-stdin') child.stdin.end();
      else this.endTree(rung.strength, rung.step);
      if (rung.waitMs === undefined) break;
      if (await this.exitWithin(rung.waitMs)) return this.finished;
    }
    await this.finished;
  }

  private exitWithin(ms: number): Promise<boolean> {
    if (this.exitInfo !== undefined) return this.finished.then(() => true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      this.finished.then(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /**
   * A write to the server's stdin failed (EPIPE…). Usually the server died and its exit follows
   * at once; a server that closed its stdin but keeps running can never be told anything again:
   * it is ended (the close ladder) and the connection fails with this as the reason.
   */
  private stdinFailed(err: NodeJS.ErrnoException): void {
    if (this.state !== 'open' || this.writeFailure !== undefined) return;
    this.writeFailure = err;
    const t = setTimeout(() => {
      if (this.state === 'open' && this.exitInfo === undefined) void this.ladder();
    }, STDIN_GONE_GRACE_MS);
    t.unref?.();
  }

  /** SIGKILL to the whole process group (taskkill /T /F on Windows), synchronously (the 'exit' hook). */
  private killGroup(): void {
    const child = this.child;
    if (child?.pid === undefined || this.state === 'closed' || rt === undefined) return;
    rt.runKillStep(rt.killStep(process.platform, child.pid, 'kill'), () => killChild(child, 'SIGKILL'), true);
  }

  /**
   * One rung of the ladder on the server's group or tree (SIGTERM / SIGKILL; taskkill /T, /T /F).
   * When it fails, the server itself gets the signal — except after a polite taskkill, which
   * fails for every console program (they have no window to close) and must not end the root
   * before the forced one has walked the tree.
   */
  private endTree(strength: KillStrength, step: KillStep | undefined): void {
    const child = this.child!;
    const sig = rt!.stepSignal(strength);
    this.onevent?.({ type: 'signal', pid: child.pid, signal: sig });
    const fallback = () => killChild(child, sig);
    if (step === undefined) fallback();
    else rt!.runKillStep(step, step.kind === 'signal' || strength === 'kill' ? fallback : undefined);
  }

  private finalize(): void {
    if (this.state === 'closed') return;
    if (this.finishTimer !== undefined) clearTimeout(this.finishTimer);
    const wasClosing = this.state === 'closing';
    this.state = 'closed';
    this.unregisterExit?.();
    const child = this.child!;
    this.framer.end();
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
    this.writer.end();
    // Make sure nothing the server started outlives it (its group; see spawn/kill.ts for Windows).
    const m = rt!;
    if (m.killsGroupAfterExit(process.platform) && child.pid !== undefined) m.runKillStep(m.killStep(process.platform, child.pid, 'kill'));
    this.launch?.cleanup();
    this.finish();
    const { code, signal } = this.exitInfo ?? { code: null, signal: null };
    const tail = this.stderrTail;
    const wf = this.writeFailure;
    if (wasClosing && wf !== undefined && !this.closeRequested) {
      this.onclose?.(
        new ConnectionClosedError(`the server closed its stdin (${wf.code ?? wf.message}) but kept running: nothing can be sent to it; the process was ended`, {
          ...this.where('transport'),
          cause: wf,
          exitCode: code,
          signal,
          stderrTail: tail,
        }),
      );
      return;
    }
    if (wasClosing) {
      this.onclose?.();
      return;
    }
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    this.onclose?.(
      new ConnectionClosedError(`server process ${how}${tail ? `; stderr tail:\n${tail}` : ' (no stderr output)'}`, {
        ...this.where('transport'),
        exitCode: code,
        signal,
        stderrTail: tail,
      }),
    );
  }

  private spawnError(err: NodeJS.ErrnoException): TransportError {
    const cmd = this.opts.command;
    const reason =
      err.code === 'ENOENT'
        ? `command not found: "${cmd}"${this.opts.cwd ? ` (or cwd "${this.opts.cwd}" does not exist)` : ''}${hintOf(rt!.notFoundHint(process.platform, cmd, this.spawnEnv))}`
        : err.code === 'EACCES'
          ? `permission denied running "${cmd}"`
          : `could not start "${cmd}": ${err.message}`;
    return new TransportError(reason, { ...this.where('spawn'), cause: err, code: 'MCPWIRE_SPAWN_FAILED' });
  }

  private where(phase: 'spawn' | 'transport'): { serverId?: string; phase: 'spawn' | 'transport' } {
    return { serverId: this.opts.serverId, phase };
  }
}

function hintOf(hint: string | undefined): string {
  return hint === undefined ? '' : `; ${hint}`;
}

/** The signal to the server process itself (TerminateProcess on Windows); it may be gone already. */
function killChild(child: ChildProcessWithoutNullStreams, sig: NodeJS.Signals): void {
  try {
    child.kill(sig);
  } catch {
    /* already gone */
  }
}
