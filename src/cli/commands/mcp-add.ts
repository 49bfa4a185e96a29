/**
 * `mcpwire mcp add <id> --transport http|stdio …`: writes `mcp.servers.<id>` of one native
 * config file (project by default, `--scope global`, or `--config <file>`). Fails when the id
 * is there already unless `--replace`. Nothing it prints holds a header, env or secret value.
 */
import { addServer } from '../../host-api.js';
import { parse, UsageError } from '../args.js';
import { CONFIG_OPTIONS, reportFailure, secretPairs, writeTarget } from '../config-target.js';
import { printJson } from '../output.js';

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
} as const;

const USAGE = 'usage: mcpwire mcp add <id> --transport http --url <url> … | --transport stdio --command <cmd> … (see mcpwire mcp --help)';

export default async function mcpAdd(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const [id, extra] = positionals;
    if (!id) throw new UsageError(USAGE);
    if (extra !== undefined) throw new UsageError('unexpected extra argument after <id> (give server arguments with --arg <value>, one per argument)');
    if (values.stdio !== undefined) throw new UsageError('--stdio is for ad-hoc servers; use --transport stdio --command <cmd> [--arg <value>]…');
    const transport = values.transport ?? (values.url !== undefined && values.command === undefined ? 'http' : values.command !== undefined && values.url === undefined ? 'stdio' : undefined);
    if (transport !== 'http' && transport !== 'stdio') throw new UsageError('--transport must be "http" or "stdio"');
    const entry: Record<string, unknown> = { transport };
    if (values.enabled !== undefined) {
      if (values.enabled !== 'true' && values.enabled !== 'false') throw new UsageError('--enabled must be true or false');
      entry.enabled = values.enabled === 'true';
    }
    const misplaced = (names: string[]) => names.filter((n) => (values as Record<string, unknown>)[n] !== undefined);
    if (transport === 'http') {
      const wrong = misplaced(['command', 'arg', 'cwd', 'env']);
      if (wrong.length) throw new UsageError(`--${wrong[0]} is for --transport stdio`);
      if (values.url === undefined) throw new UsageError('--transport http needs --url <url>');
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
      if (wrong.length) throw new UsageError(`--${wrong[0]} is for --transport http`);
      if (values.command === undefined) throw new UsageError('--transport stdio needs --command <cmd> (arguments with --arg, one per argument)');
      entry.command = values.command;
      if (values.arg?.length) entry.args = values.arg;
      if (values.cwd !== undefined) entry.cwd = values.cwd;
      const env = secretPairs(values.env, '--env');
      if (Object.keys(env).length) entry.env = env;
    }
    if (values['request-timeout-ms'] !== undefined) {
      const n = Number(values['request-timeout-ms']);
      if (!Number.isInteger(n) || n <= 0) throw new UsageError('--request-timeout-ms must be a positive integer');
      entry.request_timeout_ms = n;
    }
    const target = writeTarget(values);
    const { replaced } = await addServer(target.file, id, entry, { replace: values.replace === true });
    if (values.json) printJson({ id, scope: target.scope, file: target.file, transport, replaced });
    else process.stdout.write(`${replaced ? 'replaced' : 'added'} server "${id}" (${transport}) in ${target.label} ${target.file}\n`);
    return 0;
  } catch (err) {
    if (err instanceof Error && err.message.endsWith('(use replace to overwrite)')) err.message = err.message.replace('(use replace to overwrite)', '(use --replace to overwrite)');
    return reportFailure(err);
  }
}
