/**
 * A tool's `structuredContent` against the `outputSchema` it declared (server/tools): missing or
 * not matching is an error (ValidationError) or, in 'warn' mode, a diagnostic; an unusable
 * schema is only reported (nothing can be checked, the call does not fail).
 */
import { ValidationError } from '../errors.js';
import { validateAgainst } from './output-schema.js';
import type { CallToolResult } from './types.js';

export interface StructuredCheck {
  serverId: string;
  /** 'error' (default) throws, 'warn' reports. */
  mode: 'error' | 'warn';
  assertFormats: boolean;
  diagnostic(code: string, message: string): void;
}

export async function checkStructuredContent(name: string, schema: object, result: CallToolResult, o: StructuredCheck): Promise<void> {
  if (result.structuredContent === undefined) {
    return problem(name, [{ path: '/', message: 'structuredContent is missing although the tool declares an outputSchema' }], o);
  }
  const check = await validateAgainst(schema, result.structuredContent, { assertFormats: o.assertFormats });
  if (check.schemaError !== undefined) {
    // The server's schema is unusable: nothing can be checked. Say so; do not fail the call.
    o.diagnostic('MCPWIRE_OUTPUT_SCHEMA_INVALID', `outputSchema of tool "${name}" cannot be used for validation: ${check.schemaError}`);
    return;
  }
  if (check.problems.length > 0) problem(name, check.problems, o);
}

function problem(name: string, problems: { path: string; message: string }[], o: StructuredCheck): void {
  const message = `tool "${name}" returned structuredContent that does not match its outputSchema: ${problems
    .slice(0, 5)
    .map((p) => `${p.path} ${p.message}`)
    .join('; ')}`;
  if (o.mode === 'warn') {
    o.diagnostic('MCPWIRE_OUTPUT_SCHEMA', message);
    return;
  }
  throw new ValidationError(message, problems, { serverId: o.serverId, phase: 'request' });
}
