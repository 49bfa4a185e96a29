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
import type { CallToolResult, McpClient, RequestId, Tool } from '../../index.js';
import { clientAuthOptions, decidePermission, publicToolName, sandboxNoteFor, type ResolvedServer } from '../../host-api.js';
import { argsText, parseJsonObject, parseTimeout, UsageError, type Parsed } from '../args.js';
import { runCommand, type CommandRun, type Scrub } from '../command.js';
import { CliFailure, CONFIG_OPTIONS, cliAuth, loadView, reportFailure, scrubber, usableServer } from '../config-target.js';
import { renderBlocks } from '../content.js';
import { checkArgs, isKeyValue, keyValueArgs } from '../kv-args.js';
import { printJson, safeText } from '../output.js';
import { progressPrinter, taskStatusPrinter } from '../progress.js';
import { pickServer, timeoutHint } from '../server-pick.js';
import { didYouMean } from '../suggest.js';
import { watchCallEvents } from '../call-events.js';
import { perRun } from '../run-state.js';
import { adHocServer, clientOptions, withClient } from '../target.js';
import { connectServer } from '../daemon-client.js';
import { CallDeadline, ENGINE_TIMEOUT_MS, ENGINE_DEFAULT_TIMEOUT_MS } from '../call-deadline.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.call;

const OWN = {
  args: { type: 'string' },
  imports: CONFIG_OPTIONS.imports,
  raw: { type: 'boolean' },
  text: { type: 'boolean' },
  structured: { type: 'boolean' },
  'save-dir': { type: 'string' },
  'allow-extra': { type: 'boolean' },
  events: { type: 'boolean' },
} as const;

type Values = Parsed<typeof OWN>['values'];

/** What the command line asks to call: on configured server `server` (undefined: the ad-hoc one). */
interface CallRequest {
  server?: string;
  toolName: string;
  pairs: string[];
  fromJson: Record<string, unknown>;
  /** `--allow-extra`: send arguments the tool's schema does not declare. */
  allowExtra: boolean;
  /** `--events`: print the notifications tied to the call on stderr (call-events.ts). */
  events: boolean;
}

export default function call(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: OWN, onError: reportCallFailure }, async ({ values, positionals }, run) => {
    const modes = (['json', 'raw', 'text', 'structured'] as const).filter((m) => values[m] === true);
    if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} exclude each other`);
    const req = await callRequest(values, positionals);
    const result: CallToolResult =
      req.server === undefined
        ? await withProgress((opts) => withClient(values, (client) => invoke(client, req, { ...opts, timeoutMs: parseTimeout(values['timeout-ms']) }, run)))
        : await callConfigured(values, req, run);
    printResult(result, values, req);
    return result.isError ? 1 : 0;
  });
}

/**
 * Reads the server, tool and arguments from the command line. `<id>.<tool>` (one word, the
 * next one absent or a `key=value`) names both: split at its first dot, since a server id holds
 * none (a tool name may: `m.files.read` is tool `files.read` of `m`).
 */
async function callRequest(values: Values, positionals: string[]): Promise<CallRequest> {
  const adHoc = adHocServer(values) !== undefined;
  const [first, second] = positionals;
  const dotted = !adHoc && first !== undefined && !isKeyValue(first) && first.includes('.') && (second === undefined || isKeyValue(second));
  const fixed = adHoc || dotted ? 1 : 2;
  const pairs = positionals.slice(fixed);
  const bad = pairs.find((p) => !isKeyValue(p));
  if (positionals.length < fixed || (adHoc || dotted ? isKeyValue(first) : isKeyValue(first) || isKeyValue(second))) throw new UsageError(USAGE);
  if (bad !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(safeText(bad, 60))}: tool arguments are <key>=<value> (or --args '<json>')\n${USAGE}`);
  const named = dotted ? splitDotted(first) : undefined;
  if (named !== undefined && (named.server === '' || named.tool === '')) throw new UsageError(USAGE);
  const fromJson = parseJsonObject(await argsText(values.args), '--args');
  const flags = { allowExtra: values['allow-extra'] === true, events: values.events === true };
  if (named !== undefined) return { server: named.server, toolName: named.tool, pairs, fromJson, ...flags };
  return adHoc ? { toolName: first, pairs, fromJson, ...flags } : { server: first, toolName: second, pairs, fromJson, ...flags };
}

