/**
 * The one server of the protocol-level commands (`request`, `ping`, `complete`, `log-level`,
 * `watch`): `<id>` as the first word, or the ad-hoc server of `--stdio` / `--url` (then no id).
 * They always connect on their own, never through `mcpwire daemon`: its remote client serves
 * listing, reading and calling only, and these commands are about one session of their own.
 */
import type { McpClient } from '../index.js';
import { UsageError } from './args.js';
import type { CommandRun } from './command.js';
import { withOneServer } from './config-client.js';
import type { ConfigFlags } from './config-target.js';
import { adHocServer, type TargetFlags } from './target.js';

/** Splits the positionals into the server id (undefined: ad hoc) and the command's own words. */
export function serverAndRest(values: TargetFlags, positionals: string[], usage: string): { id?: string; rest: string[] } {
  if (adHocServer(values) !== undefined) return { rest: positionals };
  const [id, ...rest] = positionals;
  if (id === undefined) throw new UsageError(usage);
  return { id, rest };
}

/** Runs `fn` on the server with its request options (`timeoutMs` of the configured server, if any). */
export function withDirectServer<T>(
  values: TargetFlags & ConfigFlags,
  id: string | undefined,
  run: CommandRun,
  fn: (client: McpClient, options: { timeoutMs?: number }) => Promise<T>,
): Promise<T> {
  const flags = { ...values, 'no-daemon': true };
  return withOneServer(flags, id, run, (client, timeoutMs) => fn(client, timeoutMs === undefined ? {} : { timeoutMs }));
}
