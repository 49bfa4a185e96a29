/**
 * Polling for a condition the test cannot await directly (a line in a recording, a state a
 * process reaches): a generous bound, and an error naming what never came.
 */

/**
 * Polls `probe` every `every` ms until it gives a value other than `undefined` or `false`, and
 * resolves that value; after `ms` it throws `timed out waiting for <what>`.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000, every = 20): Promise<Exclude<T, undefined | false>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v as Exclude<T, undefined | false>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
