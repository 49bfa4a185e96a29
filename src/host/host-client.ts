/**
 * The part of a client the host uses, and how the host opens one: types only, below the server
 * slot and the call routing that both use them.
 */
import type { CallToolOptions, ClientOptions } from '../mcp/client.js';
import type { RequestOptions } from '../protocol/connection.js';
import type { CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../mcp/types.js';
import type { ServerConfig } from '../transport/create.js';

/** The part of `McpClient` the host uses (so tests can supply a fake). */
export interface HostClient {
  readonly serverInfo?: Implementation;
  readonly serverCapabilities?: ServerCapabilities;
  readonly instructions?: string;
  readonly transportKind?: string;
  /** The negotiated protocol version. */
  readonly protocolVersion?: string;
  /** `modern` or `handshake` (McpClient.era). */
  readonly era?: string;
  /** The stdio server's process id. */
  readonly pid?: number;
  listTools(options?: RequestOptions): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult>;
  listResources(options?: RequestOptions): Promise<Resource[]>;
  listResourceTemplates?(options?: RequestOptions): Promise<ResourceTemplate[]>;
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  listPrompts(options?: RequestOptions): Promise<Prompt[]>;
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>;
  close(): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** Opens a client for a server config (default: `connect` of `src/mcp/client.ts`). */
export type ConnectFn = (config: ServerConfig, options: ClientOptions) => Promise<HostClient>;
