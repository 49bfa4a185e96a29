/**
 * Which server capability each client→server request needs (server/*: "Servers that support
 * tools MUST declare the tools capability", etc.). A request for an undeclared capability fails
 * locally and is never sent.
 */
import type { ServerCapabilities } from './types.js';

/** The 2026-07-28 tasks extension's identifier (`capabilities.extensions`, basic/versioning "Extension Negotiation"). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * `sub` must be `true` (a flag such as `resources.subscribe`), `subObject` an object (`tasks.list: {}`);
 * `extension`: declaring this extension (`capabilities.extensions`) also suffices.
 */
type Requirement = { capability: keyof ServerCapabilities; sub?: string; subObject?: string; extension?: string };

/** `methods`, each needing `capability` (and `extra`'s flag or object within it). */
const needing = (capability: keyof ServerCapabilities, methods: readonly string[], extra: Omit<Requirement, 'capability'> = {}): Record<string, Requirement> =>
  Object.fromEntries(methods.map((m) => [m, { capability, ...extra }]));

const REQUIREMENTS: Readonly<Record<string, Requirement>> = {
  ...needing('tools', ['tools/list', 'tools/call']),
  ...needing('resources', ['resources/list', 'resources/templates/list', 'resources/read']),
  ...needing('resources', ['resources/subscribe', 'resources/unsubscribe'], { sub: 'subscribe' }),
  ...needing('prompts', ['prompts/list', 'prompts/get']),
  ...needing('completions', ['completion/complete']),
  ...needing('logging', ['logging/setLevel']),
  ...needing('tasks', ['tasks/result']),
  // 2026-07-28: tasks/get, tasks/update and tasks/cancel belong to the tasks extension
  ...needing('tasks', ['tasks/get', 'tasks/update'], { extension: TASKS_EXTENSION }),
  // basic.utilities.tasks: `capabilities.tasks.list` / `.cancel` control these operations.
  ...needing('tasks', ['tasks/list'], { subObject: 'list' }),
  ...needing('tasks', ['tasks/cancel'], { subObject: 'cancel', extension: TASKS_EXTENSION }),
};

/** Returns why `method` may not be sent to a server with `caps`, or undefined when it may. */
export function missingCapability(method: string, caps: ServerCapabilities | undefined): string | undefined {
  const req = REQUIREMENTS[method];
  if (req === undefined) return undefined;
  if (req.extension !== undefined && hasExtension(caps, req.extension)) return undefined;
  const declared = caps?.[req.capability] as Record<string, unknown> | undefined;
  if (declared === undefined || declared === null || typeof declared !== 'object') {
    return `the server did not declare the "${req.capability}" capability, so "${method}" is not available`;
  }
  // a flag must be `true`, an object entry an object
  const inner = req.sub ?? req.subObject;
  if (inner === undefined) return undefined;
  const value = declared[inner];
  const ok = req.sub !== undefined ? value === true : value !== null && typeof value === 'object';
  return ok ? undefined : `the server did not declare "${req.capability}.${inner}", so "${method}" is not available`;
}

/**
 * basic.utilities.tasks#4: why `method` may not be task-augmented on a server with `caps` (the
 * set in `capabilities.tasks.requests` is exhaustive), or undefined when it may.
 */
export function missingTaskCapability(method: 'tools/call', caps: ServerCapabilities | undefined): string | undefined {
  const [group, name] = method.split('/') as [string, string];
  const requests = (caps?.tasks as { requests?: Record<string, Record<string, unknown> | undefined> } | undefined)?.requests;
  const declared = requests?.[group]?.[name];
  if (declared !== null && typeof declared === 'object') return undefined;
  return `the server did not declare "tasks.requests.${group}.${name}", so "${method}" cannot be task-augmented`;
}

/** Whether `caps` declares the extension `id` (`capabilities.extensions[id]` is an object). */
export function hasExtension(caps: Record<string, unknown> | undefined, id: string): boolean {
  const extensions = caps?.extensions as Record<string, unknown> | undefined;
  const declared = extensions !== null && typeof extensions === 'object' ? extensions[id] : undefined;
  return declared !== null && typeof declared === 'object' && !Array.isArray(declared);
}
