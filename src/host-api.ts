/**
 * `mcpwire/host` — the multi-server host: layered configuration (native, Claude/Cursor/VS Code
 * imports), the supervisor (`createHost`), the tool adapter and the permission hook. A separate
 * entry point so that `import('mcpwire')` does not load zod and ajv for programs that only need
 * one client.
 *
 * ```ts
 * import { loadConfig, createHost } from 'mcpwire/host';
 * const { servers, diagnostics } = loadConfig({ cwd: process.cwd() });
 * const host = createHost(servers, { permission: async (req) => ask(req) ? 'allow' : 'deny' });
 * await host.start();
 * ```
 */
export * from './host/index.js';
/** The one JSON Schema module's validator (the CLI checks typed tool arguments with it before a call). */
export { validateValue, type SchemaCheck, type SchemaProblem } from './schema/index.js';
