/**
 * One `mcpwire <command> …` run: dispatches to `./commands/<command>.js`, each exporting
 * `default async function (argv: string[]): Promise<number>` (the exit code). Commands are loaded
 * lazily so `mcpwire --help` stays fast. `main.ts` is the process around it (the bin); a run in a
 * process that outlives it (the suite's in-process runner, test/support/cli-in-process.ts) starts
 * from the state a fresh process has: see `./run-state.ts`.
 */
import { newRun } from './run-state.js';

const COMMANDS: Record<string, { file: string; summary: string }> = {
  mcp: { file: './commands/mcp.js', summary: 'configure servers: mcp add|list|remove|enable|disable|test|update' },
  registry: { file: './commands/registry.js', summary: 'find servers in an MCP registry: registry search <words> | show <name>[@version]' },
  status: { file: './commands/status.js', summary: 'connect the configured servers and show their state' },
  tools: { file: './commands/tools.js', summary: 'list tools as signatures: tools [<id> [<tool>]] [--schema] [--names]' },
  resources: { file: './commands/resources.js', summary: 'list resources (URIs to read): resources [<id>]' },
  templates: { file: './commands/templates.js', summary: 'list resource templates: templates [<id>]' },
  prompts: { file: './commands/prompts.js', summary: 'list prompts and their arguments: prompts [<id>]' },
  app: { file: './commands/app.js', summary: "call a tool and show its MCP Apps view in the browser: app <id>.<tool> [key=value…] [--no-open]" },
  call: { file: './commands/call.js', summary: 'call a tool: call <id> <tool> [key=value…] [--args <json>|@file|-]' },
  read: { file: './commands/read.js', summary: 'read a resource: read <id> <uri>' },
  prompt: { file: './commands/prompt.js', summary: 'get a prompt: prompt <id> <name> [--args <json>]' },
  request: { file: './commands/request.js', summary: "send any request, print the raw result as JSON: request <id> <method> ['<params-json>'|@file|-]" },
  ping: { file: './commands/ping.js', summary: 'is the server answering? ping <id>' },
  complete: { file: './commands/complete.js', summary: 'argument completions: complete <id> (--prompt <name> | --resource <template-uri>) <arg> <prefix>' },
  'log-level': { file: './commands/log-level.js', summary: "set the server's log level, print its log messages: log-level <id> <level> [--follow]" },
  watch: { file: './commands/watch.js', summary: 'print resource updates and list changes until Ctrl-C: watch <id> [<uri>…]' },
  login: { file: './commands/login.js', summary: 'authorize an HTTP server with OAuth: login <id> [--no-browser]' },
  logout: { file: './commands/logout.js', summary: "revoke and forget an HTTP server's OAuth tokens: logout <id>" },
  auth: { file: './commands/auth.js', summary: 'show the stored OAuth state of each server: auth status [<id>] [--json]' },
  trust: { file: './commands/trust.js', summary: "allow a project's servers to start: trust [<dir>] | --list | --revoke [<dir>]" },
  untrust: { file: './commands/untrust.js', summary: 'forget a trusted project: untrust [<dir>]' },
  demo: { file: './commands/demo.js', summary: 'run the demo against the demo server that ships with mcpwire (demo --server: that server on stdio)' },
  check: { file: './commands/check.js', summary: "check a server's conformance to the spec" },
  snapshot: { file: './commands/snapshot.js', summary: "save a server's surface (snapshot <id> -o f.json) or diff two (snapshot diff old new)" },
  trace: { file: './commands/trace.js', summary: 'read traces: trace show [--follow]|stats|html <file>, trace diff <a> <b>' },
  tap: { file: './commands/tap.js', summary: 'relay a stdio or HTTP server for any host and trace the session: tap --trace t.jsonl -- <cmd…>' },
  daemon: { file: './commands/daemon.js', summary: 'keep servers up between commands: daemon start|stop|status|restart|reload [<id>]' },
  serve: { file: './commands/serve.js', summary: 'serve the configured servers as one MCP server: serve [--http [--listen host:port]]' },
  replay: { file: './commands/replay.js', summary: 'serve a recorded trace as an MCP server: replay <trace> [--listen host:port]' },
  'conformance-client': {
    file: './commands/conformance-client.js',
    summary: 'act as the client under test for the official conformance suite',
  },
};

