/**
 * Configured servers for the CLI: which config files a command reads (`--config <file>`, or the
 * native layers — global and project — plus the import files only with `--imports`), config
 * diagnostics as warnings on stderr, the file a `mcp add/remove/enable/disable` writes, and the
 * secret scrubbing every config-based command applies to what it prints about a server.
 *
 * Import files (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`, Claude Desktop) can launch
 * arbitrary commands from a cloned repository, so they are read only when asked for; and a
 * project's servers (native or imported) start only once the user has run `mcpwire trust`
 * (the library's `trust: 'ask'`). A `--config <file>` named on the command line is trusted.
 */
import { readFile } from 'node:fs/promises';
import { configSecrets, isMcpWireError } from '../index.js';
import { Redactor, REDACTED } from '../trace-api.js';
import {
  configPathForScope,
  defaultImportFiles,
  loadConfig,
  nativeFile,
  nativeLayer,
  projectRealPath,
  readTrustStore,
  resolveConfig,
  trustStorePath,
  untrustedHint,
  type ConfigDiagnostic,
  type ConfigLoadResult,
  type HostAuthOptions,
  type ResolveConfigOptions,
  type ResolvedServer,
  type Scope,
} from '../host-api.js';
import { UsageError } from './args.js';
import { safeText } from './output.js';
import { loginHint } from './login-hint.js';
import { serverOutputOf } from './server-output.js';
import { perRun } from './run-state.js';

/** A failure to report on stderr with exit code 1 (not a usage error). */
export class CliFailure extends Error {}

/** The flags config-based commands share. */
export interface ConfigFlags {
  config?: string;
  imports?: boolean;
  scope?: string;
}

/** Which servers a command sees: the merged layers, or one native layer. */
export type ConfigView = 'effective' | Scope;

/** Own options of every config-based command (add to a command's `parse` options). */
export const CONFIG_OPTIONS = {
  imports: { type: 'boolean' },
  scope: { type: 'string' },
} as const;

/** The path environment of this process (cwd, env; the home directory from the OS). */
export function pathOptions(): { cwd: string; env: NodeJS.ProcessEnv } {
  return { cwd: process.cwd(), env: process.env };
}

/** Parses `--scope`, checking it against the values this command accepts. */
export function parseScope<T extends string>(flags: ConfigFlags, allowed: readonly T[], fallback: T): T {
  if (flags.scope === undefined) return fallback;
  if (flags.config !== undefined) throw new UsageError('--scope and --config exclude each other (--config names the one file to use)');
  if (!(allowed as readonly string[]).includes(flags.scope)) throw new UsageError(`--scope must be one of ${allowed.join(', ')} (got "${safeText(flags.scope, 40)}")`);
  return flags.scope as T;
}

/** The config's `mcp.store` of the command's config (set by `loadView`). */
let configuredStore: string | undefined;
perRun(() => {
  configuredStore = undefined;
});

/**
 * The host's OAuth options for this command: the token store the config names (`mcp.store`;
 * `MCPWIRE_STORE` wins over it), so that `login`, `logout`, `auth status` and every command
 * that sends tokens use the same store.
 */
export function cliAuth(): HostAuthOptions {
  return configuredStore !== undefined ? { storeSetting: configuredStore } : {};
}

/** Reads the servers of `view` (or of `--config <file>`), printing diagnostics to stderr. */
export async function loadView(flags: ConfigFlags, view: ConfigView = 'effective'): Promise<ConfigLoadResult> {
  let result: ConfigLoadResult;
  if (flags.config !== undefined) {
    result = await loadSingleFile(flags.config, 'project', true);
  } else if (view === 'effective') {
    result = await loadConfig({ ...pathOptions(), imports: flags.imports === true });
  } else {
    result = await loadSingleFile(nativeFile(configPathForScope(view, pathOptions())), view);
  }
  printDiagnostics(result.diagnostics);
  // the effective store: a single-scope view (`--scope project`) never picks one
  if (view === 'effective' || flags.config !== undefined) configuredStore = result.host?.store;
  return result;
}

/**
 * One native file as a layer of its own (a missing file is an empty config). `named`: the user
 * named it (`--config`), so it is trusted; the project file itself goes through the trust store.
 */
async function loadSingleFile(file: string, scope: Scope, named = false): Promise<ConfigLoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { servers: [], diagnostics: [] };
    const label = scope === 'project' ? 'project config' : 'global config';
    return { servers: [], diagnostics: [{ severity: 'error', source: scope, file, message: `${label} ${file}: cannot be read (${code ?? 'error'})` }] };
  }
  const trust: ResolveConfigOptions = {};
  const extra: ConfigDiagnostic[] = [];
  if (scope === 'project' && !named) {
    const store = trustStorePath(pathOptions());
    const { data, error } = await readTrustStore(store);
    if (error !== undefined) extra.push({ severity: 'error', source: 'global', file: store, message: error });
    trust.trustStore = data;
    trust.projectDir = await projectRealPath(process.cwd());
  }
  // YAML (`.yaml`/`.yml`) is converted to JSON text first; `--config` may name either.
  const layer = await nativeLayer(scope, file, text);
  const result = resolveConfig([{ ...layer, project: scope === 'project' && !named }], { ...pathOptions(), ...trust });
  result.diagnostics.unshift(...extra);
  // A `{ "enabled": false }` stub is an override of a lower layer; seen alone it is not a problem.
  // Its host-wide settings (`mcp.max_parallel`, `mcp.serve_names`…) come with it.
  return { servers: result.servers, diagnostics: result.diagnostics.filter((d) => !/disables a server that no lower layer defines$/.test(d.message)), ...(result.host !== undefined ? { host: result.host } : {}) };
}

