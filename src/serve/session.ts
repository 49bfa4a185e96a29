/**
 * One upstream client of the gateway: the server side of a `Connection` (basic/lifecycle,
 * server/*). Before `initialize` only `ping` is served (-32600 otherwise); `initialize` starts the
 * host on first use (the gateway's `ensureHost`) and answers with the gateway's capabilities.
 * Lists are the aggregate over ready servers, one opaque-cursor page at a time (pages.ts).
 */
import { JsonRpcError } from '../errors.js';
import { sanitizeText, type AdaptedTool, type McpHost } from '../host/index.js';
import { LOGGING_LEVELS, type ClientCapabilities, type LoggingLevel } from '../mcp/types.js';
import { Connection } from '../protocol/connection.js';
import type { Transport } from '../transport/types.js';
import { invalidParams, type Downstream } from './downstream.js';
import { page } from './pages.js';
import { STATUS_RESOURCE, STATUS_TOOL, STATUS_TOOL_DEFINITION, STATUS_URI, statusRows } from './status.js';
import { gatewayToolCall } from './tool-call.js';

/** The one revision served for now (basic.lifecycle#10: the server answers a version it supports). */
export const GATEWAY_PROTOCOL_VERSION = '2025-11-25';

export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

/** What a session needs from its gateway. */
export interface SessionGateway {
  readonly down: Downstream;
  readonly version: string;
  readonly pageSize: number;
  readonly instructions?: string;
  ensureHost(session: GatewaySession): Promise<McpHost>;
  /** The session's connection closed. */
  ended(session: GatewaySession): void;
  /** The client said its roots changed. */
  rootsChanged(session: GatewaySession): void;
  log(line: string): void;
  /** Runs a tool call of `session` on `server`, marking it as the one a server's request goes to. */
  whileCalling<T>(server: string | undefined, session: GatewaySession, run: () => Promise<T>): Promise<T>;
}

const NOT_INITIALIZED = () => new JsonRpcError(-32600, 'Server not initialized: send initialize first');

export class GatewaySession {
  readonly conn: Connection;
  /** What the client declared in `initialize`. */
  clientCapabilities: ClientCapabilities | undefined;
  initialized = false;
  private host: McpHost | undefined;
  /** The host while `initialize` waits for it: requests sent right behind initialize wait too. */
  private starting: Promise<McpHost> | undefined;
  private level: LoggingLevel | undefined;

  constructor(
    private readonly gateway: SessionGateway,
    transport: Transport,
  ) {
    this.conn = new Connection(transport, {
      onClose: () => gateway.ended(this),
      onDiagnostic: (d) => gateway.log(`upstream: ${d.message}`),
    });
    this.install();
  }

  /** Sends a notification if the client finished initializing (list changes, log messages). */
  notify(method: string, params?: Record<string, unknown>): void {
    if (this.host === undefined || this.conn.isClosed) return;
    this.conn.notify(method, params).catch(() => {});
  }

  /** A downstream log message, if at or above the level the client set (server.utilities.logging). */
  forwardLog(server: string | undefined, params: Record<string, unknown>): void {
    const level = params.level as LoggingLevel;
    const threshold = this.level ?? 'debug';
    if (!LOGGING_LEVELS.includes(level) || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(threshold)) return;
    const logger = typeof params.logger === 'string' ? `${server ?? 'gateway'}/${params.logger}` : (server ?? 'gateway');
    this.notify('notifications/message', { level, logger, data: params.data });
  }

  /**
   * The host for a request: before `initialize`, -32600 (basic.lifecycle#5 asks clients to wait
   * for its answer); a request pipelined right behind `initialize` waits for the answer instead of
   * failing, so a client that writes its first lines at once (a shell pipe) is served in order.
   */
  private ready(): Promise<McpHost> {
    if (this.host !== undefined) return Promise.resolve(this.host);
    if (this.starting !== undefined) return this.starting;
    return Promise.reject(NOT_INITIALIZED());
  }

