/** What scripts/static-graph.mjs reads of an ES module's static imports. */
export interface StaticGraph {
  /** Absolute paths, the entry first. */
  files: string[];
  /** `node:` specifiers, sorted. */
  builtins: string[];
  /** npm packages, sorted. */
  packages: string[];
}
export function staticGraph(entry: string, options?: { sources?: boolean }): StaticGraph;
