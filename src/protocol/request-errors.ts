/**
 * The errors a request of ours ends with when no response settles it: the connection closed,
 * the caller aborted, a send failed, a progress token was taken, a callback threw. Each names
 * the request's method; `where` is the connection's server id and lifecycle phase.
 */
import { AbortError, ConnectionClosedError, McpWireError, ProtocolError, type Phase } from '../errors.js';
import { bareMessage } from './error-text.js';
import type { ProgressToken } from './registry.js';

export interface Where {
  serverId?: string;
  phase?: Phase;
}

/** The connection is closed (`cause`: why, when it was not a clean close). */
export function closedFor(method: string, cause: Error | undefined, where: Where): ConnectionClosedError {
  if (cause instanceof ConnectionClosedError) {
    return new ConnectionClosedError(`request "${method}" failed: ${bareMessage(cause)}`, {
      ...where,
      cause,
      exitCode: cause.exitCode,
      signal: cause.signal,
      stderrTail: cause.stderrTail,
    });
  }
  const why = cause ? `: ${bareMessage(cause)}` : '';
  return new ConnectionClosedError(`request "${method}" failed: connection closed${why}`, { ...where, cause });
}

export function abortError(method: string, reason: unknown, where: Where): AbortError {
  return new AbortError(`request "${method}" aborted${reason === undefined ? '' : `: ${reasonText(reason)}`}`, { ...where, cause: reason });
}

export function tokenInUse(method: string, token: ProgressToken, where: Where): ProtocolError {
  return new ProtocolError(
    `request "${method}" not sent: progress token ${JSON.stringify(token)} is already used by an active request (basic.utilities.progress#2)`,
    { ...where, code: 'MCPWIRE_PROGRESS_TOKEN_IN_USE' },
  );
}

/** A send that failed with something else than a transport's typed error (JSON cannot write the params). */
export function sendFailed(method: string, err: unknown, where: Where): ProtocolError {
  return new ProtocolError(`could not send "${method}": ${(err as Error)?.message ?? String(err)}`, { ...where, cause: err, code: 'MCPWIRE_SEND_FAILED' });
}

/** The caller's callback (`onRequestId`) threw before the request was sent. */
export function callbackFailed(method: string, callback: string, err: unknown, where: Where): McpWireError {
  return new McpWireError('MCPWIRE_HANDLER_FAILED', `request "${method}" not sent: its ${callback} callback threw: ${(err as Error)?.message ?? String(err)}`, {
    ...where,
    cause: err,
  });
}

/** An abort reason as text. */
export function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (reason === undefined) return 'aborted';
  return String(reason);
}