  private install(): void {
    const c = this.conn;
    const down = this.gateway.down;
    c.setRequestHandler('ping', () => ({}));
    c.setRequestHandler('initialize', (params) => this.initialize(params));
    c.setNotificationHandler('notifications/initialized', () => {
      this.initialized = true;
    });
    c.setNotificationHandler('notifications/roots/list_changed', () => this.gateway.rootsChanged(this));
    c.setRequestHandler('tools/list', async (params) => {
      const host = await this.ready();
      const tools = host.tools().map((t) => gatewayTool(host, t));
      return page('tools', [STATUS_TOOL_DEFINITION, ...resultReadTool(host), ...tools], params?.cursor, this.gateway.pageSize);
    });
    c.setRequestHandler('tools/call', async (params, ctx) => {
      const host = await this.ready();
      if (params?.name === STATUS_TOOL) return this.statusResult();
      const server = typeof params?.name === 'string' ? host.catalog.byName.get(params.name)?.server : undefined;
      return this.gateway.whileCalling(server, this, () => gatewayToolCall({ host, conn: c, signal: ctx.signal, log: (s, p) => this.forwardLog(s, p) }, params));
    });
    c.setRequestHandler('resources/list', async (params, ctx) => {
      await this.ready();
      return page('resources', [STATUS_RESOURCE, ...(await down.resources(ctx.signal))], params?.cursor, this.gateway.pageSize);
    });
    c.setRequestHandler('resources/templates/list', async (params, ctx) => {
      await this.ready();
      return page('resourceTemplates', await down.templates(ctx.signal), params?.cursor, this.gateway.pageSize);
    });
    c.setRequestHandler('resources/read', async (params, ctx) => {
      await this.ready();
      const uri = params?.uri;
      if (typeof uri !== 'string') throw invalidParams('resources/read: "uri" must be a string');
      if (uri === STATUS_URI) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ servers: statusRows(this.host, down) }) }] };
      return down.readResource(uri, ctx.signal);
    });
    c.setRequestHandler('prompts/list', async (params, ctx) => {
      await this.ready();
      return page('prompts', await down.prompts(ctx.signal), params?.cursor, this.gateway.pageSize);
    });
    c.setRequestHandler('prompts/get', async (params, ctx) => {
      await this.ready();
      if (typeof params?.name !== 'string') throw invalidParams('prompts/get: "name" must be a string');
      return down.getPrompt(params.name, params.arguments as Record<string, string> | undefined, ctx.signal);
    });
    c.setRequestHandler('completion/complete', async (params, ctx) => {
      await this.ready();
      return down.complete(params ?? {}, ctx.signal);
    });
    c.setRequestHandler('logging/setLevel', async (params) => {
      await this.ready();
      const level = params?.level;
      if (typeof level !== 'string' || !LOGGING_LEVELS.includes(level as LoggingLevel)) throw invalidParams(`logging/setLevel: unknown level ${JSON.stringify(level)}`);
      this.level = level as LoggingLevel;
      await down.setLevel(this.level);
      return {};
    });
  }

  private async initialize(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    if (this.host !== undefined || this.starting !== undefined) throw new JsonRpcError(-32600, 'initialize was already received on this connection');
    const p = params ?? {};
    if (typeof p.protocolVersion !== 'string') throw invalidParams('initialize: "protocolVersion" must be a string');
    if (typeof p.capabilities !== 'object' || p.capabilities === null) throw invalidParams('initialize: "capabilities" must be an object');
    const info = p.clientInfo as { name?: unknown } | undefined;
    if (typeof info?.name !== 'string') throw invalidParams('initialize: "clientInfo.name" must be a string');
    this.clientCapabilities = p.capabilities as ClientCapabilities;
    this.starting = this.gateway.ensureHost(this);
    this.host = await this.starting;
    const out: Record<string, unknown> = {
      protocolVersion: GATEWAY_PROTOCOL_VERSION,
      capabilities: GATEWAY_CAPABILITIES,
      serverInfo: { name: 'mcpwire-gateway', title: 'mcpwire gateway', version: this.gateway.version },
    };
    if (this.gateway.instructions !== undefined) out.instructions = this.gateway.instructions;
    return out;
  }

  private statusResult(): Record<string, unknown> {
    const servers = statusRows(this.host, this.gateway.down);
    return { content: [{ type: 'text', text: JSON.stringify({ servers }) }], structuredContent: { servers } };
  }
}

/**
 * A host tool as the gateway lists it: the adapter's name, description and argument schema, the
 * server's `title` (sanitized: untrusted text) and annotations. No `outputSchema`: a result the
 * host cuts for size has no `structuredContent`, which a client would then reject.
 */
function gatewayTool(host: McpHost, t: AdaptedTool): Record<string, unknown> {
  const out: Record<string, unknown> = { name: t.name, description: t.description, inputSchema: t.parameters };
  const title = sanitizeText(host.catalog.byName.get(t.name)?.tool.title, 200, true);
  if (title) out.title = title;
  if (t.annotations) out.annotations = t.annotations;
  return out;
}

/** `mcp_result_read`, so a result the host cut for size can be read to its end. */
function resultReadTool(host: McpHost): Record<string, unknown>[] {
  const def = host.toolDefinitions().find((d) => d.name === 'mcp_result_read');
  return def === undefined ? [] : [{ name: def.name, description: def.description, inputSchema: def.parameters, annotations: { readOnlyHint: true } }];
}
