/**
 * Firing a change through the modern mocks' `notify` tool (mock-servers/modern: it sends the
 * list_changed or resource update to every open subscription and answers `delivered to <n>`),
 * for the subscription tests over stdio and Streamable HTTP alike.
 */
import type { McpClient } from '../../src/mcp/client.js';
import { until } from './until.js';

/** Fires a change of `kind` (of `uri`) until a subscription of ours got it; `ms` bounds the wait. */
export async function fire(client: McpClient, kind: string, uri?: string, ms = 20_000): Promise<void> {
  await until(
    `a subscription to deliver ${kind} to`,
    async () => {
      const r = await client.callTool('notify', uri === undefined ? { kind } : { kind, uri });
      const text = (r.content[0] as { text?: string } | undefined)?.text ?? '';
      return /delivered to [1-9]/.test(text) ? true : undefined;
    },
    ms,
    25,
  );
}
