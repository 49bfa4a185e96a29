/**
 * Builds a Transport from a server config. HTTP transports are imported lazily so that a
 * stdio-only program never loads undici.
 */
import { StdioTransport } from './stdio.js';
import type { Transport } from './types.js';
import type { SandboxOptions } from './spawn/sandbox-policy.js';
import type { HttpAuthProvider } from './http-common.js';

export interface StdioServerConfig {
  transport: 'stdio';
  /** Server id used in errors, status and traces. */
  id?: string;
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Pass the whole parent environment to the server (default: a minimal safe set). */
  inheritEnv?: boolean;
  /** Env names whose values are secrets whatever they look like (redacted from traces and errors). */
  secretNames?: string[];
  /** Run the server sandboxed (spawn/sandbox-policy.ts; off when absent). */
  sandbox?: SandboxOptions;
}

export interface HttpServerConfig {
  transport: 'http';
  id?: string;
  url: string;
  headers?: Record<string, string>;
  /** Header names whose values are secrets whatever they look like (redacted from traces and errors). */
  secretNames?: string[];
  /** Use the 2024-11-05 HTTP+SSE transport directly (Claude/Cursor `type: "sse"`). */
  legacySse?: boolean;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

export interface TransportFactoryOptions {
  maxMessageBytes?: number;
  shutdown?: { stdinCloseWaitMs?: number; sigtermWaitMs?: number };
  onStderr?: (chunk: Buffer) => void;
  /** HTTP tuning: connect/idle-stream timeouts, reconnect policy, legacy fallback. */
  http?: {
    connectTimeoutMs?: number;
    idleStreamTimeoutMs?: number;
    maxReconnectDelayMs?: number;
    maxReconnectAttempts?: number;
    /** The bound of a notification's (or a response's) POST, default 10 000 ms. */
    notificationTimeoutMs?: number;
    fallbackToLegacySse?: boolean;
  };
  /** Supplies auth headers per request (OAuth). */
  authProvider?: HttpAuthProvider;
  /**
   * stdio: close the server (stdin → SIGTERM → SIGKILL) when this process gets SIGINT/SIGTERM/SIGHUP,
   * then exit with 130/143/129 unless the program has its own listener for the signal; SIGKILL its
   * process group on 'exit'. Default false. See transport/exit-hooks.ts.
   */
  closeOnExit?: boolean;
}

export async function createTransport(config: ServerConfig, options: TransportFactoryOptions = {}): Promise<Transport> {
  if (config.transport === 'stdio') {
    return new StdioTransport({
      command: config.command,
      args: config.args,
      cwd: config.cwd,
      env: config.env,
      inheritEnv: config.inheritEnv,
      serverId: config.id,
      maxMessageBytes: options.maxMessageBytes,
      shutdown: options.shutdown,
      onStderr: options.onStderr,
      closeOnExit: options.closeOnExit,
      sandbox: config.sandbox,
    });
  }
  const { createHttpTransport } = await import('./http-factory.js');
  return createHttpTransport({
    transport: config.legacySse ? 'sse' : 'http',
    url: config.url,
    headers: config.headers,
    serverId: config.id,
    authProvider: options.authProvider,
    maxMessageBytes: options.maxMessageBytes,
    ...options.http,
  });
}
