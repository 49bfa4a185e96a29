/**
 * Tool `inputSchema` → agent tool `parameters`. The schema is untrusted input:
 *
 * - larger than `maxBytes` serialized (default 64 KiB) → refused before any parsing work;
 *   the caller then exposes the tool with the fallback schema (default) or not at all;
 * - not an object, top-level `type` not `"object"`, or does not compile → the fallback
 *   `{"type":"object","additionalProperties":true}` with a diagnostic.
 *
 * Dialect and compiling go through the one JSON Schema module (src/schema/): 2020-12 when
 * `$schema` is absent (basic#15), 2019-09 and draft-07/06 when `$schema` names them; an
 * unsupported `$schema` is a warning and the schema is checked as 2020-12. Only "is this a
 * usable schema" is asked (meta-schema + compile; basic#19); validating arguments is the
 * server's job. Each schema compiles in isolation, so schemas sharing an `$id` never clash, and
 * results are cached by content hash in the module's bounded LRU.
 */
import { compileSchema, dialectOf } from '../schema/index.js';

/** The permissive schema used when a tool's own cannot be used. */
export const FALLBACK_PARAMETERS: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object', additionalProperties: true });

/** Default cap on a serialized input schema. */
export const DEFAULT_MAX_SCHEMA_BYTES = 64 * 1024;

/** Outcome of checking one input schema. */
export interface SchemaResult {
  /** What to expose: a deep copy of the tool's schema, or a copy of the fallback. */
  parameters: Record<string, unknown>;
  /** `ok` — own schema used; `invalid`/`too_large` — fallback used; `warning` — own schema used, with a note. */
  status: 'ok' | 'warning' | 'invalid' | 'too_large';
  /** Why (never the schema itself). */
  message?: string;
}

/** Checks `inputSchema` and returns the parameters to expose (see the module comment). */
export function toolParameters(inputSchema: unknown, maxBytes = DEFAULT_MAX_SCHEMA_BYTES): SchemaResult {
  let text: string | undefined;
  try {
    text = JSON.stringify(inputSchema);
  } catch {
    text = undefined;
  }
  if (text === undefined) return fallback('invalid', 'inputSchema is missing or not serializable');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) return fallback('too_large', `inputSchema is ${bytes} bytes, over the ${maxBytes}-byte cap`);
  const schema = JSON.parse(text) as unknown;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return fallback('invalid', 'inputSchema is not a JSON object');
  const obj = schema as Record<string, unknown>;
  if (obj.type !== 'object') return fallback('invalid', 'inputSchema must have "type": "object"');
  const known = !('unsupported' in dialectOf(obj));
  const compiled = compileSchema(known ? obj : withoutDollarSchema(obj));
  if (!compiled.ok) return fallback('invalid', `inputSchema does not compile: ${compiled.schemaError}`);
  if (!known) return { parameters: obj, status: 'warning', message: 'inputSchema names an unknown "$schema"; checked as JSON Schema 2020-12' };
  return { parameters: obj, status: 'ok' };
}

function withoutDollarSchema(obj: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = obj;
  return rest;
}

function fallback(status: 'invalid' | 'too_large', message: string): SchemaResult {
  return { parameters: { ...FALLBACK_PARAMETERS }, status, message };
}
