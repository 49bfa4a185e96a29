/**
 * What a command keeps for the rest of its run in module state (a notice said once, the config's
 * token store, the era memory of the config's store, a Ctrl-C seen) belongs to that run: a module
 * holding such state registers how to forget it, and each run starts by forgetting. In the bin
 * (one run per process) this changes nothing; a process that runs commands one after another
 * (the suite's in-process runner) gets each one the state a fresh process has.
 */
const resets = new Set<() => void>();

/** Registers `reset`, called at the start of every later run. */
export function perRun(reset: () => void): void {
  resets.add(reset);
}

/** Starts a run: every registered state forgotten. */
export function newRun(): void {
  for (const reset of resets) reset();
}