function usage(docs: string): string {
  const rows = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(20)} ${c.summary}`);
  return [
    'usage: mcpwire [global options] <command> [options]',
    '',
    'commands:',
    ...rows,
    '',
    'global options: --stdio "<command line>" | --url <url>, --timeout-ms <ms>, --json, --trace <file>,',
    '                --protocol-version <v> (pin the version and era: 2026-07-28, 2025-11-25, …; default: per server)',
    'config:         --config <file> (one native config file instead of the layers), --imports (also read .mcp.json,',
    '                .cursor/mcp.json, .vscode/mcp.json, Claude Desktop)',
    `every command and option: ${docs}`,
  ].join('\n');
}

/** Finds the command word: the first argument that is not an option or an option's value. */
export function splitCommand(argv: string[]): { command?: string; rest: string[] } {
  const valued = new Set(['--stdio', '--url', '--timeout-ms', '--protocol-version', '--trace', '--config', '--header', '--only', '--skip', '--junit', '--fixtures', '--output', '--slow-tool', '--slow-tool-args', '--args', '--scope',
    '--transport', '--command', '--arg', '--cwd', '--env', '--enabled', '--request-timeout-ms', '--oauth-authorization-url', '--oauth-token-url',
    '--oauth-registration-url', '--oauth-client-id', '--oauth-client-secret', '--oauth-scope', '--prompt', '--resource', '--context',
    '--registry', '--limit', '--cursor', '--from-registry', '--package', '--set', '--server-json', '--to']);
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

/** The CLI's manual as the user has it: docs/cli.md of the installed package (shipped with it), by its full path. */
async function cliDocs(): Promise<string> {
  const { packageFile } = await import('../util/package-files.js');
  return packageFile('docs', 'cli.md');
}

export interface RunOptions {
  /**
   * The run owns its process (the bin): it may set process-wide engine flags for its command
   * (`wasm-tier.ts`). Default false.
   */
  ownProcess?: boolean;
}

/** Runs `mcpwire <argv…>` in this process; resolves with the exit code. Output goes to process.stdout / stderr. */
export async function run(argv: string[], options: RunOptions = {}): Promise<number> {
  newRun();
  if (argv.includes('--version')) {
    const { packageVersion } = await import('../util/package-files.js');
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const { command, rest } = splitCommand(argv);
  if (!command) {
    const asked = argv.includes('--help') || argv.includes('-h');
    (asked ? process.stdout : process.stderr).write(`${usage(await cliDocs())}\n`);
    return asked ? 0 : 2;
  }
  const entry = COMMANDS[command];
  if (!entry) {
    const { didYouMean } = await import('./suggest.js');
    const message = `unknown command "${command}"${didYouMean(command, Object.keys(COMMANDS))}`;
    process.stderr.write(`mcpwire: ${message}\n${usage(await cliDocs())}\n`);
    if (rest.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { message, exit_code: 2 } }, null, 2)}\n`);
    return 2;
  }
  // --help never starts a server: commands without their own help get their summary line.
  if ((rest.includes('--help') || rest.includes('-h')) && NO_OWN_HELP.has(command)) {
    process.stdout.write(`usage: mcpwire ${command} …  — ${entry.summary}\nsee ${await cliDocs()}\n`);
    return 0;
  }
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest; // after `--`: a server's command line
  if (own.includes('--strict') && !own.some((a) => a === '--trace' || a.startsWith('--trace=')) && !process.env.MCPWIRE_TRACE && !['check', 'tap', 'replay'].includes(command)) {
    process.stderr.write('mcpwire: warning: --strict checks messages for the trace: without --trace <file> (or MCPWIRE_TRACE) nothing records them\n');
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    // answered from the usage text alone when that is sure: loading a command costs several bare starts
    const { quickHelp } = await import('./usages.js');
    const help = quickHelp(command, rest);
    if (help !== undefined) {
      process.stdout.write(`${help}\n`);
      return 0;
    }
  }
  if (options.ownProcess === true) (await import('./wasm-tier.js')).wasmTierFor(command); // before anything compiles wasm (undici's HTTP parser)
  const mod = (await import(entry.file)) as { default: (argv: string[]) => Promise<number> };
  try {
    return await jsonOnFailure(rest.includes('--json'), () => mod.default(rest));
  } finally {
    // a shared store's connection (Redis) would keep the process alive
    const { closeRegistered } = await import('../util/at-end.js');
    await closeRegistered();
  }
}

/** Commands that do not answer `--help` themselves (every other one does, connecting nothing: test/cli/cli-errors.test.ts). */
const NO_OWN_HELP = new Set(['demo', 'conformance-client']);

/**
 * `--json` prints JSON even on failure: when a command fails without writing anything on stdout,
 * `{ "error": { "message", "exit_code" } }` is printed there (the message: its last
 * `mcpwire: …` line on stderr).
 */
async function jsonOnFailure(json: boolean, command: () => Promise<number>): Promise<number> {
  if (!json) return command();
  let wrote = false;
  let lastError = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: unknown, ...more: unknown[]) => {
    wrote = true;
    return (out as (...a: unknown[]) => boolean)(chunk, ...more);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...more: unknown[]) => {
    const text = String(chunk);
    for (const line of text.split('\n')) if (line.startsWith('mcpwire: ') && !line.startsWith('mcpwire: warning:')) lastError = line.slice('mcpwire: '.length);
    return (err as (...a: unknown[]) => boolean)(chunk, ...more);
  }) as typeof process.stderr.write;
  let code: number;
  try {
    code = await command();
  } catch (e) {
    lastError = e instanceof Error ? e.message : String(e);
    process.stderr.write = err;
    process.stderr.write(`mcpwire: ${lastError}\n`);
    code = 1;
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  if (code !== 0 && !wrote) out(`${JSON.stringify({ error: { message: lastError || `exit code ${code}`, exit_code: code } }, null, 2)}\n`);
  return code;
}
