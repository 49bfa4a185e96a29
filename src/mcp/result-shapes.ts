/**
 * The shape each client→server request's `result` must have (schema.json: `ListToolsResult`,
 * `CallToolResult`, …), checked before a typed method hands the result on, so a malformed
 * answer (`result: null`, `tools: "x"`) is a typed ProtocolError (`MCPWIRE_BAD_RESULT`) naming
 * the server, the method and the offending value instead of a raw TypeError deeper down.
 *
 * The checks are a few `typeof`/`Array.isArray` tests per method (callTool is a hot path); the
 * full schema is the business of strict tracing (src/trace). A table per protocol revision:
 * `versions.ts` picks one per revision, so a later revision (2026-07-28) adds its own table
 * instead of editing these.
 */
import { ProtocolError } from '../errors.js';
import { excerpt } from '../jsonrpc/types.js';

/** What is wrong with a result (already known to be a non-array object), or undefined. */
export type ShapeCheck = (result: Record<string, unknown>) => string | undefined;

/** Method → check. Methods not listed only need an object result. */
export type ShapeTable = Readonly<Record<string, ShapeCheck>>;

const ok: ShapeCheck = () => undefined;

function arrayField(key: string): ShapeCheck {
  return (r) => (Array.isArray(r[key]) ? undefined : `"${key}" is not an array`);
}

const listTools = arrayField('tools');

const callTool: ShapeCheck = (r) => {
  if (!Array.isArray(r.content)) return '"content" is not an array';
  const isError = r.isError;
  if (isError !== undefined && typeof isError !== 'boolean') return '"isError" is not a boolean';
  return undefined;
};

const complete: ShapeCheck = (r) => {
  const c = r.completion as { values?: unknown } | null | undefined;
  if (c === null || typeof c !== 'object') return '"completion" is not an object';
  return Array.isArray(c.values) ? undefined : '"completion.values" is not an array';
};

/** 2024-11-05 through 2025-11-25: the same shapes for every method mcpwire calls. */
export const RESULT_SHAPES_2025_11_25: ShapeTable = Object.freeze({
  ping: ok,
  'logging/setLevel': ok,
  'resources/subscribe': ok,
  'resources/unsubscribe': ok,
  'tools/list': listTools,
  'tools/call': callTool,
  'resources/list': arrayField('resources'),
  'resources/templates/list': arrayField('resourceTemplates'),
  'resources/read': arrayField('contents'),
  'prompts/list': arrayField('prompts'),
  'prompts/get': arrayField('messages'),
  'completion/complete': complete,
});

/**
 * Returns `result` when it has the shape `method` requires in `table`; otherwise throws a
 * ProtocolError (`MCPWIRE_BAD_RESULT`) with a bounded, escaped excerpt of the value.
 */
export function checkResult<T>(table: ShapeTable, method: string, result: unknown, serverId: string | undefined): T {
  let problem: string | undefined;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    problem = 'the result is not an object';
  } else {
    const check = table[method];
    if (check !== undefined) problem = check(result as Record<string, unknown>);
  }
  if (problem === undefined) return result as T;
  throw badResult(method, problem, result, serverId);
}

function badResult(method: string, problem: string, value: unknown, serverId: string | undefined): ProtocolError {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return new ProtocolError(`${method} returned a malformed result: ${problem} (got ${excerpt(text, 200)})`, {
    serverId,
    phase: 'request',
    code: 'MCPWIRE_BAD_RESULT',
  });
}
