/**
 * The CLI's era memory (src/host/era-memory.ts): each command is a new process, so the era a
 * stdio server was found to speak is kept in `eras.json` in the config dir, keyed by the
 * entry's fingerprint (the daemon's), and the next command opens in it without the probe.
 * `MCPWIRE_ERA_MEMORY=off` turns it off.
 */
import type { ClientOptions, McpClient } from '../index.js';
import { EraFile, eraMemoryPath, type EraMemory, type ResolvedServer } from '../host-api.js';
import { fingerprint } from '../daemon-api.js';

let memory: EraMemory | undefined;

/** The one era memory of this process, or undefined when turned off. */
export function cliEraMemory(): EraMemory | undefined {
  if (process.env.MCPWIRE_ERA_MEMORY === 'off') return undefined;
  return (memory ??= new EraFile(eraMemoryPath(), programPrint));
}

/**
 * The daemon's fingerprint of what decides the program a stdio entry runs: command, arguments,
 * environment, working directory (placed), id, config file and project — not its timeouts or
 * other settings (a command that caps the timeouts still finds the verdict).
 */
function programPrint(server: ResolvedServer): string {
  const c = server.config as { command?: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string };
  const config = { command: c.command, args: c.args, env: c.env, cwd: c.cwd } as ResolvedServer['config'];
  return fingerprint({ id: server.id, file: server.file, project: server.project, transport: server.transport, config });
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
