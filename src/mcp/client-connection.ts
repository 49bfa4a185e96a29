/**
 * The request engine of one client connection, with the client's side of the protocol
 * installed: its handlers of server requests (roots, sampling, elicitation: client-features.ts,
 * run as tasks when the server task-augments them: task-receiver.ts; answers echo related-task
 * metadata: tasks.ts), `notifications/tasks/status` to the task requester, and the engine's
 * reports turned into client events.
 */
import { Connection } from '../protocol/connection.js';
import type { ProtocolObserver } from '../protocol/observer.js';
import type { Phase } from '../errors.js';
import type { MessageExtra, Transport } from '../transport/types.js';
import { installClientFeatures, type ClientFeatureState } from './client-features.js';
import type { ClientOptions } from './client-options.js';
import type { EraCodec } from './eras/codec.js';
import { createTaskReceiver, type TaskReceiver } from './task-receiver.js';
import { relatedTaskEchoing, type TaskRequester } from './tasks.js';

export interface ClientConnectionHooks {
  serverId: string;
  options: ClientOptions;
  codec: EraCodec;
  tasks: TaskRequester;
  features: ClientFeatureState;
  phase(): Phase;
  emit(event: string, ...args: unknown[]): void;
  onClose(err: Error | undefined): void;
  /** A server notification the client features turned into an event. */
  onFeatureEvent(event: string, payload: unknown, extra?: MessageExtra): void;
}

export function openClientConnection(
  transport: Transport,
  observer: ProtocolObserver | undefined,
  h: ClientConnectionHooks,
): { connection: Connection; taskReceiver: TaskReceiver | undefined } {
  const connection = new Connection(transport, {
    serverId: h.serverId,
    defaultTimeoutMs: h.options.timeoutMs,
    observer,
    phase: h.phase,
    acceptBatches: () => h.codec.has('batching'),
    // a task's progress outlives its creating request: not an unknown token (tasks.ts)
    onDiagnostic: (d) => !h.tasks.ownsDiagnostic(d) && h.emit('diagnostic', d),
    onClose: h.onClose,
    // notifications the engine gives no meaning to (custom methods): a `notification` event
    // (`relatedRequestId`: it came on the stream of that request of ours, Streamable HTTP)
    onOtherNotification: (method, params, extra) =>
      h.emit('notification', extra?.relatedRequestId === undefined ? { method, params } : { method, params, relatedRequestId: extra.relatedRequestId }),
  });
  // task-augmented sampling/elicitation from the server run as tasks the client owns
  const taskReceiver = createTaskReceiver(connection, h.options, () => h.codec.has('tasks'));
  const echoing = relatedTaskEchoing(connection);
  installClientFeatures(taskReceiver?.augmenting(echoing) ?? echoing, h.options, h.onFeatureEvent, h.features);
  // `taskStatus` events come from the task requester: notifications and polls, deduplicated.
  connection.setNotificationHandler('notifications/tasks/status', (params) => h.tasks.onStatusNotification(params));
  return { connection, taskReceiver };
}