/** Config diagnostics go to stderr as warnings; they name file, server and field, never values. */
export function printDiagnostics(diagnostics: readonly ConfigDiagnostic[]): void {
  for (const d of diagnostics) process.stderr.write(`mcpwire: ${d.severity === 'error' ? 'config error' : 'warning'}: ${safeText(d.message, 1000)}\n`);
}

/** The import files that exist but were not read (no `--imports`), for a hint. */
export async function skippedImports(flags: ConfigFlags): Promise<string[]> {
  if (flags.imports === true || flags.config !== undefined) return [];
  const out: string[] = [];
  for (const f of defaultImportFiles(pathOptions())) {
    try {
      await readFile(f.path);
      out.push(f.path);
    } catch {
      // not there: nothing to mention
    }
  }
  return out;
}

/**
 * The native file a write goes to: `--config <file>`, or the scope's file (its `.yaml`/`.yml`
 * sibling when that exists instead of `config.json`).
 */
export function writeTarget(flags: ConfigFlags): { file: string; scope: Scope; label: string } {
  if (flags.config !== undefined && flags.scope !== undefined) throw new UsageError('--scope and --config exclude each other (--config names the one file to use)');
  if (flags.config !== undefined) return { file: flags.config, scope: 'project', label: 'config file' };
  const scope = parseScope<Scope>(flags, ['project', 'global'], 'project');
  return { file: nativeFile(configPathForScope(scope, pathOptions())), scope, label: `${scope} config` };
}

/** Finds server `id` or fails naming the ids that exist. */
export function findServer(result: ConfigLoadResult, id: string): ResolvedServer {
  const server = result.servers.find((s) => s.id === id);
  if (server !== undefined) return server;
  const known = result.servers.map((s) => s.id);
  throw new CliFailure(`unknown server "${safeText(id, 64)}"${known.length ? ` (configured: ${known.join(', ')})` : ' (no MCP servers configured)'}`);
}

/** Every configured secret value: env values, header values, OAuth client secrets. */
export function secretsOf(servers: readonly ResolvedServer[]): string[] {
  const out = new Set<string>();
  for (const s of servers) {
    // env and header values, and the URL's credentials (user info, credential-like query values)
    for (const v of configSecrets({ env: s.config.env, headers: s.config.headers, url: s.config.url, secretNames: s.config.secretNames })) out.add(v);
    if (s.config.oauth?.clientSecret) out.add(s.config.oauth.clientSecret);
    if (s.config.oauth?.enterprise?.clientSecret) out.add(s.config.oauth.enterprise.clientSecret);
  }
  return [...out];
}

/** The credentials in the store's URL (`mcp.store`, `MCPWIRE_STORE`): never printed. */
function storeSecrets(): string[] {
  const out: string[] = [];
  for (const v of [configuredStore, process.env.MCPWIRE_STORE]) {
    if (v === undefined || v === '') continue;
    try {
      const pass = decodeURIComponent(new URL(v).password);
      if (pass !== '') out.push(pass, v);
    } catch {
      // not a URL: nothing in it to hide
    }
  }
  return out;
}

/** A function that replaces the configured secrets (and credential-looking text) in a string. */
export function scrubber(servers: readonly ResolvedServer[]): (s: string) => string {
  const r = new Redactor({ secrets: [...secretsOf(servers), ...storeSecrets()] });
  return (s) => r.redactString(s);
}

/** Prints an error like `reportError`, with the configured secrets scrubbed out. Returns the exit code. */
export function reportFailure(err: unknown, scrub: (s: string) => string = (s) => s): number {
  const msg = err instanceof Error ? err.message : String(err);
  const code = isMcpWireError(err) ? ` (${err.code})` : '';
  const printed = serverOutputOf(err);
  process.stderr.write(`mcpwire: ${scrub(msg)}${code}${loginHint(err)}\n${printed === undefined ? '' : `${scrub(printed)}\n`}`);
  return err instanceof UsageError ? 2 : 1;
}

/** A URL with its credentials (user info, credential-looking query values) hidden. */
export function displayUrl(url: string, scrub: (s: string) => string): string {
  let out = url;
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = u.username ? 'redacted' : '';
      u.password = u.password ? 'redacted' : '';
    }
    out = u.href;
  } catch {
    // shown as written (scrubbed below)
  }
  return scrub(out);
}

/** `{ name: "[redacted]" }` for every key of a record of secrets. */
export function redactedValues(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(record).map((k) => [k, REDACTED]));
}

/** Checks that a server can be used by a command that talks to it (`call`, `read`, `prompt`). */
export function usableServer(server: ResolvedServer): void {
  if (server.error !== undefined) throw new CliFailure(`server "${server.id}" has an invalid configuration: ${server.error}`);
  if (!server.enabled) throw new CliFailure(`server "${server.id}" is disabled (enable it with "mcpwire mcp enable ${server.id}")`);
  if (server.untrusted !== undefined) throw new CliFailure(`server "${server.id}": ${untrustedHint(server)}`);
}

/** `k=v` pairs from repeated options; unlike `keyValues`, an error never echoes the text (it may be a secret). */
export function secretPairs(list: string[] | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  (list ?? []).forEach((kv, n) => {
    // `--header "Authorization: Bearer x"`: the HTTP form, as the global --header takes it.
    const colon = what === '--header' ? kv.indexOf(':') : -1;
    const eq = kv.indexOf('=');
    if (colon > 0 && (eq < 0 || colon < eq)) {
      out[kv.slice(0, colon).trim()] = kv.slice(colon + 1).trim();
      return;
    }
    const i = eq;
    if (i <= 0) throw new UsageError(`${what} must look like name=value (occurrence ${n + 1} has no name before "=")`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  });
  return out;
}
