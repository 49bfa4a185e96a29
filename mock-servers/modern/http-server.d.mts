/** Types for http-server.mjs (the 2026-07-28 Streamable HTTP scripted mock), for TypeScript tests. */
export interface ModernHttpMockOptions {
  /** A modern scenario (see mock-servers/README.md, "Modern-era mocks"); default DEFAULT_MODERN_SCENARIO. */
  scenario?: Record<string, unknown>;
  /** 'auto': JSON unless something precedes the answer; 'sse': always SSE; 'json': never SSE. */
  stream?: 'auto' | 'sse' | 'json';
  path?: string;
  host?: string;
  port?: number;
  allowedOrigins?: string[];
  stderr?: (text: string) => void;
}

export interface RecordedRequest {
  id: unknown;
  method: string;
  meta: Record<string, any> | undefined;
  headers?: Record<string, string | string[] | undefined>;
  /** The JSON-RPC error code when the transport refused it before the engine saw it. */
  rejected?: number;
}

export interface ModernHttpMock {
  url: string;
  port: number;
  record: {
    http: { method: string; headers: Record<string, string | string[] | undefined>; body: string }[];
    sent: { for: unknown; message: any }[];
    requests: RecordedRequest[];
    violations: string[];
    cancelled: unknown[];
  };
  /** Fires a change on the open subscriptions: 'tools' | 'prompts' | 'resources' (list_changed) or 'updated' (uri). */
  emit(kind: string, uri?: string): number;
  /** Ends every subscription gracefully (its subscriptions/listen gets a complete result). */
  endSubscriptions(): void;
  /** The scenario's `expect` entries no request met. */
  unmet(): string[];
  close(): Promise<void>;
}

export declare function startModernHttpMock(options?: ModernHttpMockOptions): Promise<ModernHttpMock>;
