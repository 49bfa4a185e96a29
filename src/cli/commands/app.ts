/**
 * `mcpwire app <id>.<tool> [key=value…] [--args '<json>'] [--no-open] [--trace FILE]`: calls a
 * tool of a configured server and shows its MCP Apps view in the browser. The client declares the
 * apps extension (it renders views); the tool's `ui://` view is read and checked; a loopback page
 * (src/apps/page-server.ts: the double-iframe sandbox on two origins, the view's CSP as an HTTP
 * header, a per-run secret in the URL) relays the view to this process, which answers it
 * (src/apps/bridge.ts): its own tool calls go to its server through the host, `ui/message` and
 * `ui/notifications/message` are printed on stderr, `ui/open-link` is opened only when the user
 * says yes on a terminal. `--no-open` prints the URL instead of opening a browser. Ctrl-C sends
 * `ui/resource-teardown`, waits briefly for the view's answer, closes the server (exit 130).
 * A tool whose visibility lacks "model" is for its view alone and is refused here.
 */
import { createInterface } from 'node:readline/promises';
import { clientAuthOptions, createHost, openBrowser, publicToolName, type McpHost, type ResolvedServer } from '../../host-api.js';
import { createTracer, traceTarget, type Tool, type Tracer } from '../../index.js';
import { AppBridgeHost, hostViewServer, isModelVisible, loadToolView, publicNameOf, serverTools, startAppPage, viewToolResult, withAppsExtension, type AppPage, type RenderableView } from '../../apps-api.js';
import { argsText, parseJsonObject, parseTimeout, UsageError } from '../args.js';
import { runCommand, type CommandRun } from '../command.js';
import { CliFailure, CONFIG_OPTIONS, cliAuth, loadView, scrubber, secretsOf, usableServer } from '../config-target.js';
import { checkArgs, isKeyValue, keyValueArgs } from '../kv-args.js';
import { safeText } from '../output.js';
import { pickServer } from '../server-pick.js';
import { clientOptions } from '../target.js';
import { splitDotted } from './call.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.app;

const OWN = {
  args: { type: 'string' },
  imports: CONFIG_OPTIONS.imports,
  'no-open': { type: 'boolean' },
  'init-timeout-ms': { type: 'string' },
} as const;

export default function app(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: OWN }, async ({ values, positionals }, run) => {
    const [first, ...pairs] = positionals;
    if (first === undefined || isKeyValue(first) || !first.includes('.')) throw new UsageError(USAGE);
    const bad = pairs.find((p) => !isKeyValue(p));
    if (bad !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(safeText(bad, 60))}: tool arguments are <key>=<value>\n${USAGE}`);
    const { server: id, tool } = splitDotted(first);
    const fromJson = parseJsonObject(await argsText(values.args), '--args');
    const config = await loadView(values);
    run.scrub = scrubber(config.servers);
    const server = await pickServer(config, id, values);
    usableServer(server);
    const initTimeoutMs = parseTimeout(values['init-timeout-ms']);
    // A person asked for this call and view, as with `call`: allowed unless a permissions.deny rule of the config matches.
    const host = createHost([server], { clientOptions: withAppsExtension({ ...clientOptions(values), ...clientAuthOptions(server, cliAuth()) }), backoff: { maxRetries: 0 }, permission: 'allow', auth: cliAuth() });
    try {
      await host.start();
      const status = host.serverStatus(server.id);
      if (status?.state !== 'ready') throw new CliFailure(`server "${server.id}" is not ready (${status?.state ?? 'unknown'}${status?.lastError ? `: ${status.lastError}` : ''})`);
      return await show(host, server, tool, { ...fromJson, ...pairsFor(host, server.id, tool, pairs) }, { open: values['no-open'] !== true, trace: values.trace, initTimeoutMs, secrets: secretsOf(config.servers), scrub: run.scrub });
    } finally {
      await host.close();
    }
  });
}

function pairsFor(host: McpHost, server: string, tool: string, pairs: string[]): Record<string, unknown> {
  const listed = serverTools(host, server).find((t) => t.name === tool);
  return keyValueArgs(pairs, listed?.inputSchema);
}

interface ShowOptions {
  open: boolean;
  trace?: string;
  initTimeoutMs?: number;
  secrets: string[];
  scrub: (s: string) => string;
}

/** Calls the tool, serves its view, answers the view until Ctrl-C (or SIGTERM) or the view is cut off. */
async function show(host: McpHost, server: ResolvedServer, toolName: string, args: Record<string, unknown>, o: ShowOptions): Promise<number> {
  const tool = checkedTool(host, server.id, toolName, args);
  const view = await loadToolView(host, server.id, toolName);
  for (const r of view.rejected) process.stderr.write(`mcpwire: the view's CSP entry ${safeText(r, 160)} is not an origin; left out\n`);
  process.stderr.write(`mcpwire: view ${view.view.uri} CSP: ${view.csp}\n`);
  const page = await startAppPage({ title: `${server.id}.${toolName} — mcpwire app`, csp: view.csp, allow: view.allow, prefersBorder: view.view.meta.prefersBorder });
  const file = traceTarget(process.env, o.trace);
  const tracer: Tracer | undefined = file === undefined ? undefined : await createTracer({ file, serverId: `${server.id}:view`, transport: 'app-view', secrets: o.secrets });
  const bridge = startBridge(host, server.id, tool, view, page, tracer, o);
  try {
    process.stdout.write(`${page.url}\n`);
    if (o.open) void openInBrowser(page.url);
    void runTool(host, server.id, toolName, args, bridge, o);
    return await untilEnd(bridge);
  } finally {
    await bridge.teardown();
    await page.close();
    await tracer?.close();
  }
}