/** `<id>.<tool>` split at its first dot. */
export function splitDotted(word: string): { server: string; tool: string } {
  const at = word.indexOf('.');
  return { server: word.slice(0, at), tool: word.slice(at + 1) };
}

/**
 * Lists the tools first: the name is checked ("did you mean"), key=value typed by the schema,
 * and the arguments validated — all before tools/call is sent.
 */
async function prepare(client: McpClient, req: CallRequest): Promise<Record<string, unknown>> {
  let list: Tool[] | undefined;
  try {
    list = client.serverCapabilities?.tools === undefined ? undefined : await client.listTools();
  } catch {
    list = undefined; // the call itself will say what is wrong
  }
  const tool = list?.find((t) => t.name === req.toolName);
  if (list !== undefined && tool === undefined) {
    const on = req.server === undefined ? '' : ` on server "${req.server}"`;
    throw new CliFailure(`unknown tool "${safeText(req.toolName, 128)}"${on}${didYouMean(req.toolName, list.map((t) => t.name))} (list them: mcpwire tools${req.server === undefined ? '' : ` ${req.server}`}); nothing was sent`);
  }
  const args = { ...req.fromJson, ...keyValueArgs(req.pairs, tool?.inputSchema) };
  if (tool !== undefined) checkArgs(tool, args, { allowExtra: req.allowExtra });
  return args;
}

/** The call on configured server `req.server`: its permissions decide, its request timeout applies. */
async function callConfigured(values: Values, req: CallRequest, run: CommandRun): Promise<CallToolResult> {
  const config = await loadView(values);
  run.scrub = scrubber(config.servers);
  const server = await pickServer(config, req.server!, values);
  usableServer(server);
  await checkPermission(server, req);
  const timeoutMs = parseTimeout(values['timeout-ms']) ?? server.config.requestTimeoutMs;
  return withProgress(async (opts) => {
    const client: McpClient = await connectServer(server, values, { ...clientOptions(values), ...clientAuthOptions(server, cliAuth()), timeoutMs, signal: opts.signal });
    try {
      const result = await invoke(client, req, { ...opts, timeoutMs }, run);
      if (result.isError) sandboxNote(server, result, run);
      return result;
    } finally {
      await client.close();
    }
  });
}

/**
 * Prepares the arguments and calls the tool; with `--events`, its notifications go to stderr
 * meanwhile. The call's timeout is a CallDeadline: paused while a person answers the server.
 */
async function invoke(client: McpClient, req: CallRequest, opts: CallOpts & { timeoutMs?: number }, run: CommandRun): Promise<CallToolResult> {
  const args = await prepare(client, req);
  const deadline = new CallDeadline('tools/call', opts.timeoutMs ?? ENGINE_DEFAULT_TIMEOUT_MS, opts.signal);
  const onTaskStatus: CallOpts['onTaskStatus'] = (...a) => (deadline.restart(), opts.onTaskStatus(...a));
  const callOpts = { ...opts, onTaskStatus, signal: deadline.signal, timeoutMs: ENGINE_TIMEOUT_MS };
  const ids = new Set<RequestId>();
  const stop = req.events ? watchCallEvents(client, ids, run.scrub) : undefined;
  try {
    return await client.callTool(req.toolName, args, req.events ? { ...callOpts, onRequestId: (id) => ids.add(id) } : callOpts);
  } catch (err) {
    if (deadline.expired) throw new CliFailure(deadline.message());
    throw err;
  } finally {
    deadline.stop();
    stop?.();
  }
}

