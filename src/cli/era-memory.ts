/**
 * The CLI's era memory (src/host/era-memory.ts): each command is a new process, so the era a
 * stdio server was found to speak is kept in `eras.json` in the config dir, keyed by the
 * entry's fingerprint (the daemon's), and the next command opens in it without the probe.
 * `MCPWIRE_ERA_MEMORY=off` turns it off.
 */
import type { ClientOptions, McpClient } from '../index.js';
import { authStore, EraFile, eraMemoryPath, sharedErasOf, withSharedEras, type EraMemory, type ResolvedServer } from '../host-api.js';
import { programPrint } from '../daemon-api.js';
import { cliAuth } from './config-target.js';
import { perRun } from './run-state.js';

let memory: EraMemory | undefined;
// the next run may have another home, config or store
perRun(() => {
  memory = undefined;
});

/**
 * The one era memory of this process, or undefined when turned off: on a Redis store
 * (`mcp.store`, `MCPWIRE_STORE`) the store's verdicts, shared with every worker and the daemon,
 * `eras.json` while Redis is away; else `eras.json`. Called once the command's config is loaded.
 */
export function cliEraMemory(): EraMemory | undefined {
  if (process.env.MCPWIRE_ERA_MEMORY === 'off') return undefined;
  return (memory ??= withSharedEras(new EraFile(eraMemoryPath(), programPrint), sharedEras(), programPrint));
}

/** The store's verdicts when the command's store is Redis (a bad setting is reported where tokens are used: none here). */
function sharedEras(): ReturnType<typeof sharedErasOf> {
  try {
    return sharedErasOf(authStore(cliAuth()));
  } catch {
    return undefined;
  }
}

/**
 * Opens configured server `server` with `open`, in the era an earlier command found when one is
 * kept (and the command pins none), and keeps what this opening found.
 */
export async function openRemembering(server: ResolvedServer, options: ClientOptions, open: (options: ClientOptions) => Promise<McpClient>): Promise<McpClient> {
  const eras = cliEraMemory();
  if (eras === undefined || options.protocolVersion !== undefined || server.config.protocolVersion !== undefined || options.knownEra !== undefined) return open(options);
  const recalled = await eras.recall(server).catch(() => undefined);
  let client: McpClient;
  try {
    client = await open(recalled === undefined ? options : { ...options, knownEra: recalled });
  } catch (err) {
    await eras.failed(server).catch(() => {});
    throw err;
  }
  await eras.opened(server, client.era, client.serverInfo, recalled !== undefined).catch(() => {});
  return client;
}
