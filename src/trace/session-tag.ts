/**
 * What traces and telemetry show for an HTTP session id: `sha256:` and the first 8 hex digits of
 * the SHA-256 of the id. Enough to tell sessions apart and to match a known id (hash it the same
 * way); useless to resume the session (the id itself is a bearer credential).
 *
 * node:crypto is loaded on the first hash, not with the module: `import('mcpwire')` reaches this
 * file (telemetry), and loading node:crypto is a measurable share of the import.
 */
export function sessionTag(id: string): string {
  const { createHash } = process.getBuiltinModule('node:crypto');
  return `sha256:${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 8)}`;
}
