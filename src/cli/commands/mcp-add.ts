/**
 * `mcpwire mcp add <id> --transport http|sse|stdio …`: writes `mcp.servers.<id>` of one native
 * config file (project by default, `--scope global`, or `--config <file>`). Fails when the id
 * is there already unless `--replace`. Nothing it prints holds a header, env or secret value.
 *
 * Mistakes are caught here, when written: no `--url`/`--command` says which is
 * missing; `--command "npx -y pkg"` (a whole command line) is split like `--stdio` does (and
 * refused when `--arg` is given too); `--env K` (no value) stores the reference `${K}`, never the
 * secret, and says when K is not set in this shell.
 *
 * It says what it did: the file and its layer, and the trust. A server added to the project file
 * is trusted (the user wrote it); `--replace` keeps the trust when the command (transport,
 * command and args, url) is the same and drops it when that changed. The user's own files
 * (global, `--config`) are always trusted.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { addServer, projectEntryTrust, trustWrittenEntry, type WrittenTrust } from '../../host-api.js';
import { parse, splitCommandLine, UsageError } from '../args.js';
import { CONFIG_OPTIONS, pathOptions, reportFailure, secretPairs, writeTarget } from '../config-target.js';
import { printJson, safeText } from '../output.js';

const OPTIONS = {
  ...CONFIG_OPTIONS,
  transport: { type: 'string' },
  command: { type: 'string' },
  arg: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  env: { type: 'string', multiple: true },
  enabled: { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  replace: { type: 'boolean' },
  'oauth-authorization-url': { type: 'string' },
  'oauth-token-url': { type: 'string' },
  'oauth-registration-url': { type: 'string' },
  'oauth-client-id': { type: 'string' },
  'oauth-client-secret': { type: 'string' },
  'oauth-scope': { type: 'string' },
  sandbox: { type: 'boolean' },
  'sandbox-read': { type: 'string', multiple: true },
  'sandbox-write': { type: 'string', multiple: true },
  'sandbox-allow': { type: 'string', multiple: true },
  'sandbox-env': { type: 'string', multiple: true },
  /** `--from-registry <name>[@version]` (registry-add.ts) and its options. */
  'from-registry': { type: 'string' },
  registry: { type: 'string' },
  package: { type: 'string' },
  remote: { type: 'boolean' },
  set: { type: 'string', multiple: true },
} as const;

/** The parsed options of `mcp add`. */
export type AddValues = ReturnType<typeof parse<typeof OPTIONS>>['values'];

