/**
 * The gateway's own status: each downstream server's state, last error, version and tool count,
 * and the tools, prompts and templates the gateway offers under another name than their
 * server's (`--names`: both sides, the client's name and the server's own), offered as the
 * resource `mcpwire://status` and the read-only tool `mcpwire_status`. What the
 * host reports is redacted already; each row goes through its server's redaction once more, so
 * a configured secret in an error text never leaves.
 */
import type { McpHost } from '../host/index.js';
import type { Downstream } from './downstream.js';
import type { NameTable, NamingMode } from './names.js';

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

/** At most this many renamed items in the status (the rest counted). */
const MAX_RENAMED = 200;

/** One item the client knows by another name than its server's. */
export interface RenamedRow {
  kind: 'tool' | 'prompt' | 'template';
  /** The name the gateway's client sees and calls. */
  client: string;
  server: string;
  /** The server's own name for it. */
  name: string;
}

/** The naming mode and every item whose client name is not its server's own (names.ts), bounded. */
export function namesStatus(mode: NamingMode, tables: Partial<Record<RenamedRow['kind'], NameTable>>, down: Downstream): { mode: NamingMode; renamed: RenamedRow[]; more?: number } {
  const all: RenamedRow[] = [];
  for (const kind of ['tool', 'prompt', 'template'] as const) {
    for (const n of tables[kind]?.items ?? []) if (n.gateway !== n.name) all.push({ kind, client: n.gateway, server: n.server, name: n.name });
  }
  const renamed = all.slice(0, MAX_RENAMED).map((r) => down.redact(r.server, r));
  return { mode, renamed, ...(all.length > MAX_RENAMED ? { more: all.length - MAX_RENAMED } : {}) };
}
