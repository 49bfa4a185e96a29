/**
 * Names close to a mistyped one: the matching behind every "did you mean …?" — commands,
 * options, server ids and tool names on the command line (src/cli/suggest.ts), unknown fields
 * of a config entry (src/host/config/field-hint.ts).
 */

/**
 * Edit distance where swapping two neighbouring characters is one edit (optimal string
 * alignment): `heda` is one typo away from `head`, as people type. Small strings only: names
 * typed on a command line.
 */
export function distance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The candidates close to `input` (case-insensitive; at most a third of its length in edits,
 * at least 1, or one contains the other), best first, at most `max`.
 */
export function closest(input: string, candidates: Iterable<string>, max = 3): string[] {
  const low = input.toLowerCase();
  const limit = Math.max(1, Math.floor(low.length / 3));
  const scored: [string, number][] = [];
  for (const c of new Set(candidates)) {
    const cl = c.toLowerCase();
    let d = distance(low, cl);
    if (d > limit && low.length >= 3 && (cl.includes(low) || low.includes(cl))) d = limit;
    if (d <= limit) scored.push([c, d]);
  }
  scored.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
  return scored.slice(0, max).map(([c]) => c);
}
