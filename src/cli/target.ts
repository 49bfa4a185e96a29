/**
 * Which server a command talks to: `--stdio "<command line>"` (with `--env K=V` or `--env K`)
 * or `--url <url>` (with `--header k=v`), and the client options every command shares
 * (timeout, trace, strict).
 */
import { cliElicitation } from './elicit.js';
import { connect, traceTarget, type ClientOptions, type McpClient, type ServerConfig } from '../index.js';
import { keyValues, parseTimeout, splitCommandLine, UsageError } from './args.js';

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
    // client/elicitation: asked on a terminal, declined otherwise (elicit.ts).
    onElicitation: cliElicitation(),
    elicitationModes: ['form', 'url'],
  };
}

/** Connects to the ad-hoc server, runs `fn`, and always closes. */
export async function withClient<T>(flags: TargetFlags, fn: (client: McpClient) => Promise<T>): Promise<T> {
  const server = adHocServer(flags);
  if (server === undefined) throw new UsageError('no server: give --stdio "<command line>" or --url <url>');
  const client = await connect(server, clientOptions(flags));
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}
