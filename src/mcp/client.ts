/**
 * McpClient: one connection to one MCP server, with a typed method per client→server request
 * of the spec's server pages, and events for the server's notifications. The connection, its
 * lifecycle and the request path are ClientCore's (client-core.ts); tool calls are tool-calls.ts,
 * tasks tasks.ts, the 2026-07-28 read-through cache result-cache.ts.
 */
import type { RequestOptions } from '../protocol/connection.js';
import type { ServerConfig } from '../transport/create.js';
import { ClientCore } from './client-core.js';
import type { CallToolOptions, ClientOptions, McpRequestOptions, RequestInputOptions } from './client-options.js';
import { resourceNotFound } from './eras/modern-errors.js';
import { screenListedTools } from './eras/http-modern.js';
import type { Page } from './pagination.js';
import { callTool } from './tool-calls.js';
import { readThrough, type ReadOptions } from './result-cache.js';
import type {
  CallToolResult,
  CompleteReference,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  CancelTaskResult,
  ListTasksResult,
  ListToolsResult,
  Task,
  Tool,
} from './types.js';

export type { CallToolOptions, ClientOptions, McpClientDiagnostic } from './client-options.js';
export { configSecrets } from './client-trace.js';

/** callTool's default options: read only, so one shared object instead of one per call. */
const NO_OPTIONS: CallToolOptions = Object.freeze({});

export class McpClient extends ClientCore {
  /** Sends a request of a typed method and checks its result's shape (result-shapes.ts). */
  protected checked<T>(method: string, params: Record<string, unknown> | undefined, options: (ReadOptions & RequestInputOptions) | undefined): Promise<T> {
    const send = (o: McpRequestOptions | undefined): Promise<T> => this.request<unknown>(method, params, o).then((r) => this.codec.result<T>(method, r));
    // a request made for another client's capabilities is neither served from the cache nor kept in it
    const own = options?.clientCapabilities === undefined && options?.onInputRequests === undefined;
    return this.codec.era === 'modern' && own ? readThrough(this.cache, method, params, options, this.authContext, send) : send(options);
  }

  /** One page of tools/list. */
  listToolsPage(cursor?: string, options?: ReadOptions): Promise<ListToolsResult> {
    return this.checked<ListToolsResult>('tools/list', cursor === undefined ? undefined : { cursor }, options)
      .then((listed) => screenListedTools(listed, this.codec.era === 'modern' && this.transport?.setSessions !== undefined, (code, message) => this.diagnostic(code, message)))
      .then((r) => {
        this.tools.page(r.tools, r.nextCursor === undefined);
        return r;
      });
  }

  /** Every tool, following `nextCursor` to the end (stops on a cursor loop). */
  listTools(options?: ReadOptions): Promise<Tool[]> {
    return this.listing('tools/list', async (cursor) => {
      const r = await this.listToolsPage(cursor, options);
      return { items: r.tools, nextCursor: r.nextCursor };
    });
  }

  /** Every page of `method` (session.ts: a listing a new session interrupts starts over). */
  protected listing<T>(method: string, fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
    return this.session.listing(method, fetchPage, (code, message) => this.diagnostic(code, message));
  }