const USAGE = 'usage: mcpwire mcp add <id> --url <url> [--transport http|sse] … | --command <cmd> [--arg <value>]… (see mcpwire mcp --help)';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export default async function mcpAdd(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const [id, extra] = positionals;
    if (values['from-registry'] !== undefined) {
      if (extra !== undefined) throw new UsageError('unexpected extra argument after <id>');
      return (await import('../registry-add.js')).addFromRegistry(id, values['from-registry'], values);
    }
    for (const k of ['registry', 'package', 'remote', 'set'] as const) if (values[k] !== undefined) throw new UsageError(`--${k} goes with --from-registry <name>`);
    if (!id) throw new UsageError(USAGE);
    if (extra !== undefined) throw new UsageError('unexpected extra argument after <id> (give server arguments with --arg <value>, one per argument)');
    if (values.stdio !== undefined) throw new UsageError('--stdio is for ad-hoc servers; use --command <cmd> [--arg <value>]…');
    if (values.transport === undefined && values.url === undefined && values.command === undefined) {
      throw new UsageError(`mcp add ${id}: say where the server is: --url <url> (an HTTP server) or --command <cmd> (a stdio server the CLI starts)`);
    }
    const transport = values.transport ?? (values.url !== undefined && values.command === undefined ? 'http' : values.command !== undefined && values.url === undefined ? 'stdio' : undefined);
    if (transport === undefined) throw new UsageError('give either --url (HTTP) or --command (stdio), not both');
    if (transport !== 'http' && transport !== 'sse' && transport !== 'stdio') {
      throw new UsageError('--transport must be "http" (streamable HTTP), "sse" (the legacy HTTP+SSE transport) or "stdio"');
    }
    const entry: Record<string, unknown> = { transport };
    if (values.enabled !== undefined) {
      if (values.enabled !== 'true' && values.enabled !== 'false') throw new UsageError('--enabled must be true or false');
      entry.enabled = values.enabled === 'true';
    }
    const misplaced = (names: string[]) => names.filter((n) => (values as Record<string, unknown>)[n] !== undefined);
    let note: string | undefined;
    if (transport === 'http' || transport === 'sse') {
      const wrong = misplaced(['command', 'arg', 'cwd', 'env', 'sandbox', 'sandbox-read', 'sandbox-write', 'sandbox-allow', 'sandbox-env']);
      if (wrong.length) throw new UsageError(`--${wrong[0]} is for a stdio server (--command); an HTTP server takes --url and --header`);
      if (values.url === undefined) throw new UsageError(`--transport ${transport} needs --url <url>`);
      entry.url = values.url;
      const headers = secretPairs(values.header, '--header');
      if (Object.keys(headers).length) entry.headers = headers;
      const oauth: Record<string, string> = {};
      for (const k of ['authorization-url', 'token-url', 'registration-url', 'client-id', 'client-secret', 'scope'] as const) {
        const v = values[`oauth-${k}`];
        if (v !== undefined) oauth[k.replace('-', '_')] = v;
      }
      if (Object.keys(oauth).length) entry.oauth = oauth;
    } else {
      const wrong = misplaced(['url', 'header', 'oauth-authorization-url', 'oauth-token-url', 'oauth-registration-url', 'oauth-client-id', 'oauth-client-secret', 'oauth-scope']);
      if (wrong.length) throw new UsageError(`--${wrong[0]} is for an HTTP server (--url)`);
      if (values.command === undefined) throw new UsageError('--transport stdio needs --command <cmd> (arguments with --arg, one per argument)');
      const { command, args, split } = commandOf(values.command, values.arg ?? []);
      entry.command = command;
      if (args.length) entry.args = args;
      if (split) note = `note: split --command into the program "${command}" and ${args.length} argument${args.length === 1 ? '' : 's'}`;
      if (values.cwd !== undefined) entry.cwd = values.cwd;
      const env = envEntries(values.env ?? []);
      if (Object.keys(env).length) entry.env = env;
      const sandbox = sandboxEntry(values);
      if (sandbox !== undefined) entry.sandbox = sandbox;
    }
    if (values['request-timeout-ms'] !== undefined) {
      const n = Number(values['request-timeout-ms']);
      if (!Number.isInteger(n) || n <= 0) throw new UsageError('--request-timeout-ms must be a positive integer');
      entry.request_timeout_ms = n;
    }
    const written = await writeEntry(id, entry, values);
    report({ id, transport, note, json: values.json === true, ...written });
    return 0;
  } catch (err) {
    if (err instanceof Error && err.message.endsWith('(use replace to overwrite)')) err.message = err.message.replace('(use replace to overwrite)', '(use --replace to overwrite)');
    return reportFailure(err);
  }
}

/**
 * `--sandbox` (the defaults) and the grants that imply it: `--sandbox-read/-write <dir>` (made
 * absolute here), `--sandbox-allow <host>`, `--sandbox-env <NAME>` (docs/sandbox.md).
 */
function sandboxEntry(values: { sandbox?: boolean; 'sandbox-read'?: string[]; 'sandbox-write'?: string[]; 'sandbox-allow'?: string[]; 'sandbox-env'?: string[] }): Record<string, unknown> | undefined {
  const read = (values['sandbox-read'] ?? []).map((p) => path.resolve(p));
  const write = (values['sandbox-write'] ?? []).map((p) => path.resolve(p));
  const allow = values['sandbox-allow'] ?? [];
  const env = values['sandbox-env'] ?? [];
  if (values.sandbox !== true && read.length + write.length + allow.length + env.length === 0) return undefined;
  for (const n of env) if (!ENV_NAME.test(n)) throw new UsageError(`--sandbox-env takes a variable name, not "${safeText(n, 40)}"`);
  const out: Record<string, unknown> = {};
  if (read.length + write.length > 0) out.filesystem = { ...(read.length ? { read } : {}), ...(write.length ? { write } : {}) };
  if (allow.length > 0) out.network = { allow };
  if (env.length > 0) out.env = env;
  return out;
}

/** What writing an entry did: replaced or added, unset references, the trust, the file. */
export interface Written {
  replaced: boolean;
  unset: string[];
  trust: WrittenTrust | 'own';
  target: { file: string; scope: string; label: string };
}

/**
 * Writes `entry` as server `id` in the file of `--scope`/`--config` (the host's config writer)
 * and records its trust: a project entry the user added is trusted; a replaced one keeps its
 * trust only when it runs the same command. Shared with `mcp add --from-registry` and `mcp update`.
 */
