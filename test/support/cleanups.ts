/**
 * The clean-ups of a test file that opens servers, transports and clients as it goes: each is
 * pushed when opened, and after each test they run last first. Tests that run at once use
 * atTestEnd instead: an afterEach would close what another running test still uses.
 */
import { afterEach, type TestContext } from 'vitest';

export type Cleanup = () => Promise<unknown>;

/** Registers the afterEach that runs every pushed clean-up, last first (one that fails does not stop the rest). */
export function afterEachCleanups(): Cleanup[] {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
  });
  return cleanups;
}

/** Runs `close` when the test of `ctx` ends, whatever it concluded (a close that fails is ignored). */
export function atTestEnd({ onTestFinished }: TestContext, close: Cleanup): void {
  onTestFinished(async () => {
    await close().catch(() => {});
  });
}
