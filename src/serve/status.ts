/**
 * The gateway's own status: each downstream server's state, last error, version and tool count,
 * offered as the resource `mcpwire://status` and the read-only tool `mcpwire_status`. What the
 * host reports is redacted already; each row goes through its server's redaction once more, so
 * a configured secret in an error text never leaves.
 */
import type { McpHost } from '../host/index.js';
import type { Downstream } from './downstream.js';

export const STATUS_URI = 'mcpwire://status';
export const STATUS_TOOL = 'mcpwire_status';

export const STATUS_RESOURCE = {
  uri: STATUS_URI,
  name: 'mcpwire-status',
  title: 'mcpwire gateway status',
  description: "Each downstream MCP server's state, last error, version and tool count (JSON).",
  mimeType: 'application/json',
};

export const STATUS_TOOL_DEFINITION = {
  name: STATUS_TOOL,
  title: 'mcpwire gateway status',
  description: "Each downstream MCP server behind this gateway: state (ready, connecting, error…), last error, server version, tool count. Read-only.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

export interface StatusRow {
  id: string;
  state: string;
  transport: string;
  tools: number;
  lastError: string | null;
  server: { name: string; version: string } | null;
  protocolVersion: string | null;
  /** The stdio server's process id while connected. */
  pid: number | null;
  retries: number;
  lastConnectedAt: string | null;
}

export function statusRows(host: McpHost | undefined, down: Downstream): StatusRow[] {
  return (host?.status() ?? []).map((s) =>
    down.redact(s.id, {
      id: s.id,
      state: s.state,
      transport: s.transportKind ?? s.transport,
      tools: s.tools,
      lastError: s.lastError ?? null,
      server: s.serverInfo ? { name: s.serverInfo.name, version: s.serverInfo.version } : null,
      protocolVersion: s.protocolVersion ?? null,
      pid: s.pid ?? null,
      retries: s.retries,
      lastConnectedAt: s.lastConnectedAt === undefined ? null : new Date(s.lastConnectedAt).toISOString(),
    }),
  );
}
