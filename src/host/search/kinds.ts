/**
 * The numbers that tell alike results apart (`tool-index.ts`, `bestByWords`): a term's hash, a
 * scrambler so sums of hashes do not collide, and a bit per indexed field.
 */

/** A bit per indexed field, in a result's match kind. */
export const FIELD_BIT: Readonly<Record<string, number>> = { name: 1, title: 2, description: 4, params: 8, server: 16 };

/** FNV-1a of a term's characters. */
export function hashOf(term: string): number {
  let v = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) v = Math.imul(v ^ term.charCodeAt(i), 16777619);
  return v;
}

/** Scrambles the bits of a 32-bit hash (MurmurHash3's finalizer), so sums of hashes do not collide. */
export function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
