/** "Did you mean …?" for mistyped commands, options, server ids and tool names. */
import { closest } from '../util/close-names.js';

/** ` (did you mean "x"?)` or `` when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const near = closest(input, candidates);
  if (near.length === 0) return '';
  return ` (did you mean ${near.map(quote).join(' or ')}?)`;
}
