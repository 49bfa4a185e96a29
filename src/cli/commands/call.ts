/**
 * `mcpwire call <id> <tool> [key=value…] [--args '<json>'|@file|-]`: calls a tool of a configured
 * server by the server's own tool name. `key=value` pairs are typed by the tool's inputSchema
 * (kv-args.ts) and the arguments validated against it before anything is sent; an unknown tool
 * gets a "did you mean". A person typing `call` has consented, so the call goes through —
 * unless a `permissions.deny` rule of the server's config matches: then it is refused and never
 * sent (exit 1, the reason on stderr).
 *
 * `mcpwire --stdio "<cmd>" | --url <url> call <tool> --args '<json>' [--json]`: the same against
 * an ad-hoc server.
 *
 * Prints only the result's content on stdout (text as text, resource links as their URI, images,
 * audio and blobs as a line — or written to `--save-dir DIR`, the paths printed); `--text` text
 * only, `--structured` the structuredContent, `--json` the whole CallToolResult, `--raw` the
 * exact JSON-RPC result on one line. Progress
 * goes to stderr (a bar on a TTY, plain lines otherwise). A tool whose `execution.taskSupport` is
 * "required" runs as a task (basic/utilities/tasks): its status goes to stderr the same way
 * (`task <id> working 3s…`), the final result to stdout; Ctrl-C sends `tasks/cancel`. Exit code 1
 * when the tool reports `isError: true` or the request fails.
 */
import { connect, type CallToolResult, type McpClient, type Tool } from '../../index.js';
import { clientAuthOptions, decidePermission, publicToolName, toConnectConfig } from '../../host-api.js';
import { argsText, parse, parseJsonObject, parseTimeout, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, loadView, reportFailure, scrubber, usableServer } from '../config-target.js';
import { renderBlocks } from '../content.js';
import { checkArgs, isKeyValue, keyValueArgs } from '../kv-args.js';
import { printJson, safeText } from '../output.js';
import { progressPrinter, taskStatusPrinter } from '../progress.js';
import { pickServer, timeoutHint } from '../server-pick.js';
import { didYouMean } from '../suggest.js';
import { adHocServer, clientOptions, withClient } from '../target.js';

const USAGE = [
  "usage: mcpwire call <id> <tool> [key=value…] [--args '<json>' | --args @file.json | --args -] [--json | --raw | --text | --structured] [--save-dir DIR]",
  '       mcpwire --stdio "<cmd>" call <tool> [key=value…] [--args …]',
].join('\n');

const OWN = {
  args: { type: 'string' },
  imports: CONFIG_OPTIONS.imports,
  raw: { type: 'boolean' },
  text: { type: 'boolean' },
  structured: { type: 'boolean' },
  'save-dir': { type: 'string' },
} as const;

export default async function call(argv: string[]): Promise<number> {
  let scrub = (s: string) => s;
  let adHoc = true;
  try {
    const { values, positionals } = parse(argv, OWN);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const modes = (['json', 'raw', 'text', 'structured'] as const).filter((m) => values[m] === true);
    if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} exclude each other`);
    adHoc = adHocServer(values) !== undefined;
    const fixed = adHoc ? 1 : 2;
    const [first, second] = positionals;
    const pairs = positionals.slice(fixed);
    const bad = pairs.find((p) => !isKeyValue(p));
    if (positionals.length < fixed || (adHoc ? isKeyValue(first) : isKeyValue(first) || isKeyValue(second))) throw new UsageError(USAGE);
    if (bad !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(safeText(bad, 60))}: tool arguments are key=value (or --args '<json>')\n${USAGE}`);
    const fromJson = parseJsonObject(await argsText(values.args), '--args');
    const toolName = adHoc ? first : second;
    // Lists the tools first: the name is checked ("did you mean"), key=value typed by the schema,
    // and the arguments validated — all before tools/call is sent.
    const prepare = async (client: McpClient): Promise<Record<string, unknown>> => {
      let list: Tool[] | undefined;
      try {
        list = client.serverCapabilities?.tools === undefined ? undefined : await client.listTools();
      } catch {
        list = undefined; // the call itself will say what is wrong
      }
      const tool = list?.find((t) => t.name === toolName);
      if (list !== undefined && tool === undefined) {
        throw new CliFailure(`unknown tool "${safeText(toolName, 128)}"${adHoc ? '' : ` on server "${first}"`}${didYouMean(toolName, list.map((t) => t.name))} (list them: mcpwire tools${adHoc ? '' : ` ${first}`}); nothing was sent`);
      }
      const args = { ...fromJson, ...keyValueArgs(pairs, tool?.inputSchema) };
      if (tool !== undefined) checkArgs(tool, args);
      return args;
    };
    let result: CallToolResult;
    if (adHoc) {
      result = await withProgress((opts) => withClient(values, async (client) => client.callTool(toolName, await prepare(client), opts)));
    } else {
      const config = await loadView(values);
      scrub = scrubber(config.servers);
      const server = await pickServer(config, first, values);
      usableServer(server);
      const decision = await decidePermission(
        { server: server.id, tool: toolName, publicName: publicToolName(server.id, toolName), arguments: { ...fromJson, ...Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])) } },
        server.config.permissions,
        'allow',
      );
      if (!decision.allowed) {
        throw new CliFailure(`call refused: tool "${safeText(toolName, 128)}" of server "${server.id}" matches a permissions.deny rule in ${server.source === 'project' || server.source === 'global' ? `the ${server.source} config` : 'the imported config'} ${server.file}; nothing was sent`);
      }
      const timeoutMs = parseTimeout(values['timeout-ms']) ?? server.config.requestTimeoutMs;
      result = await withProgress(async (opts) => {
        const client: McpClient = await connect(toConnectConfig(server), { ...clientOptions(values), ...clientAuthOptions(server), timeoutMs, signal: opts.signal });
        try {
          return await client.callTool(toolName, await prepare(client), { ...opts, timeoutMs });
        } finally {
          await client.close();
        }
      });
    }
    const saveDir = values['save-dir'];
    const stem = toolName;
    if (values.raw || values.json || values.structured) {
      if (values.raw) process.stdout.write(`${JSON.stringify(result)}\n`);
      else if (values.json) printJson(result);
      else printJson(result.structuredContent ?? null);
      if (saveDir !== undefined) {
        const saved: string[] = [];
        renderBlocks(result.content ?? [], { saveDir, stem, saved });
        for (const f of saved) process.stderr.write(`saved ${f}\n`);
      }
    } else {
      const lines = renderBlocks(result.content ?? [], { stem, saveDir, textOnly: values.text === true, server: adHoc ? undefined : first });
      if (lines.length === 0 && result.structuredContent !== undefined && values.text !== true) lines.push(JSON.stringify(result.structuredContent, null, 2));
      const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
      process.stdout.write(text);
      if (result.isError) process.stderr.write('mcpwire: the tool reported an error (isError: true)\n');
    }
    return result.isError ? 1 : 0;
  } catch (err) {
    if (interrupted !== undefined) {
      process.stderr.write(`mcpwire: call ${interrupted}\n`);
      return 130; // as a shell reports SIGINT; closeOnExit has closed the server
    }
    if (err instanceof Error && !(err instanceof UsageError)) err.message = timeoutHint(err.message);
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
