/**
 * What the client declares as task receiver (basic/utilities/tasks), apart from the receiver
 * itself (task-receiver.ts, loaded with the client's connection): the options, the methods
 * taken, the `tasks` capability. The client's capabilities are built from these when it is made.
 */
import type { ClientCapabilities } from './types.js';

/** The client→server requests the client can run as tasks. */
export type TaskReceiverMethod = 'sampling/createMessage' | 'elicitation/create';
export const TASK_RECEIVER_METHODS: readonly TaskReceiverMethod[] = ['sampling/createMessage', 'elicitation/create'];

/** The client as task receiver (`ClientOptions.taskReceiver`). */
export interface TaskReceiverOptions {
  /** Declares and serves task-augmented requests; nothing is declared unless true. */
  enabled: boolean;
  /** Which requests may be task-augmented (default: both; only those with a handler are declared). */
  methods?: TaskReceiverMethod[];
  /** The ttl of a task whose request names none (default 300 000 ms). */
  defaultTtlMs?: number;
  /** The longest ttl granted; longer requests are capped (default 3 600 000 ms). */
  maxTtlMs?: number;
  /** Tasks kept at once, finished or not (default 64). */
  maxTasks?: number;
  /** The `pollInterval` suggested to the server (default 1000 ms). */
  pollIntervalMs?: number;
  /** Tasks per `tasks/list` page (default 50). */
  listPageSize?: number;
  /** Send `notifications/tasks/status` on each status change (default true). */
  statusNotifications?: boolean;
}

/** What deciding the declaration needs from the client's options. */
export interface TaskReceiverHost {
  taskReceiver?: TaskReceiverOptions;
  onSampling?: unknown;
  onElicitation?: unknown;
  capabilities?: ClientCapabilities;
}

/** The methods declared for tasks: enabled, asked for, and really handled. */
export function taskReceiverMethods(o: TaskReceiverHost): TaskReceiverMethod[] {
  if (o.taskReceiver?.enabled !== true) return [];
  const wanted = new Set(o.taskReceiver.methods ?? TASK_RECEIVER_METHODS);
  return TASK_RECEIVER_METHODS.filter((m) => wanted.has(m) && (m === 'sampling/createMessage' ? o.onSampling : o.onElicitation) !== undefined);
}

/**
 * basic.utilities.tasks#1: the `tasks` capability of a client that receives tasks (`list`,
 * `cancel` and the request types it takes), or undefined when it takes none.
 */
export function taskReceiverCapability(o: TaskReceiverHost): Record<string, unknown> | undefined {
  const methods = taskReceiverMethods(o);
  if (methods.length === 0) return undefined;
  const extra = (o.capabilities?.tasks ?? {}) as { requests?: Record<string, Record<string, unknown>> };
  const requests: Record<string, Record<string, unknown>> = { ...(extra.requests ?? {}) };
  for (const m of methods) {
    const [group, name] = m.split('/') as [string, string];
    requests[group] = { ...requests[group], [name]: {} };
  }
  return { ...extra, list: {}, cancel: {}, requests };
}
