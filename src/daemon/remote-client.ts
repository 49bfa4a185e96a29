/**
 * A held server as the commands see a client: the methods `call`, `read`, `prompt` and the
 * listings use (`serverCapabilities`, `listTools`, `callTool`, `readResource`, `getPrompt`,
 * `list*`), each run by the daemon on its connection to the server. Options cross the socket as
 * the command gave them: the timeout, progress and task status (events back), and the signal —
 * its abort cancels the call in the daemon, never the server. A failure is rethrown as the
 * engine's error with the same message and code, so the command prints what it prints without
 * a daemon.
 */
import { McpWireError } from '../errors.js';
import type { CallToolOptions } from '../mcp/client-options.js';
import type { CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../mcp/types.js';
import { DaemonReplyError, type DaemonConnection, type RequestHooks } from './client.js';
import type { ClientMethod } from './wire.js';
import { abortSignalOf } from '../util/cancel.js';

/** What the daemon said about the server when the command opened it. */
export interface Opened {
  serverCapabilities?: ServerCapabilities;
  serverInfo?: Implementation;
  protocolVersion?: string;
  /** The daemon's process id. */
  pid: number;
}

type Options = Pick<CallToolOptions, 'signal' | 'timeoutMs' | 'onProgress' | 'onTaskStatus'>;

export class RemoteClient {
  constructor(
    private readonly conn: DaemonConnection,
    private readonly server: string,
    private readonly print: string,
    readonly opened: Opened,
    /** The command's request timeout when a call gives none, and its elicitation handler. */
    private readonly defaults: { timeoutMs?: number; onAsk?: RequestHooks['onAsk'] },
  ) {}

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.opened.serverCapabilities;
  }

  get serverInfo(): Implementation | undefined {
    return this.opened.serverInfo;
  }

  get protocolVersion(): string | undefined {
    return this.opened.protocolVersion;
  }

  private async run<T>(method: ClientMethod, args: unknown[], options: Options = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.defaults.timeoutMs;
    const hooks: RequestHooks = {
      onEvent: (event, data) => {
        if (event === 'progress') options.onProgress?.(data as Parameters<NonNullable<Options['onProgress']>>[0]);
        else if (event === 'taskStatus') options.onTaskStatus?.(data as Parameters<NonNullable<Options['onTaskStatus']>>[0]);
      },
      ...(options.signal !== undefined ? { signal: abortSignalOf(options.signal) } : {}),
      ...(this.defaults.onAsk !== undefined ? { onAsk: this.defaults.onAsk } : {}),
    };
    try {
      return await this.conn.request<T>(
        'request',
        { server: this.server, fingerprint: this.print, method, args, ...(timeoutMs !== undefined ? { timeoutMs } : {}), progress: options.onProgress !== undefined, taskStatus: options.onTaskStatus !== undefined },
        hooks,
      );
    } catch (err) {
      if (err instanceof DaemonReplyError && err.code !== undefined) throw new McpWireError(err.code, err.message);
      throw err;
    }
  }

  listTools(options?: Options): Promise<Tool[]> {
    return this.run('listTools', [], options);
  }

  callTool(name: string, args: Record<string, unknown> = {}, options?: Options): Promise<CallToolResult> {
    return this.run('callTool', [name, args], options);
  }

  listResources(options?: Options): Promise<Resource[]> {
    return this.run('listResources', [], options);
  }

  listResourceTemplates(options?: Options): Promise<ResourceTemplate[]> {
    return this.run('listResourceTemplates', [], options);
  }

  readResource(uri: string, options?: Options): Promise<ReadResourceResult> {
    return this.run('readResource', [uri], options);
  }

  listPrompts(options?: Options): Promise<Prompt[]> {
    return this.run('listPrompts', [], options);
  }

  getPrompt(name: string, args?: Record<string, string>, options?: Options): Promise<GetPromptResult> {
    return this.run('getPrompt', [name, args ?? {}], options);
  }

  /** Ends this command's connection to the daemon; the server stays up. */
  async close(): Promise<void> {
    this.conn.close();
  }
}

/**
 * Opens server `server` through the daemon: undefined (the command connects on its own) when
 * the daemon does not hold it ready with the same entry.
 */
export async function openRemote(conn: DaemonConnection, server: string, print: string, defaults: { timeoutMs?: number; onAsk?: RequestHooks['onAsk'] }): Promise<RemoteClient | undefined> {
  const opened = await conn.request<Opened | { unavailable: string }>('open', { server, fingerprint: print }).catch(() => undefined);
  if (opened === undefined || 'unavailable' in opened) return undefined;
  return new RemoteClient(conn, server, print, opened, defaults);
}
