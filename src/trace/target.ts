/** Where a trace goes, from the CLI flag and the environment (no tracer is loaded to decide). */

/** `--trace <file>` wins over `MCPWIRE_TRACE=<file>`; empty means off. */
export function traceTarget(env: Record<string, string | undefined>, cliFlag?: string): string | undefined {
  if (cliFlag !== undefined && cliFlag !== '') return cliFlag;
  const v = env.MCPWIRE_TRACE;
  return v !== undefined && v !== '' ? v : undefined;
}
