/**
 * A command's request run in the daemon on a held server's client: the method and its arguments
 * as the CLI would pass them, the command's timeout, progress and task status sent back as
 * events, and a `cancel` (or the command's socket closing: Ctrl-C) aborting it — the call is
 * cancelled on the server (`notifications/cancelled`), the server keeps running.
 */
import type { McpClient } from '../mcp/client.js';
import { isMcpWireError } from '../errors.js';
import { CLIENT_METHODS, type ClientMethod, type LineChannel, type WireMessage } from './wire.js';

/** A request in flight: which command's socket and server, and how to abort it. */
export interface InFlight {
  channel: LineChannel;
  id: number;
  server: string;
  abort: AbortController;
}

/** The error of a failed request as the command will rethrow it (message and code, nothing else). */
export function wireError(err: unknown): { message: string; code?: string } {
  const message = err instanceof Error ? err.message : String(err);
  return isMcpWireError(err) ? { message, code: err.code } : { message };
}

/** Runs `msg.method` on `client`; resolves with the reply to send. */
export async function runRequest(client: McpClient, msg: WireMessage, flight: InFlight): Promise<WireMessage> {
  const method = msg.method as ClientMethod;
  if (!(CLIENT_METHODS as readonly string[]).includes(method)) return { id: flight.id, error: { message: `unknown method "${String(method)}"` } };
  const args = Array.isArray(msg.args) ? (msg.args as unknown[]) : [];
  const options: Record<string, unknown> = { signal: flight.abort.signal };
  if (typeof msg.timeoutMs === 'number') options.timeoutMs = msg.timeoutMs;
  const send = (event: string) => (data: unknown) => flight.channel.send({ id: flight.id, event, data });
  if (msg.progress === true) options.onProgress = send('progress');
  if (msg.taskStatus === true) options.onTaskStatus = send('taskStatus');
  try {
    const result = await call(client, method, args, options);
    return { id: flight.id, result };
  } catch (err) {
    return { id: flight.id, error: wireError(err) };
  }
}

function call(client: McpClient, method: ClientMethod, args: unknown[], options: Record<string, unknown>): Promise<unknown> {
  const str = (i: number) => String(args[i] ?? '');
  const obj = <T>(i: number) => (args[i] ?? {}) as T;
  switch (method) {
    case 'callTool':
      return client.callTool(str(0), obj<Record<string, unknown>>(1), options);
    case 'readResource':
      return client.readResource(str(0), options);
    case 'getPrompt':
      return client.getPrompt(str(0), obj<Record<string, string>>(1), options);
    default:
      return client[method](options);
  }
}
