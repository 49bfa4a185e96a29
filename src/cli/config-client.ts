/**
 * One configured server as a client, for commands that talk to a single server by id (`read`,
 * `prompt`): the server must be valid and enabled; its request timeout applies unless
 * `--timeout-ms` is given; the client is always closed. `withOneServer` also takes the ad-hoc
 * server of `--stdio` / `--url`.
 */
import type { McpClient } from '../index.js';
import { clientAuthOptions } from '../host-api.js';
import { connectServer } from './daemon-client.js';
import { parseTimeout } from './args.js';
import { findServer, cliAuth, loadView, scrubber, usableServer, type ConfigFlags } from './config-target.js';
import { clientOptions, withClient, type TargetFlags } from './target.js';
import type { CommandRun } from './command.js';

/** Connects to configured server `id`, runs `fn`, closes. `onScrub` receives the secret scrubber once the config is read. */
export async function withConfigClient<T>(
  flags: TargetFlags & ConfigFlags,
  id: string,
  onScrub: (scrub: (s: string) => string) => void,
  fn: (client: McpClient, timeoutMs: number) => Promise<T>,
): Promise<T> {
  const config = await loadView(flags);
  onScrub(scrubber(config.servers));
  const server = findServer(config, id);
  usableServer(server);
  const timeoutMs = parseTimeout(flags['timeout-ms']) ?? server.config.requestTimeoutMs;
  const client = await connectServer(server, flags, { ...clientOptions(flags), ...clientAuthOptions(server, cliAuth()), timeoutMs });
  try {
    return await fn(client, timeoutMs);
  } finally {
    await client.close();
  }
}

/**
 * Runs `fn` on the one server a command names: the ad-hoc one when `id` is undefined (the
 * client's own timeout), else configured server `id` (its scrubber goes to `run.scrub`).
 */
export function withOneServer<T>(
  flags: TargetFlags & ConfigFlags,
  id: string | undefined,
  run: CommandRun,
  fn: (client: McpClient, timeoutMs?: number) => Promise<T>,
): Promise<T> {
  if (id === undefined) return withClient(flags, (client) => fn(client));
  return withConfigClient(flags, id, (scrub) => (run.scrub = scrub), fn);
}
