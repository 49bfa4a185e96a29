/**
 * `mcpwire/registry` — the MCP Registry: search a registry (`/v0.1/servers`), fetch a server.json
 * and validate it against the published schema, and turn one of its packages or remotes into a
 * native config entry (pinned version, secrets as `${VAR}` references, provenance recorded).
 * A separate door so that `import('mcpwire')` does not load ajv.
 */
export * from './registry/index.js';