  /**
   * Calls a tool (tool-calls.ts). Returns the whole CallToolResult; `isError: true` is a result
   * (the tool failed), distinct from a JSON-RPC error (the request failed), which rejects.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = NO_OPTIONS): Promise<CallToolResult> {
    return callTool(this.toolCalls, name, args, options);
  }

  // ---- tasks (basic/utilities/tasks; the client as requestor) -------------------------------

  /**
   * `tools/call` with `task` (lower level than `callTool`, which follows the task to its
   * result): resolves with the created task. Needs the server's `tasks.requests.tools.call`.
   */
  createTask(name: string, args: Record<string, unknown> = {}, options: { ttlMs?: number; signal?: AbortSignal; timeoutMs?: number; _meta?: Record<string, unknown> } = {}): Promise<Task> {
    return this.tasks.createToolTask(name, args, { ...options, taskTtlMs: options.ttlMs });
  }
  /** `tasks/get`: the task's current state. */
  getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    return this.tasks.getTask(taskId, options);
  }
  /** `tasks/result`: blocks until the task is terminal; the underlying request's result or error. */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.tasks.getTaskResult(taskId, options);
  }
  /** One page of `tasks/list` (needs `tasks.list`). */
  listTasksPage(cursor?: string, options?: RequestOptions): Promise<ListTasksResult> {
    return this.tasks.listTasksPage(cursor, options);
  }
  /** Every task, following `nextCursor` to the end (needs `tasks.list`). */
  listTasks(options?: RequestOptions): Promise<Task[]> {
    return this.listing('tasks/list', async (cursor) => {
      const r = await this.tasks.listTasksPage(cursor, options);
      return { items: r.tasks, nextCursor: r.nextCursor };
    });
  }
  /** `tasks/cancel` (needs `tasks.cancel`). */
  cancelTask(taskId: string, options?: RequestOptions): Promise<CancelTaskResult> {
    return this.tasks.cancelTask(taskId, options);
  }

  listResources(options?: RequestOptions): Promise<Resource[]> {
    return this.listAll<Resource>('resources/list', 'resources', options);
  }
  listResourcesPage(cursor?: string, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.checked<ListResourcesResult>('resources/list', cursor === undefined ? undefined : { cursor }, options);
  }
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.listAll<ResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }
  listResourceTemplatesPage(cursor?: string, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.checked<ListResourceTemplatesResult>('resources/templates/list', cursor === undefined ? undefined : { cursor }, options);
  }
  readResource(uri: string, options?: ReadOptions & RequestInputOptions): Promise<ReadResourceResult> {
    // a resource not found: -32602 (2026-07-28) or -32002 (earlier, basic#19) → ResourceNotFoundError
    return this.checked<ReadResourceResult>('resources/read', { uri }, options).catch((err: unknown) => {
      throw resourceNotFound(err, uri, this.codec.era === 'modern');
    });
  }
  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.codec.era === 'modern') return this.listen.subscribeResource(uri);
    return this.checked('resources/subscribe', { uri }, options).then(() => {
      this.session.state.subscriptions.add(uri);
    });
  }
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.codec.era === 'modern') return this.listen.unsubscribeResource(uri);
    return this.checked('resources/unsubscribe', { uri }, options).then(() => {
      this.session.state.subscriptions.delete(uri);
    });
  }
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.listAll<Prompt>('prompts/list', 'prompts', options);
  }
  listPromptsPage(cursor?: string, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.checked<ListPromptsResult>('prompts/list', cursor === undefined ? undefined : { cursor }, options);
  }
  getPrompt(name: string, args?: Record<string, string>, options?: McpRequestOptions): Promise<GetPromptResult> {
    return this.checked<GetPromptResult>('prompts/get', args === undefined ? { name } : { name, arguments: args }, options);
  }
  /** completion/complete (server/utilities/completion). */
  complete(
    ref: CompleteReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    const params: Record<string, unknown> = { ref, argument };
    if (context !== undefined) params.context = context;
    return this.checked<CompleteResult>('completion/complete', params, options);
  }
  /** logging/setLevel (server/utilities/logging). */
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    // 2026-07-28: no request; the level goes in every request's _meta from now on
    if (this.codec.setLogLevel(level)) {
      this.session.state.logLevel = level;
      return Promise.resolve();
    }
    return this.checked('logging/setLevel', { level }, options).then(() => {
      this.session.state.logLevel = level;
    });
  }

  protected listAll<T>(method: string, key: string, options?: RequestOptions): Promise<T[]> {
    return this.listing(method, async (cursor) => {
      const r = await this.checked<Record<string, unknown>>(method, cursor === undefined ? undefined : { cursor }, options);
      return { items: r[key] as T[], nextCursor: r.nextCursor as string | undefined };
    });
  }
}

/**
 * Connects to an MCP server and completes initialization. Resolves with a ready client; rejects
 * with a typed error naming the server and the phase (spawn, initialize…), after releasing
 * everything (the child process is reaped).
 */
export async function connect(config: ServerConfig, options: ClientOptions = {}): Promise<McpClient> {
  const client = new McpClient(config, options);
  await client.connect();
  return client;
}
