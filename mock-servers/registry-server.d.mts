/** Types for registry-server.mjs (the scripted MCP registry), for TypeScript tests. */
export type RegistryMode = 'ok' | 'garbage' | 'not-a-list' | 'huge' | 'error';

export interface RegistryOptions {
  /** server.json documents; several with one name are its versions, the last given the latest. */
  documents?: Record<string, unknown>[];
  /** Files served under /files/<name> (MCPB bundles). */
  files?: Record<string, Buffer>;
  mode?: RegistryMode;
  port?: number;
  host?: string;
}

export interface RecordedRegistryRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

export interface LocalRegistry {
  url: string;
  port: number;
  readonly requests: RecordedRegistryRequest[];
  mode: RegistryMode;
  publish(doc: Record<string, unknown>): void;
  addFile(name: string, bytes: Buffer): void;
  close(): Promise<void>;
}

export function startRegistry(o?: RegistryOptions): Promise<LocalRegistry>;