export async function writeEntry(id: string, entry: Record<string, unknown>, flags: { config?: string; scope?: string; replace?: boolean }): Promise<Written> {
  const target = writeTarget(flags);
  // The project file: what the store says of the entry before it is replaced (its trust is kept only for the same command).
  const project = flags.config === undefined && target.scope === 'project';
  const before = project && flags.replace === true ? await projectEntryTrust('.', id, pathOptions()) : undefined;
  const { replaced, unset } = await addServer(target.file, id, entry, { replace: flags.replace === true });
  let trust: WrittenTrust | 'own' = 'own';
  if (project) {
    try {
      trust = await trustWrittenEntry('.', id, replaced, before, pathOptions());
    } catch (err) {
      // The entry is written; only its trust could not be recorded (an invalid trust store).
      trust = 'untrusted';
      process.stderr.write(`mcpwire: note: the trust of "${id}" was not recorded: ${safeText((err as Error).message, 500)}\n`);
    }
  }
  return { replaced, unset, trust, target };
}

/** What the trust of the written entry is, in words (`own`: the user's own file, always trusted). */
export const TRUST_WORDS: Record<WrittenTrust | 'own', string> = {
  own: 'trusted (your own config file)',
  added: 'trusted (you added it; a later change by anyone else asks again)',
  kept: 'still trusted (the same command)',
  dropped: 'not trusted: the command changed; run `mcpwire trust` to allow it to start',
  untrusted: 'not trusted (it was not before); run `mcpwire trust` to allow it to start',
};

interface Added {
  id: string;
  transport: string;
  replaced: boolean;
  unset: string[];
  note: string | undefined;
  trust: WrittenTrust | 'own';
  target: { file: string; scope: string; label: string };
  json: boolean;
}

/** Says what was done: the file written and its layer, and whether the entry may start (trust). */
function report(a: Added): void {
  const trusted = a.trust === 'own' || a.trust === 'added' || a.trust === 'kept';
  // `unset_variables`: only when a `${VAR}` written is not set in this shell.
  if (a.json) {
    printJson({ id: a.id, scope: a.target.scope, file: a.target.file, transport: a.transport, replaced: a.replaced, trusted, ...(a.unset.length ? { unset_variables: a.unset } : {}) });
    return;
  }
  process.stdout.write(`${a.replaced ? 'replaced' : 'added'} server "${a.id}" (${a.transport}) in ${a.target.label} ${a.target.file}; ${TRUST_WORDS[a.trust]}\n`);
  if (a.note !== undefined) process.stderr.write(`mcpwire: ${a.note}\n`);
  for (const name of a.unset) {
    process.stderr.write(`mcpwire: note: "${name}" is not set in this shell; "${a.id}" stays disabled until it is set where mcpwire runs\n`);
  }
}

/**
 * `--command` as given: one program, or a whole command line (`"npx -y pkg"`), which is split
 * like `--stdio` does — unless it names an existing file (a path with spaces), or `--arg` is
 * given too (then which words are arguments is ambiguous: refused, showing the `--arg` form).
 */
function commandOf(raw: string, argList: string[]): { command: string; args: string[]; split: boolean } {
  if (!/\s/.test(raw.trim()) || existsSync(raw)) return { command: raw, args: argList, split: false };
  const words = splitCommandLine(raw);
  if (words.length === 0) throw new UsageError('--command is empty');
  if (words.length === 1) return { command: words[0], args: argList, split: false };
  if (argList.length > 0) {
    const form = [...words.slice(1), ...argList].map((w) => `--arg${w.startsWith('-') ? '=' : ' '}${/[\s'"\\$]/.test(w) ? `'${w.replace(/'/g, `'\\''`)}'` : w}`);
    throw new UsageError(`--command holds a whole command line and --arg is given too: give the program alone, each argument with --arg (--command ${words[0]} ${form.join(' ')})`);
  }
  return { command: words[0], args: words.slice(1), split: true };
}

/**
 * `--env K=V` stores the value; `--env K` stores the reference `${K}` (expanded from the
 * environment when the server starts, never written back). Errors never echo a value.
 */
function envEntries(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  list.forEach((item, n) => {
    const eq = item.indexOf('=');
    if (eq < 0) {
      if (!ENV_NAME.test(item)) throw new UsageError(`--env must look like NAME=value or NAME (occurrence ${n + 1} is not a variable name)`);
      out[item] = `\${${item}}`;
      return;
    }
    if (eq === 0) throw new UsageError(`--env must look like NAME=value or NAME (occurrence ${n + 1} has no name before "=")`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  });
  return out;
}
