/**
 * Everything that differs between protocol revisions lives in this table, so a later revision
 * (2026-07-28 exists) is an addition, not a rewrite.
 */

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
  /** Tasks (2025-11-25+). */
  tasks: boolean;
}

export const REVISIONS: Readonly<Record<string, RevisionFeatures>> = {
  '2025-11-25': { batching: false, structuredContent: true, protocolVersionHeader: true, streamableHttp: true, elicitation: true, tasks: true },
  '2025-06-18': { batching: false, structuredContent: true, protocolVersionHeader: true, streamableHttp: true, elicitation: true, tasks: false },
  '2025-03-26': { batching: true, structuredContent: false, protocolVersionHeader: false, streamableHttp: true, elicitation: false, tasks: false },
  '2024-11-05': { batching: false, structuredContent: false, protocolVersionHeader: false, streamableHttp: false, elicitation: false, tasks: false },
};

/** Newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.keys(REVISIONS);

export function isSupportedVersion(v: unknown): v is string {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(REVISIONS, v);
}

export function features(version: string | undefined): RevisionFeatures | undefined {
  return version !== undefined && isSupportedVersion(version) ? REVISIONS[version] : undefined;
}
