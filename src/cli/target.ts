/**
 * Which server a command talks to: `--stdio "<command line>"` (with `--env K=V` or `--env K`)
 * or `--url <url>` (with `--header k=v`), and the client options every command shares
 * (timeout, trace, strict). An ad-hoc stdio server that fails to connect is reported with what
 * it printed (`connectAdHoc`).
 */
import { cliElicitation } from './elicit.js';
import { configSecrets, connect, McpClient, traceTarget, type ClientOptions, type ServerConfig } from '../index.js';
import { Redactor } from '../trace-api.js';
import { joinCommandLine, keyValues, parseTimeout, splitCommandLine, UsageError } from './args.js';
import { safeText } from './output.js';
import type { ServerOutput } from './server-output.js';

export interface TargetFlags {
  stdio?: string;
  url?: string;
  header?: string[];
  env?: string[];
  'timeout-ms'?: string;
  /** Pins the protocol version and so the era (default: found per server, src/mcp/eras/select.ts). */
  'protocol-version'?: string;
  trace?: string;
  strict?: boolean;
}

/** A server given on the command line, or undefined when none was. */
export function adHocServer(flags: TargetFlags): ServerConfig | undefined {
  if (flags.stdio !== undefined && flags.url !== undefined) throw new UsageError('give either --stdio or --url, not both');
  if (flags.env?.length && flags.stdio === undefined) {
    throw new UsageError('--env is for a --stdio server (a configured server takes its env from the config; see "Secrets" in docs/cli.md)');
  }
  if (flags.stdio !== undefined) {
    const [command, ...args] = splitCommandLine(flags.stdio);
    if (!command) throw new UsageError('--stdio needs a command line');
    const out: ServerConfig = { transport: 'stdio', id: 'stdio', command, args };
    if (flags.env?.length) out.env = adHocEnv(flags.env);
    return out;
  }
  if (flags.url !== undefined) {
    let u: URL;
    try {
      u = new URL(flags.url);
    } catch {
      throw new UsageError(`--url is not a valid URL: ${flags.url}`);
    }
    return { transport: 'http', id: u.host, url: u.href, headers: keyValues(flags.header, '--header') };
  }
  return undefined;
}

/**
 * `--env K=V` sets K; `--env K` passes this shell's current value of K (so a secret never has to
 * be typed on the command line or written to a file). The server otherwise gets only a minimal
 * safe environment (src/transport/env.ts). Errors name the variable, never a value.
 */
export function adHocEnv(list: readonly string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  list.forEach((item, n) => {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new UsageError(`--env must look like NAME=value or NAME (occurrence ${n + 1} has no valid variable name)`);
    }
    if (eq >= 0) {
      out[name] = item.slice(eq + 1);
      return;
    }
    const v = env[name];
    if (v === undefined) throw new UsageError(`--env ${name}: "${name}" is not set in this environment (give --env ${name}=<value>, or export it first)`);
    out[name] = v;
  });
  return out;
}

export function clientOptions(flags: TargetFlags): ClientOptions {
  const timeoutMs = parseTimeout(flags['timeout-ms']);
  const file = traceTarget(process.env, flags.trace);
  return {
    clientInfo: { name: 'mcpwire-cli', version: '0.1.0' },
    // Ctrl-C / SIGTERM close the servers (they are in their own process group and never see the
    // terminal's signal), then the CLI exits with 130 / 143, leaving no server behind.
    closeOnExit: true,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(flags['protocol-version'] !== undefined ? { protocolVersion: flags['protocol-version'] } : {}),
    // --strict: formats in output schemas are asserted too (an annotation by default, basic#16).
    ...(flags.strict === true ? { assertFormats: true } : {}),
    trace: file === undefined ? false : { file, strict: flags.strict === true },
    // 2026-07-28 tasks are the extension io.modelcontextprotocol/tasks: declared as the host
    // declares it (src/host/server-slot.ts), so a tool the server runs as a task works.
    capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    // client/elicitation: asked on a terminal, declined otherwise (elicit.ts).
    onElicitation: cliElicitation(),
    elicitationModes: ['form', 'url'],
  };
}

/** Connects to the ad-hoc server, runs `fn`, and always closes. */
export async function withClient<T>(flags: TargetFlags, fn: (client: McpClient) => Promise<T>): Promise<T> {
  const server = adHocServer(flags);
  if (server === undefined) throw new UsageError('no server: give --stdio "<command line>" or --url <url>');
  const client = await connectAdHoc(server, clientOptions(flags));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

const SHOWN_LINES = 10;
const LINE_CHARS = 200;

/**
 * Connects to an ad-hoc server. A stdio one that fails to connect — above all one that never
 * answers `initialize` before the connect timeout — is reported with what it printed: the lines
 * on stdout that were not JSON-RPC (a banner, a log line: what keeps a client waiting) and the
 * tail of its stderr, after the error that names the server and the phase.
 */
export async function connectAdHoc(server: ServerConfig, options: ClientOptions): Promise<McpClient> {
  if (server.transport !== 'stdio') return connect(server, options);
  const stdout: string[] = [];
  const stderr = new TailLines();
  const client = new McpClient(server, {
    ...options,
    onStderr: (chunk) => {
      stderr.push(chunk);
      options.onStderr?.(chunk);
    },
  });
  const onDiagnostic = (d: { excerpt?: string }) => {
    if (d.excerpt !== undefined && stdout.length < SHOWN_LINES) stdout.push(d.excerpt);
  };
  client.on('diagnostic', onDiagnostic);
  try {
    await client.connect();
    return client;
  } catch (err) {
    if (err instanceof Error && !(err instanceof UsageError)) {
      // The values given with --env are secrets: a server echoing one never shows it here.
      const redactor = new Redactor({ secrets: configSecrets({ env: server.env }) });
      // the error itself may already end with the stderr tail: then it is not repeated, and the
      // server is not said to have printed nothing
      const stderrShown = err.message.includes('stderr tail');
      const printed = printedText(joinCommandLine([server.command, ...(server.args ?? [])]), stdout, stderrShown ? [] : stderr.lines(), stderrShown);
      if (printed !== undefined) (err as ServerOutput).serverOutput = redactor.redactString(printed);
    }
    throw err;
  } finally {
    client.off('diagnostic', onDiagnostic);
  }
}

/**
 * What the server printed, as lines (nothing printed at all is said too, unless the error already
 * showed its stderr: then only stdout lines, or nothing); control characters dropped.
 */
function printedText(commandLine: string, stdout: readonly string[], stderr: readonly string[], stderrShown: boolean): string | undefined {
  const lines = (list: readonly string[]) => [...new Set(list)].map((l) => `\n    ${safeText(l, LINE_CHARS)}`);
  const parts: string[] = [];
  if (stdout.length > 0) parts.push(`\n  on stdout, not JSON-RPC${stdout.length === SHOWN_LINES ? ` (the first ${SHOWN_LINES} lines)` : ''}:`, ...lines(stdout));
  if (stderr.length > 0) parts.push('\n  on stderr (the last lines):', ...lines(stderr));
  const who = `the server (${safeText(commandLine, LINE_CHARS)})`;
  if (parts.length === 0) return stderrShown ? undefined : `${who} printed nothing on stdout or stderr`;
  return `${who} printed:${parts.join('')}`;
}

/** The last lines of a stream, bounded (a server may print without end). */
class TailLines {
  private text = '';
  push(chunk: Buffer): void {
    this.text = (this.text + chunk.toString('utf8')).slice(-8 * 1024);
  }
  lines(): string[] {
    return this.text
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .slice(-SHOWN_LINES);
  }
}
