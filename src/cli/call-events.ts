/**
 * `mcpwire call --events`: the server's notifications tied to the call, on stderr as they
 * arrive, one line each (`log info: …`, `notification <method> {…}`); stdout keeps the result.
 *
 * The CLI runs one call on its client, so a notification that arrives while the call runs is the
 * call's — the host's rule of exclusivity (src/host/call-notifications.ts) — unless it came on
 * the Streamable HTTP stream of another request of ours (`relatedRequestId` not one of the
 * call's ids, basic.transports#25). Progress has its own printer (progress.ts); list_changed,
 * resources/updated and task status are about the server, not the call.
 */
import type { McpClient, RequestId } from '../index.js';
import { cellText } from './output.js';

type Related = { relatedRequestId?: RequestId } | undefined;

/** The text of a log message's `data`: a string as it is, anything else as JSON. */
function dataText(data: unknown): string {
  return typeof data === 'string' ? data : JSON.stringify(data ?? null);
}

/**
 * Prints the call's notifications until the returned function is called. `callIds` holds the
 * JSON-RPC ids of the call's requests (`onRequestId`); `scrub` hides configured secrets.
 */
export function watchCallEvents(client: McpClient, callIds: ReadonlySet<RequestId>, scrub: (s: string) => string): () => void {
  const ours = (extra: Related) => extra?.relatedRequestId === undefined || callIds.has(extra.relatedRequestId);
  const print = (line: string) => process.stderr.write(`${cellText(scrub(line), 2000, process.stderr)}\n`);
  const onLog = (params: { level?: unknown; logger?: unknown; data?: unknown }, extra?: Related) => {
    if (!ours(extra)) return;
    const logger = typeof params.logger === 'string' ? ` ${params.logger}` : '';
    print(`log ${String(params.level ?? 'info')}${logger}: ${dataText(params.data)}`);
  };
  const onNotification = (n: { method: string; params?: unknown; relatedRequestId?: RequestId }) => {
    if (!ours(n)) return;
    print(`notification ${n.method}${n.params === undefined ? '' : ` ${JSON.stringify(n.params)}`}`);
  };
  client.on('log', onLog);
  client.on('notification', onNotification);
  return () => {
    client.off('log', onLog);
    client.off('notification', onNotification);
  };
}
