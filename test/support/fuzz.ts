/**
 * Shared runner for the property-based fuzz tests (test/fuzz-*.test.ts).
 *
 * - Every property prints one summary line: `[fuzz] <name>: <n> cases, seed <s>` — the case
 *   counts in CI are in the test output.
 * - On failure the error carries fast-check's report: the seed, the shrunk counterexample and the
 *   replay path. Replay with `MCPWIRE_FUZZ_SEED=<seed> MCPWIRE_FUZZ_PATH=<path>`.
 * - `MCPWIRE_FUZZ_SCALE=<k>` multiplies every property's case count (default 1; e.g. 20 locally
 *   for a long run). CI runs the default counts (≥ 100k cases over all the fuzz files).
 */
import fc from 'fast-check';

export const FUZZ_SCALE = Math.max(0.01, Number(process.env.MCPWIRE_FUZZ_SCALE ?? 1) || 1);

/** The case count of a property at the current scale. */
export function runs(n: number): number {
  return Math.max(1, Math.round(n * FUZZ_SCALE));
}

function params(numRuns: number): fc.Parameters<unknown> {
  const p: fc.Parameters<unknown> = { numRuns };
  if (process.env.MCPWIRE_FUZZ_SEED !== undefined) p.seed = Number(process.env.MCPWIRE_FUZZ_SEED);
  if (process.env.MCPWIRE_FUZZ_PATH !== undefined) p.path = process.env.MCPWIRE_FUZZ_PATH;
  return p;
}

function report(name: string, details: fc.RunDetails<unknown>): number {
  const line = `[fuzz] ${name}: ${details.numRuns} cases, seed ${details.seed}`;
  if (details.failed) {
    console.log(`${line} FAILED`);
    throw new Error(`${line} FAILED (replay: MCPWIRE_FUZZ_SEED=${details.seed} MCPWIRE_FUZZ_PATH=${details.counterexamplePath})\n${fc.defaultReportMessage(details)}`);
  }
  console.log(line);
  return details.numRuns;
}

/** Runs a synchronous property `n` times (scaled); prints the summary; throws with the seed on failure. */
export function fuzz<T>(name: string, n: number, arb: fc.Arbitrary<T>, predicate: (v: T) => boolean | void): number {
  const p = params(runs(n)) as fc.Parameters<[T]>;
  return report(name, fc.check(fc.property(arb, predicate), p) as fc.RunDetails<unknown>);
}

/** The asynchronous form of `fuzz`. */
export async function fuzzAsync<T>(name: string, n: number, arb: fc.Arbitrary<T>, predicate: (v: T) => Promise<boolean | void>): Promise<number> {
  const p = params(runs(n)) as fc.Parameters<[T]>;
  return report(name, (await fc.check(fc.asyncProperty(arb, predicate), p)) as fc.RunDetails<unknown>);
}

/** Cuts `buf` at random points (the arbitrary's cut list, sorted and deduplicated). */
export function cutAt(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const p of points) {
    if (p > last) out.push(buf.subarray(last, p));
    last = Math.max(last, p);
  }
  if (last < buf.length) out.push(buf.subarray(last));
  return out;
}

/** A small seeded PRNG (mulberry32): renderings that are a function of the fuzz case. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
