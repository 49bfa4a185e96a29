/**
 * Which server a command talks to: `--stdio "<command line>"` or `--url <url>` (with
 * `--header k=v`), and the client options every command shares (timeout, trace, strict).
 */
import { cliElicitation } from './elicit.js';
import { connect, traceTarget, type ClientOptions, type McpClient, type ServerConfig } from '../index.js';
import { keyValues, parseTimeout, splitCommandLine, UsageError } from './args.js';

export interface TargetFlags {
  stdio?: string;
  url?: string;
  header?: string[];
  'timeout-ms'?: string;
  trace?: string;
  strict?: boolean;
}

/** A server given on the command line, or undefined when none was. */
export function adHocServer(flags: TargetFlags): ServerConfig | undefined {
  if (flags.stdio !== undefined && flags.url !== undefined) throw new UsageError('give either --stdio or --url, not both');
  if (flags.stdio !== undefined) {
    const [command, ...args] = splitCommandLine(flags.stdio);
    if (!command) throw new UsageError('--stdio needs a command line');
    return { transport: 'stdio', id: 'stdio', command, args };
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

export function clientOptions(flags: TargetFlags): ClientOptions {
  const timeoutMs = parseTimeout(flags['timeout-ms']);
  const file = traceTarget(process.env, flags.trace);
  return {
    clientInfo: { name: 'mcpwire-cli', version: '0.1.0' },
    // Ctrl-C / SIGTERM close the servers (they are in their own process group and never see the
    // terminal's signal), then the CLI exits with 130 / 143 (issue 9.8).
    closeOnExit: true,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
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
