/**
 * "Did you mean …?" for a field of a hand-written entry that mcpwire does not know: a typo of a
 * native field (`comand`, `keep_alvie`) or another host's word for it (`type`, `environment`).
 * The CLI has the same matching for commands and options (src/cli/suggest.ts); the CLI reaches
 * the engine only through its API, so this folder keeps its own small copy.
 */
import { KNOWN_ENTRY_KEYS } from './schema.js';

/** Words other hosts (and people) use for a native field, mapped to it. */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  type: 'transport',
  environment: 'env',
  arguments: 'args',
  argv: 'args',
  timeout: 'request_timeout_ms',
  serverUrl: 'url',
  endpoint: 'url',
  keepalive: 'keep_alive',
  working_directory: 'cwd',
};

/** ` (did you mean "env"?)` for a misspelt or foreign field name, `` when nothing is close. */
export function unknownFieldHint(key: string): string {
  const near = closest(key, [...KNOWN_ENTRY_KEYS, ...Object.keys(FIELD_ALIASES)]);
  return near === undefined ? '' : ` (did you mean "${FIELD_ALIASES[near] ?? near}"?)`;
}

/**
 * Edit distance where swapping two neighbouring characters is one edit (optimal string
 * alignment): `heda` is one typo away from `head`, as people type. Small strings only: names
 * typed on a command line.
 */
function distance(a: string, b: string): number {
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
 * The candidate closest to `input` (case-insensitive; at most a third of its length in edits,
 * at least 1, or one contains the other), or undefined.
 */
function closest(input: string, candidates: Iterable<string>): string | undefined {
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
  return scored[0]?.[0];
}
