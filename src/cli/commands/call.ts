/**
 * `mcpwire call <id> <tool> --args '<json>' [--json]`: calls a tool of a configured server by
 * the server's own tool name. A person typing `call` has consented, so the call goes through —
 * unless a `permissions.deny` rule of the server's config matches: then it is refused and never
 * sent (exit 1, the reason on stderr).
 *
 * `mcpwire --stdio "<cmd>" | --url <url> call <tool> --args '<json>' [--json]`: the same against
 * an ad-hoc server.
 *
 * Prints the CallToolResult (text blocks for people, the whole result with `--json`). Progress
 * goes to stderr (a bar on a TTY, plain lines otherwise). A tool whose `execution.taskSupport` is
 * "required" runs as a task (basic/utilities/tasks): its status goes to stderr the same way
 * (`task <id> working 3s…`), the final result to stdout; Ctrl-C sends `tasks/cancel`. Exit code 1
 * when the tool reports `isError: true` or the request fails.
 */
import { connect, type CallToolResult, type McpClient } from '../../index.js';
import { clientAuthOptions, decidePermission, publicToolName, toConnectConfig } from '../../host-api.js';
import { parse, parseJsonObject, parseTimeout, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, reportFailure, scrubber, usableServer } from '../config-target.js';
import { printJson, reportError, safeText } from '../output.js';
import { progressPrinter, taskStatusPrinter } from '../progress.js';
import { adHocServer, clientOptions, withClient } from '../target.js';

const USAGE = "usage: mcpwire call <id> <tool> [--args '<json>'] [--json]  |  mcpwire --stdio \"<cmd>\" call <tool> [--args '<json>'] [--json]";

export default async function call(argv: string[]): Promise<number> {
  let scrub = (s: string) => s;
  let adHoc = true;
  try {
    const { values, positionals } = parse(argv, { args: { type: 'string' }, imports: CONFIG_OPTIONS.imports });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    adHoc = adHocServer(values) !== undefined;
    const [first, second, extra] = positionals;
    const args = parseJsonObject(values.args, '--args');
    let result: CallToolResult;
    if (adHoc) {
      if (!first || second !== undefined) throw new UsageError(USAGE);
      result = await withProgress((opts) => withClient(values, (client) => client.callTool(first, args, opts)));
    } else {
      if (!first || !second || extra !== undefined) throw new UsageError(USAGE);
      const config = await loadView(values);
      scrub = scrubber(config.servers);
      const server = findServer(config, first);
      usableServer(server);
      const decision = await decidePermission(
        { server: server.id, tool: second, publicName: publicToolName(server.id, second), arguments: args },
        server.config.permissions,
        'allow',
      );
      if (!decision.allowed) {
        throw new CliFailure(`call refused: tool "${safeText(second, 128)}" of server "${server.id}" matches a permissions.deny rule in ${server.source === 'project' || server.source === 'global' ? `the ${server.source} config` : 'the imported config'} ${server.file}; nothing was sent`);
      }
      const timeoutMs = parseTimeout(values['timeout-ms']) ?? server.config.requestTimeoutMs;
      result = await withProgress(async (opts) => {
        const client: McpClient = await connect(toConnectConfig(server), { ...clientOptions(values), ...clientAuthOptions(server), timeoutMs, signal: opts.signal });
        try {
          return await client.callTool(second, args, { ...opts, timeoutMs });
        } finally {
          await client.close();
        }
      });
    }
    if (values.json) printJson(result);
    else printResult(result);
    return result.isError ? 1 : 0;
  } catch (err) {
    if (interrupted !== undefined) {
      process.stderr.write(`mcpwire: call ${interrupted}\n`);
      return 130; // as a shell reports SIGINT; closeOnExit has closed the server
    }
    if (adHoc) {
      reportError(err);
      return err instanceof UsageError ? 2 : 1;
    }
    return reportFailure(err, scrub);
  }
}

type CallOpts = {
  onProgress: ReturnType<typeof progressPrinter>['onProgress'];
  onTaskStatus: ReturnType<typeof taskStatusPrinter>['onTaskStatus'];
  signal: AbortSignal;
};

/** Set when Ctrl-C cancelled the call. */
let interrupted: string | undefined;

/** Runs `fn` with progress and task status printers on stderr and Ctrl-C as cancellation. */
async function withProgress<T>(fn: (opts: CallOpts) => Promise<T>): Promise<T> {
  const progress = progressPrinter();
  const tasks = taskStatusPrinter();
  const ac = new AbortController();
  const onSigint = () => {
    interrupted = 'interrupted (SIGINT)';
    ac.abort(interrupted);
  };
  process.once('SIGINT', onSigint);
  try {
    return await fn({ onProgress: progress.onProgress, onTaskStatus: tasks.onTaskStatus, signal: ac.signal });
  } finally {
    process.off('SIGINT', onSigint);
    progress.done();
    tasks.done();
  }
}

function printResult(result: CallToolResult): void {
  for (const block of result.content ?? []) {
    if (block.type === 'text') process.stdout.write(`${block.text}\n`);
    else process.stdout.write(`[${block.type}${'mimeType' in block ? ` ${safeText(block.mimeType)}` : ''}]\n`);
  }
  if (result.structuredContent !== undefined) process.stdout.write(`structuredContent: ${JSON.stringify(result.structuredContent)}\n`);
}
