/**
 * `mcpwire mcp <add|list|remove|enable|disable|test> …`: editing and checking the configured
 * servers. Dispatches to `./mcp-<subcommand>.js`, loaded lazily.
 */
const SUBCOMMANDS: Record<string, { file: string; usage: string }> = {
  add: {
    file: './mcp-add.js',
    usage:
      'mcp add <id> --transport http --url <url> [--header k=v]… [--oauth-authorization-url <url>] [--oauth-token-url <url>]\n' +
      '        [--oauth-registration-url <url>] [--oauth-client-id <id>] [--oauth-client-secret <secret>] [--oauth-scope <scope>]\n' +
      '    mcpwire mcp add <id> --transport stdio --command <cmd> [--arg <value>]… [--cwd <dir>] [--env k=v]…\n' +
      '        [--sandbox] [--sandbox-read <dir>]… [--sandbox-write <dir>]… [--sandbox-allow <host>]… [--sandbox-env <NAME>]…\n' +
      '    mcpwire mcp add [<id>] --from-registry <name>[@version] [--package npm|pypi|oci|nuget|mcpb | --remote] [--set <KEY>=<VALUE>]… [--registry <url>]\n' +
      '        common: [--scope project|global] [--replace] [--enabled true|false] [--request-timeout-ms <ms>]',
  },
  list: { file: './mcp-list.js', usage: 'mcp list [--scope effective|project|global] [--imports]' },
  remove: { file: './mcp-remove.js', usage: 'mcp remove <id> [--scope project|global]' },
  enable: { file: './mcp-enable.js', usage: 'mcp enable <id> [--scope project|global]' },
  disable: { file: './mcp-disable.js', usage: 'mcp disable <id> [--scope project|global]' },
  test: { file: './mcp-test.js', usage: 'mcp test <id> [--scope effective|project|global] [--imports]' },
  update: { file: './mcp-update.js', usage: 'mcp update <id> [--to <version>] [--yes]   (an entry added with --from-registry: show what changes; --yes writes it)' },
};

/** Options that take a value (so the subcommand word is not mistaken for one). */
const VALUED = new Set([
  '--stdio', '--url', '--header', '--timeout-ms', '--trace', '--config', '--scope', '--transport', '--command', '--arg', '--cwd', '--env',
  '--enabled', '--request-timeout-ms', '--oauth-authorization-url', '--oauth-token-url', '--oauth-registration-url', '--oauth-client-id',
  '--oauth-client-secret', '--oauth-scope', '--sandbox-read', '--sandbox-write', '--sandbox-allow', '--sandbox-env', '--from-registry', '--registry', '--package', '--set', '--to',
]);

function usage(): string {
  return ['usage:', ...Object.values(SUBCOMMANDS).map((s) => `    mcpwire ${s.usage}`), '', 'options for every subcommand: --config <file> (one native config file instead of the layers), --json'].join('\n');
}

/** The first argument that is neither an option nor an option's value, and the rest. */
export function splitSubcommand(argv: string[], valued: ReadonlySet<string> = VALUED): { word?: string; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (valued.has(a)) i++;
      continue;
    }
    return { word: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { rest: argv };
}

export default async function mcp(argv: string[]): Promise<number> {
  const { word, rest } = splitSubcommand(argv);
  if (word === undefined) {
    const help = argv.includes('--help') || argv.includes('-h');
    (help ? process.stdout : process.stderr).write(`${usage()}\n`);
    return help ? 0 : 2;
  }
  const sub = SUBCOMMANDS[word];
  if (sub === undefined) {
    process.stderr.write(`mcpwire: unknown subcommand "mcp ${word.replace(/[^\x20-\x7e]/g, '?').slice(0, 40)}"\n${usage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`usage: mcpwire ${sub.usage}\n`);
    return 0;
  }
  const mod = (await import(sub.file)) as { default: (argv: string[]) => Promise<number> };
  return mod.default(rest);
}
