/**
 * Schema checks for `mcpwire check`: a thin adapter over the strict-mode validator
 * (src/trace/strict.ts, schema/2025-11-25.schema.json, JSON Schema 2020-12). Kept in one place so
 * the checker and the tracer never disagree about what "schema-valid" means.
 */
import { validateMessage, type Violation } from '../trace/strict.js';

export type { Violation };

/** Violations of a message the server sent (`requestMethod`: the method its response answers). */
export function serverMessageViolations(message: unknown, requestMethod?: string): Violation[] {
  try {
    return validateMessage('in', message, requestMethod !== undefined ? { requestMethod } : {});
  } catch (err) {
    return [
      {
        dir: 'in',
        kind: 'invalid',
        schemaType: 'JSONRPCMessage',
        instancePath: '',
        schemaPath: '',
        keyword: 'internal',
        message: `schema check failed: ${(err as Error).message}`,
      },
    ];
  }
}

/** One line per violation: `/result/tools/0/name: must have required property 'name' (#/$defs/Tool/required)`. */
export function describeViolation(v: Violation): string {
  return `${v.instancePath || '/'}: ${v.message} (${v.schemaType}, ${v.schemaPath})`;
}

/** Violations not under any of `claimed` (instance-path prefixes another check already reported). */
export function unclaimed(violations: Violation[], claimed: readonly string[]): Violation[] {
  if (claimed.length === 0) return violations;
  return violations.filter(
    (v) => !claimed.some((p) => p === '' || v.instancePath === p || v.instancePath.startsWith(`${p}/`)),
  );
}
