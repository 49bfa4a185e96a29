/**
 * MCP 2025-11-25 types the client uses, named as in the spec's schema (schema.json `$defs`).
 * Shapes are open (`[key: string]: unknown`) where the spec allows extension via `_meta` and
 * where older/newer revisions add fields: the client reads what it knows and keeps the rest.
 */

export type Meta = Record<string, unknown>;

/** An icon as the client hands it on: its `src` is https or a data: image (basic#28, icons.ts). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  tasks?: Record<string, unknown>;
  experimental?: Record<string, object>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: object;
  completions?: object;
  tasks?: Record<string, unknown>;
  experimental?: Record<string, object>;
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
}

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: Meta }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
export interface ResourceLink extends Resource { type: 'resource_link' }
export interface EmbeddedResource {
  type: 'resource';
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[]; [k: string]: unknown };
  outputSchema?: { type: 'object'; properties?: Record<string, object>; required?: string[]; [k: string]: unknown };
  annotations?: ToolAnnotations;
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  icons?: Icon[];
  _meta?: Meta;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
  [key: string]: unknown;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: Meta }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: Meta }

export interface ReadResourceResult {
  contents: (TextResourceContents | BlobResourceContents)[];
  _meta?: Meta;
}

export interface PromptArgument { name: string; title?: string; description?: string; required?: boolean }
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}
export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult { description?: string; messages: PromptMessage[]; _meta?: Meta }

export type CompleteReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
}

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export const LOGGING_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export interface LoggingMessageNotificationParams { level: LoggingLevel; logger?: string; data: unknown }
export interface ResourceUpdatedNotificationParams { uri: string }

export interface Root { uri: string; name?: string; _meta?: Meta }

export interface ListToolsResult { tools: Tool[]; nextCursor?: string; _meta?: Meta }
export interface ListResourcesResult { resources: Resource[]; nextCursor?: string; _meta?: Meta }
export interface ListResourceTemplatesResult { resourceTemplates: ResourceTemplate[]; nextCursor?: string; _meta?: Meta }
export interface ListPromptsResult { prompts: Prompt[]; nextCursor?: string; _meta?: Meta }

/** sampling/createMessage, as the client receives it (client/sampling). */
export interface CreateMessageRequestParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}
export interface CreateMessageResult {
  role: 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

/** elicitation/create (client/elicitation). */
export interface ElicitRequestParams {
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
  elicitationId?: string;
  [key: string]: unknown;
}
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

// ---- tasks (basic/utilities/tasks) ----------------------------------------------------------

/** A task's state (basic/utilities/tasks: "Task Status"); the last three are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
/** A tool's `execution.taskSupport` (server/tools); absent means 'forbidden'. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** schema.json `Task`: the execution state of a task-augmented request. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** ms from creation before the receiver may delete the task; null = unlimited. */
  ttl: number | null;
  /** Suggested ms between `tasks/get` polls. */
  pollInterval?: number;
  [key: string]: unknown;
}
/** The `task` field of a task-augmented request's params (schema.json `TaskMetadata`). */
export interface TaskMetadata { ttl?: number }
/** The value of `_meta["io.modelcontextprotocol/related-task"]`. */
export interface RelatedTaskMetadata { taskId: string }
/** The answer to a task-augmented request (schema.json `CreateTaskResult`). */
export interface CreateTaskResult { task: Task; _meta?: Meta; [key: string]: unknown }
export type GetTaskResult = Task & { _meta?: Meta };
export type CancelTaskResult = Task & { _meta?: Meta };
export interface ListTasksResult { tasks: Task[]; nextCursor?: string; _meta?: Meta }
