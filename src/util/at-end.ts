/**
 * What a command-line process closes when its command is done: a shared store's connection
 * (Redis) keeps the event loop alive and reconnects forever, so the CLI's `main` closes what
 * was registered here once the command returned. A library embedding the host closes its host
 * (and its store) itself; nothing here runs by itself.
 */
const closers = new Set<() => Promise<void>>();

/** Registers `close` to run at the end of the command; returns a function that unregisters it. */
export function closeAtEnd(close: () => Promise<void>): () => void {
  closers.add(close);
  return () => closers.delete(close);
}

/** Runs every registered close once (a failure is ignored: the process is ending). */
export async function closeRegistered(): Promise<void> {
  const all = [...closers];
  closers.clear();
  await Promise.all(all.map((c) => c().catch(() => undefined)));
}
