/** What scripts/code-shape.mjs finds over the limits. */
export interface ShapeFinding {
  kind: 'file' | 'function';
  /** Path from the repository root, with `/`. */
  file: string;
  /** The function's name (`constructor`, `(callback of …)`, `(anonymous)` when it has none). */
  name?: string;
  line: number;
  lines: number;
}
export function codeShape(dir: string, limits?: { maxFileLines?: number; maxFunctionLines?: number }): ShapeFinding[];
