/**
 * `mcpwire/serve` — the host as one MCP server (gateway): `serveStdio(config)` answers one
 * client on this process's stdin/stdout, `serveHttp(config, { listen })` any number over
 * Streamable HTTP. A separate entry point, like `mcpwire/host`, so `import('mcpwire')` stays light.
 */
export * from './serve/index.js';
