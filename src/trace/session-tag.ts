/**
 * What traces and telemetry show for an HTTP session id: `sha256:` and the first 8 hex digits of
 * the SHA-256 of the id. Enough to tell sessions apart and to match a known id (hash it the same
 * way); useless to resume the session (the id itself is a bearer credential).
 */
import { createHash } from 'node:crypto';

export function sessionTag(id: string): string {
  return `sha256:${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 8)}`;
}