/** A failed call of a sandboxed server: say so on stderr, with what the sandbox probably denied (docs/sandbox.md). */
function sandboxNote(server: ResolvedServer, result: CallToolResult, run: CommandRun): void {
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  const note = sandboxNoteFor(server, text);
  if (note !== undefined) process.stderr.write(`mcpwire: ${safeText(run.scrub(note.replace(/^\[mcpwire\] /, '')), 2000)}\n`);
}

/** A `permissions.deny` rule of the server's config refuses the call before anything is sent. */
async function checkPermission(server: ResolvedServer, req: CallRequest): Promise<void> {
  const typed = Object.fromEntries(req.pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  const decision = await decidePermission(
    { server: server.id, tool: req.toolName, publicName: publicToolName(server.id, req.toolName), arguments: { ...req.fromJson, ...typed } },
    server.config.permissions,
    'allow',
  );
  if (!decision.allowed) {
    const where = server.source === 'project' || server.source === 'global' ? `the ${server.source} config` : 'the imported config';
    throw new CliFailure(`call refused: tool "${safeText(req.toolName, 128)}" of server "${server.id}" matches a permissions.deny rule in ${where} ${server.file}; nothing was sent`);
  }
}

/** The result on stdout in the chosen mode; binary content saved with `--save-dir`. */
function printResult(result: CallToolResult, values: Values, req: CallRequest): void {
  const saveDir = values['save-dir'];
  const stem = req.toolName;
  if (values.raw || values.json || values.structured) {
    if (values.raw) process.stdout.write(`${JSON.stringify(result)}\n`);
    else if (values.json) printJson(result);
    else printJson(result.structuredContent ?? null);
    if (saveDir !== undefined) {
      const saved: string[] = [];
      renderBlocks(result.content ?? [], { saveDir, stem, saved });
      for (const f of saved) process.stderr.write(`saved ${f}\n`);
    }
    return;
  }
  const lines = renderBlocks(result.content ?? [], { stem, saveDir, textOnly: values.text === true, server: req.server });
  if (lines.length === 0 && result.structuredContent !== undefined && values.text !== true) lines.push(JSON.stringify(result.structuredContent, null, 2));
  process.stdout.write(lines.length > 0 ? `${lines.join('\n')}\n` : '');
  if (result.isError) process.stderr.write('mcpwire: the tool reported an error (isError: true)\n');
}

/** Ctrl-C: the call was cancelled (exit 130; said when it came); else the failure with the timeout hint, scrubbed. */
function reportCallFailure(err: unknown, scrub: Scrub): number {
  if (interrupted !== undefined) return 130; // as a shell reports SIGINT; closeOnExit has closed the server
  if (err instanceof Error && !(err instanceof UsageError)) err.message = timeoutHint(err.message);
  return reportFailure(err, scrub);
}

type CallOpts = {
  onProgress: ReturnType<typeof progressPrinter>['onProgress'];
  onTaskStatus: ReturnType<typeof taskStatusPrinter>['onTaskStatus'];
  signal: AbortSignal;
};

/** Set when Ctrl-C cancelled the call. */
let interrupted: string | undefined;
perRun(() => {
  interrupted = undefined;
});

/** Runs `fn` with progress and task status printers on stderr and Ctrl-C as cancellation. */
async function withProgress<T>(fn: (opts: CallOpts) => Promise<T>): Promise<T> {
  const progress = progressPrinter();
  const tasks = taskStatusPrinter();
  const ac = new AbortController();
  // Said at once, the same with or without a daemon: a direct stdio server's exit hook may end
  // the process (130) as soon as the server is closed, before the call's failure is reported.
  const onSigint = () => {
    interrupted = 'interrupted (SIGINT)';
    progress.interrupt();
    tasks.interrupt();
    process.stderr.write(`mcpwire: call ${interrupted}\n`);
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
