/**
 * The protocol revisions `mcpwire check` knows, by era, and which of them a check applies to.
 */
import { isModernVersion, LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/versions.js';

/** The protocol era a run checks: `handshake` (≤ 2025-11-25, initialize) or `modern` (2026-07-28, stateless). */
export type Era = 'handshake' | 'modern';

/** Every version mcpwire speaks, newest first. */
export const SPOKEN_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The revisions of the 2026-07-28 era (what the modern checks apply to), newest first. */
export const MODERN_REVISIONS: readonly string[] = MODERN_PROTOCOL_VERSIONS;

/** The version a handshake-era client offers first. */
export const NEWEST_HANDSHAKE: string = LATEST_PROTOCOL_VERSION;

/** The revisions of the handshake era (what the checks of 2025-11-25 and before apply to). */
export const HANDSHAKE_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** Whether a check of `revisions` applies to a run at `version` in `era`. */
export function applies(revisions: readonly string[], era: Era, version: string | undefined): boolean {
  if (version !== undefined) return revisions.includes(version);
  return era === 'modern' ? revisions.some((r) => isModernVersion(r)) : revisions.some((r) => !isModernVersion(r));
}
