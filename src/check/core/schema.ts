/**
 * Schema checks for `mcpwire check`: a thin adapter over the strict-mode validator
 * (src/trace/strict.ts, JSON Schema 2020-12): schema/2025-11-25.schema.json for the handshake
 * era, schema/2026-07-28.schema.json for the modern one (`MODERN_SCHEMA`). Kept in one place so
 * the checker and the tracer never disagree about what "schema-valid" means.
 */
import { MODERN_SCHEMA_VERSION, validateMessage, type SchemaVersion, type Violation } from '../../trace/strict.js';

export type { SchemaVersion, Violation };

/** The schema a 2026-07-28 run validates against. */
export const MODERN_SCHEMA: SchemaVersion = MODERN_SCHEMA_VERSION;

/**
 * Violations of a message the server sent (`requestMethod`: the method its response answers;
 * `schema`: the revision whose schema applies, by default the handshake era's 2025-11-25).
 */
export function serverMessageViolations(message: unknown, requestMethod?: string, schema?: SchemaVersion): Violation[] {
  try {
    return validateMessage('in', message, { ...(requestMethod !== undefined ? { requestMethod } : {}), ...(schema !== undefined ? { schema } : {}) });
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
