/**
 * Resolved servers and host start-up for the host tests over real mock processes: a stdio server
 * as the global config file would give it, and a start that waits for every server to settle.
 */
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import type { McpHost, ResolvedServer } from '../../src/host/index.js';

/** A resolved stdio server of the global config running `node <args>`; `config` sets normalized fields. */
export function stdioServer(id: string, args: string[], config: Partial<ResolvedServer['config']> = {}): ResolvedServer {
  return { id, source: 'global', file: '/u/config.json', enabled: true, transport: 'stdio', config: { ...emptyNormalizedConfig(), command: process.execPath, args, ...config } };
}

/** Starts `host`, then waits up to `ms` for every server to be ready; the test checks the states it got. */
export async function startAndSettle(host: McpHost, ms = 30_000): Promise<void> {
  await host.start();
  const end = Date.now() + ms;
  while (host.status().some((s) => s.state !== 'ready') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}
