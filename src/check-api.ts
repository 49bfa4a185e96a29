/**
 * `mcpwire/check` — the server conformance runner behind `mcpwire check`: run the battery of
 * spec checks against a server config, render the report, decide the exit code. A separate
 * entry point so that `import('mcpwire')` does not load undici and ajv.
 */
export * from './check/index.js';
