/**
 * Validation of `structuredContent` against a tool's `outputSchema` (server/tools: "Clients
 * SHOULD validate structured results against this schema", server.tools#15), through the one
 * JSON Schema module (src/schema/): the schema's declared or default dialect (2020-12 without
 * `$schema`; basic#15, basic#16), `format` an annotation unless `assertFormats` is set, every
 * schema isolated from every other (same `$id` from two servers never collide), compiled
 * validators cached by content hash in a bounded LRU.
 *
 * The schema module (and ajv) is loaded with `import()` when a tool with an outputSchema is
 * first called, so `import('mcpwire')` stays light.
 */
import type { SchemaCheck, SchemaOptions, SchemaProblem } from '../schema/index.js';

export type { SchemaCheck };

let loaded: Promise<typeof import('../schema/index.js')> | undefined;

function schemaModule(): Promise<typeof import('../schema/index.js')> {
  return (loaded ??= import('../schema/index.js'));
}

/** Validates `value` against `schema`; a `schemaError` means the schema is unusable (nothing checked). */
export async function validateAgainst(schema: object, value: unknown, options: SchemaOptions = {}): Promise<SchemaCheck> {
  return (await schemaModule()).validateValue(schema, value, options);
}
