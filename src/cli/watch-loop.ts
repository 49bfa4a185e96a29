/**
 * Waiting for a server's notifications until the user stops: resolves with 130 on Ctrl-C (as a
 * shell reports SIGINT; the caller's `finally` closes the server), or rejects when the server
 * goes away meanwhile.
 */
import type { McpClient } from '../index.js';

export function untilInterrupted(client: McpClient): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onClose = (err?: unknown) => {
      process.off('SIGINT', onSigint);
      reject(err instanceof Error ? err : new Error('the server closed the connection'));
    };
    const onSigint = () => {
      client.off('close', onClose);
      resolve(130);
    };
    process.once('SIGINT', onSigint);
    client.once('close', onClose);
  });
}
