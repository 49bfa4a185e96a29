/**
 * Closing child servers when this process ends (`closeOnExit`). stdio servers run in their own
 * process group (see stdio.ts), so a terminal's Ctrl-C reaches only us: without this, a server
 * that ignores stdin EOF outlives the host with ppid 1.
 *
 * One registry of live closers per process, and one listener per event however many servers
 * are live (no MaxListeners warnings). The listeners are installed while the registry is not
 * empty and removed when it empties, so a program whose servers are all closed has Node's
 * default signal behaviour back. Signal and 'exit' listeners never keep the event loop alive.
 *
 * - SIGINT / SIGTERM / SIGHUP: every live server is closed with its graceful ladder (stdin → SIGTERM →
 *   SIGKILL, basic.lifecycle#15). Then, if no other listener for that signal is left, the
 *   process exits with 128 + the signal number (130, 143, 129), as a shell reports a signal death;
 *   if the program listens too, exiting is its call. A second signal while closing kills
 *   the process groups at once and exits.
 * - 'exit' (synchronous, also process.exit() and a crash): SIGKILL to every live process group
 *   (on Windows `taskkill /T /F` on each server's tree, run synchronously; spawn/kill.ts).
 */

/** One live server: how to close it gracefully, and how to kill it synchronously. */
export interface ExitCloser {
  /** The graceful ladder; idempotent. */
  close(): Promise<void>;
  /** Last resort from the synchronous 'exit' event: SIGKILL the process group. */
  kill(): void;
}

// SIGHUP: the terminal went away (the servers, in their own sessions, get no SIGHUP of their own).
const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
type HandledSignal = keyof typeof SIGNALS;
/** Closing rounds on a signal (servers registered meanwhile, e.g. a reconnect, get a new round). */
const MAX_ROUNDS = 3;

const live = new Set<ExitCloser>();
let installed = false;
let shuttingDown: HandledSignal | undefined;

/** Adds `closer` to the registry; returns the function that removes it (call it once closed). */
export function registerExitCloser(closer: ExitCloser): () => void {
  live.add(closer);
  install();
  // A server started while everything is being closed is closed too.
  if (shuttingDown !== undefined) void closer.close().catch(() => {});
  return () => {
    live.delete(closer);
    if (live.size === 0 && shuttingDown === undefined) uninstall();
  };
}

/** How many servers are registered (tests, diagnostics). */
export function liveExitClosers(): number {
  return live.size;
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const sig of Object.keys(SIGNALS)) process.on(sig, onSignal);
  process.on('exit', onExit);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const sig of Object.keys(SIGNALS)) process.off(sig, onSignal);
  process.off('exit', onExit);
}

function onSignal(signal: NodeJS.Signals): void {
  const sig = signal as HandledSignal;
  if (shuttingDown !== undefined) {
    // Asked again while closing: no more patience.
    onExit();
    if (!programListens(sig)) process.exit(128 + SIGNALS[sig]);
    return;
  }
  shuttingDown = sig;
  void closeAll().then(() => {
    // Another listener (the program's own) decides what the signal means.
    if (!programListens(sig)) process.exit(128 + SIGNALS[sig]);
    shuttingDown = undefined;
    if (live.size === 0) uninstall();
  });
}

/**
 * Whether the program itself listens for `sig` (then exiting is its call). Ours does not count,
 * nor do signal-exit's (a dependency of proper-lockfile and many CLIs' libraries): signal-exit
 * only re-raises the signal when it is the last listener, so with ours present it would leave the
 * process running. Its v3 listeners (the version proper-lockfile brings) are functions named
 * `listener`, installed with the global `__signal_exit_emitter__`.
 */
function programListens(sig: HandledSignal): boolean {
  const fromSignalExit = (process as { __signal_exit_emitter__?: unknown }).__signal_exit_emitter__ !== undefined;
  return process.listeners(sig).some((fn) => fn !== onSignal && !(fromSignalExit && fn.name === 'listener'));
}

async function closeAll(): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS && live.size > 0; round++) {
    await Promise.allSettled([...live].map((c) => c.close()));
  }
}

function onExit(): void {
  for (const closer of live) {
    try {
      closer.kill();
    } catch {
      /* already gone */
    }
  }
}
