#!/usr/bin/env node
/**
 * `mcpwire` entry point: dispatches `mcpwire <command> …` to `./commands/<command>.js`, each
 * exporting `default async function (argv: string[]): Promise<number>` (the exit code).
 * Commands are loaded lazily so `mcpwire --help` stays fast.
 */
const COMMANDS: Record<string, { file: string; summary: string }> = {
  mcp: { file: './commands/mcp.js', summary: 'configure servers: mcp add|list|remove|enable|disable|test' },
  status: { file: './commands/status.js', summary: 'connect the configured servers and show their state' },
  tools: { file: './commands/tools.js', summary: 'list the tools of the configured servers (or of --stdio/--url)' },
  call: { file: './commands/call.js', summary: 'call a tool and print its CallToolResult: call <id> <tool>' },
  read: { file: './commands/read.js', summary: 'read a resource: read <id> <uri>' },
  prompt: { file: './commands/prompt.js', summary: 'get a prompt: prompt <id> <name> [--args <json>]' },
  login: { file: './commands/login.js', summary: 'authorize an HTTP server with OAuth: login <id> [--no-browser]' },
  logout: { file: './commands/logout.js', summary: "revoke and forget an HTTP server's OAuth tokens: logout <id>" },
  auth: { file: './commands/auth.js', summary: 'show the stored OAuth state of each server: auth status [<id>] [--json]' },
  trust: { file: './commands/trust.js', summary: "allow a project's servers to start: trust [<dir>] | --list | --revoke [<dir>]" },
  untrust: { file: './commands/untrust.js', summary: 'forget a trusted project: untrust [<dir>]' },
  demo: { file: './commands/demo.js', summary: 'run the demo against the bundled mock server' },
  check: { file: './commands/check.js', summary: "check a server's conformance to the spec" },
  trace: { file: './commands/trace.js', summary: 'read a trace: trace show|stats|html <file>' },
  'conformance-client': {
    file: './commands/conformance-client.js',
    summary: 'act as the client under test for the official conformance suite',
  },
};

/** Registers a command (used by modules that add commands; keeps this file the one index). */
export function commandNames(): string[] {
  return Object.keys(COMMANDS);
}

function usage(): string {
  const rows = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(20)} ${c.summary}`);
  return [
    'usage: mcpwire [global options] <command> [options]',
    '',
    'commands:',
    ...rows,
    '',
    'global options: --stdio "<command line>" | --url <url>, --timeout-ms <ms>, --json, --trace <file>',
    'config:         --config <file> (one native config file instead of the layers), --imports (also read .mcp.json,',
    '                .cursor/mcp.json, .vscode/mcp.json, Claude Desktop); see docs/cli.md',
  ].join('\n');
}

/** Finds the command word: the first argument that is not an option or an option's value. */
export function splitCommand(argv: string[]): { command?: string; rest: string[] } {
  const valued = new Set(['--stdio', '--url', '--timeout-ms', '--trace', '--config', '--header', '--only', '--slow-tool', '--slow-tool-args', '--args', '--scope',
    '--transport', '--command', '--arg', '--cwd', '--env', '--enabled', '--request-timeout-ms', '--oauth-authorization-url', '--oauth-token-url',
    '--oauth-registration-url', '--oauth-client-id', '--oauth-client-secret', '--oauth-scope']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      if (valued.has(a)) i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (COMMANDS[a]) return { command: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
    return { command: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { rest: argv };
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--version')) {
    const { createRequire } = await import('node:module');
    const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const { command, rest } = splitCommand(argv);
  if (!command) {
    const asked = argv.includes('--help') || argv.includes('-h');
    (asked ? process.stdout : process.stderr).write(`${usage()}\n`);
    return asked ? 0 : 2;
  }
  const entry = COMMANDS[command];
  if (!entry) {
    process.stderr.write(`mcpwire: unknown command "${command}"\n${usage()}\n`);
    return 2;
  }
  const mod = (await import(entry.file)) as { default: (argv: string[]) => Promise<number> };
  return mod.default(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`mcpwire: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
