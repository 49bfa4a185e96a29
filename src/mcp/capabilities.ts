/**
 * Which server capability each client→server request needs (server/*: "Servers that support
 * tools MUST declare the tools capability", etc.). A request for an undeclared capability fails
 * locally and is never sent.
 */
import type { ServerCapabilities } from './types.js';

type Requirement = { capability: keyof ServerCapabilities; sub?: string };

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
  'tasks/list': { capability: 'tasks' },
  'tasks/cancel': { capability: 'tasks' },
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
  return undefined;
}
