/**
 * Everything that differs between protocol revisions lives in this table, so a later revision
 * (2026-07-28 exists) is an addition, not a rewrite.
 */
import { RESULT_SHAPES_2025_11_25, type ShapeTable } from './result-shapes.js';
import { TASK_RESULT_SHAPES } from './tasks.js';

export const LATEST_PROTOCOL_VERSION = '2025-11-25';

export interface RevisionFeatures {
  /** JSON-RPC batches (arrays) allowed: only 2025-03-26 (removed in 2025-06-18). */
  batching: boolean;
  /** `structuredContent` / `outputSchema` on tools (2025-06-18+). */
  structuredContent: boolean;
  /** `MCP-Protocol-Version` HTTP header required after initialize (2025-06-18+). */
  protocolVersionHeader: boolean;
  /** Streamable HTTP exists (2025-03-26+); 2024-11-05 used HTTP+SSE. */
  streamableHttp: boolean;
  /** Elicitation (2025-06-18+), URL mode (2025-11-25+). */
  elicitation: boolean;
  /** Tasks (2025-11-25+): the client may task-augment `tools/call` and send `tasks/*` (tasks.ts). */
  tasks: boolean;
  /** Task handles the server returns unasked (2026-07-28's tasks extension, eras/modern.ts): no initialize revision has them. */
  taskHandles: boolean;
  /** The shape each method's `result` must have (result-shapes.ts). */
  resultShapes: ShapeTable;
}

/** 2025-11-25 adds the task methods' result shapes (tasks/get, tasks/list, tasks/cancel). */
const SHAPES_WITH_TASKS: ShapeTable = Object.freeze({ ...RESULT_SHAPES_2025_11_25, ...TASK_RESULT_SHAPES });

export const REVISIONS: Readonly<Record<string, RevisionFeatures>> = {
  '2025-11-25': { batching: false, structuredContent: true, protocolVersionHeader: true, streamableHttp: true, elicitation: true, tasks: true, taskHandles: false, resultShapes: SHAPES_WITH_TASKS },
  '2025-06-18': { batching: false, structuredContent: true, protocolVersionHeader: true, streamableHttp: true, elicitation: true, tasks: false, taskHandles: false, resultShapes: RESULT_SHAPES_2025_11_25 },
  '2025-03-26': { batching: true, structuredContent: false, protocolVersionHeader: false, streamableHttp: true, elicitation: false, tasks: false, taskHandles: false, resultShapes: RESULT_SHAPES_2025_11_25 },
  '2024-11-05': { batching: false, structuredContent: false, protocolVersionHeader: false, streamableHttp: false, elicitation: false, tasks: false, taskHandles: false, resultShapes: RESULT_SHAPES_2025_11_25 },
};

/** Newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.keys(REVISIONS);

export function isSupportedVersion(v: unknown): v is string {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(REVISIONS, v);
}

export function features(version: string | undefined): RevisionFeatures | undefined {
  return version !== undefined && isSupportedVersion(version) ? REVISIONS[version] : undefined;
}

/**
 * The result shapes for a negotiated version; before negotiation (a `ping` while initializing)
 * the latest revision's.
 */
export function resultShapes(version: string | undefined): ShapeTable {
  return (features(version) ?? REVISIONS[LATEST_PROTOCOL_VERSION]!).resultShapes;
}

/**
 * basic.lifecycle#7: the client MUST send a protocol version it supports. Returns why `version`
 * (the `protocolVersion` option) cannot be requested, or undefined when it can.
 */
export function unsupportedRequestedVersion(version: unknown): string | undefined {
  if (version === undefined || isSupportedVersion(version) || isModernVersion(version)) return undefined;
  return (
    `protocolVersion ${JSON.stringify(version)} is not a version mcpwire supports; ` +
    `use one of ${[...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS].join(', ')} (basic.lifecycle#7)`
  );
}

/**
 * The stateless revisions (no `initialize`; `_meta` on every request; eras/modern.ts), newest
 * first. Kept apart from REVISIONS: those are what an `initialize` may negotiate.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

export function isModernVersion(v: unknown): v is string {
  return typeof v === 'string' && MODERN_PROTOCOL_VERSIONS.includes(v);
}

/** The newest of `ours` (newest first) that `theirs` also lists, or undefined. */
export function newestMutual(ours: readonly string[], theirs: readonly unknown[]): string | undefined {
  return ours.find((v) => theirs.includes(v));
}
