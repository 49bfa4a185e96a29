/**
 * One configured server as a client, for commands that talk to a single server by id (`read`,
 * `prompt`): the server must be valid and enabled; its request timeout applies unless
 * `--timeout-ms` is given; the client is always closed.
 */
import { connect, type McpClient } from '../index.js';
import { clientAuthOptions, toConnectConfig } from '../host-api.js';
import { parseTimeout } from './args.js';
import { findServer, loadView, scrubber, usableServer, type ConfigFlags } from './config-target.js';
import { clientOptions, type TargetFlags } from './target.js';

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
  const client = await connect(toConnectConfig(server), { ...clientOptions(flags), ...clientAuthOptions(server), timeoutMs });
  try {
    return await fn(client, timeoutMs);
  } finally {
    await client.close();
  }
}