/** The tool, checked: listed, callable by a person (visibility has "model"), arguments valid. */
function checkedTool(host: McpHost, server: string, name: string, args: Record<string, unknown>): Tool {
  const tool = serverTools(host, server).find((t) => t.name === name);
  if (tool === undefined) throw new CliFailure(`unknown tool "${safeText(name, 128)}" on server "${server}" (list them: mcpwire tools ${server}); nothing was sent`);
  if (!isModelVisible(tool)) throw new CliFailure(`tool "${safeText(name, 128)}" of server "${server}" is for its app's view only (_meta.ui.visibility lacks "model"); nothing was sent`);
  checkArgs(tool, args);
  return tool;
}

function startBridge(host: McpHost, server: string, tool: Tool, view: RenderableView, page: AppPage, tracer: Tracer | undefined, o: ShowOptions): AppBridgeHost {
  const say = (s: string) => process.stderr.write(`${o.scrub(s)}\n`);
  return new AppBridgeHost({
    channel: page.channel,
    server: hostViewServer(host, server),
    hostInfo: { name: 'mcpwire', version: '0.1.0' },
    hostContext: {
      toolInfo: { tool },
      theme: 'light',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      platform: 'web',
      locale: Intl.DateTimeFormat().resolvedOptions().locale,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      containerDimensions: { maxHeight: 10000 },
    },
    sandbox: view.granted,
    sandboxResource: { html: view.view.html, sandbox: 'allow-scripts allow-forms', csp: view.granted.csp, permissions: view.granted.permissions },
    limits: o.initTimeoutMs === undefined ? {} : { initTimeoutMs: o.initTimeoutMs },
    ...(tracer !== undefined ? { observer: tracer } : {}),
    on: {
      message: (m) => (say(`app message (${safeText(m.role, 20)}): ${m.content.map((c) => (c.type === 'text' ? safeText(c.text, 2000) : `[${safeText(c.type, 30)}]`)).join(' ')}`), true),
      openLink: (url) => confirmOpen(url, say),
      updateModelContext: (c) => say(`app model context updated (${JSON.stringify(c).length} bytes)`),
      log: (p) => say(`app log ${safeText(p.level ?? 'info', 20)}: ${safeText(typeof p.data === 'string' ? p.data : JSON.stringify(p.data), 500)}`),
      problem: (p) => say(`mcpwire: view: ${p.message}`),
      teardownRequested: () => say('the view asks to be closed (Ctrl-C closes it)'),
    },
  }).start();
}

/** Runs the tool as the person asked (the host's model path: permissions apply), then hands input and result to the view. */
async function runTool(host: McpHost, server: string, tool: string, args: Record<string, unknown>, bridge: AppBridgeHost, o: ShowOptions): Promise<void> {
  bridge.sendToolInput(args);
  const name = publicNameOf(host, server, tool) ?? publicToolName(server, tool);
  const r = await host.callTool(name, args);
  try {
    bridge.sendToolResult(viewToolResult(r) as unknown as Record<string, unknown>);
    process.stderr.write(`mcpwire: ${server}.${safeText(tool, 128)} ${r.isError ? 'reported an error' : 'answered'}; result sent to the view\n`);
  } catch (err) {
    bridge.sendToolCancelled(o.scrub((err as Error).message));
    process.stderr.write(`mcpwire: ${o.scrub((err as Error).message)}\n`);
  }
}

/** Resolves with the exit code: 130 on Ctrl-C, 143 on SIGTERM, 1 when the view failed to initialize or was cut off. */
function untilEnd(bridge: AppBridgeHost): Promise<number> {
  return new Promise((resolve) => {
    const stop = (code: number) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      clearInterval(poll);
      resolve(code);
    };
    const onInt = stop(130);
    const onTerm = stop(143);
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    bridge.initialized.then(
      () => process.stderr.write('mcpwire: the view is initialized (Ctrl-C to close it)\n'),
      (err: Error) => {
        if (!bridge.isClosed) return;
        process.stderr.write(`mcpwire: ${err.message}\n`);
        stop(1)();
      },
    );
    const poll = setInterval(() => bridge.isClosed && stop(1)(), 500);
  });
}

async function openInBrowser(url: string): Promise<void> {
  if (!(await openBrowser(url))) process.stderr.write(`mcpwire: open ${url} in a browser\n`);
}

/** `ui/open-link`: shown, and opened only when the person at the terminal says yes. */
async function confirmOpen(url: string, say: (s: string) => void): Promise<boolean> {
  say(`the view asks to open ${safeText(url, 500)}`);
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    say('  not opened (no terminal to confirm on)');
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question('  open it? [y/N] ');
    if (!/^y(es)?$/i.test(answer.trim())) return false;
    return openBrowser(url);
  } finally {
    rl.close();
  }
}
