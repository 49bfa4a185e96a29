/**
 * Which server capability each client→server request needs (server/*: "Servers that support
 * tools MUST declare the tools capability", etc.). A request for an undeclared capability fails
 * locally and is never sent.
 */
import type { ServerCapabilities } from './types.js';

/** `sub` must be `true` (a flag such as `resources.subscribe`), `subObject` an object (`tasks.list: {}`). */
type Requirement = { capability: keyof ServerCapabilities; sub?: string; subObject?: string };

const REQUIREMENTS: Readonly<Record<string, Requirement>> = {
  'tools/list': { capability: 'tools' },
  'tools/call': { capability: 'tools' },
  'resources/list': { capability: 'resources' },
  'resources/templates/list': { capability: 'resources' },
  'resources/read': { capability: 'resources' },
  'resources/subscribe': { capability: 'resources', sub: 'subscribe' },
  'resources/unsubscribe': { capability: 'resources', sub: 'subscribe' },
  'prompts/list': { capability: 'prompts' },
  'prompts/get': { capability: 'prompts' },
  'completion/complete': { capability: 'completions' },
  'logging/setLevel': { capability: 'logging' },
  'tasks/get': { capability: 'tasks' },
  'tasks/result': { capability: 'tasks' },
  // basic.utilities.tasks: `capabilities.tasks.list` / `.cancel` control these operations.
  'tasks/list': { capability: 'tasks', subObject: 'list' },
  'tasks/cancel': { capability: 'tasks', subObject: 'cancel' },
};

/** Returns why `method` may not be sent to a server with `caps`, or undefined when it may. */
export function missingCapability(method: string, caps: ServerCapabilities | undefined): string | undefined {
  const req = REQUIREMENTS[method];
  if (req === undefined) return undefined;
  const declared = caps?.[req.capability] as Record<string, unknown> | undefined;
  if (declared === undefined || declared === null || typeof declared !== 'object') {
    return `the server did not declare the "${req.capability}" capability, so "${method}" is not available`;
  }
  if (req.sub !== undefined && declared[req.sub] !== true) {
    return `the server did not declare "${req.capability}.${req.sub}", so "${method}" is not available`;
  }
  const sub = req.subObject === undefined ? undefined : declared[req.subObject];
  if (req.subObject !== undefined && (sub === null || typeof sub !== 'object')) {
    return `the server did not declare "${req.capability}.${req.subObject}", so "${method}" is not available`;
  }
  return undefined;
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
