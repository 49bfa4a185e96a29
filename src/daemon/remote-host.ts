/**
 * `mcpwire tools` through the daemon: the part of an `McpHost` the command reads (`status()`,
 * `tools()`, `catalog.byName`), filled from the daemon's host for the servers the command names.
 */
import type { AdaptedTool, McpHost, ServerStatus } from '../host/index.js';
import type { Tool } from '../mcp/types.js';
import type { DaemonConnection } from './client.js';

interface ToolsReply {
  pid: number;
  status: ServerStatus[];
  tools: { adapted: AdaptedTool; original?: Tool }[];
}

/** The remote host view, or undefined when the daemon cannot answer for every one of `servers`. */
export async function remoteHost(conn: DaemonConnection, servers: { id: string; fingerprint: string }[]): Promise<{ host: McpHost; pid: number } | undefined> {
  const reply = await conn.request<ToolsReply | { unavailable: string }>('tools', { servers }).catch(() => undefined);
  if (reply === undefined || 'unavailable' in reply) return undefined;
  const byName = new Map(reply.tools.filter((t) => t.original !== undefined).map((t) => [t.adapted.name, { server: t.adapted.server, tool: t.original! }]));
  const view = {
    status: () => reply.status,
    tools: () => reply.tools.map((t) => t.adapted),
    catalog: { tools: reply.tools.map((t) => t.adapted), byName, diagnostics: [] },
  };
  return { host: view as unknown as McpHost, pid: reply.pid };
}
