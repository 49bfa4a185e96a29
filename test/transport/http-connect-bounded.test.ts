/**
 * connect() over Streamable HTTP settles when the server never answers the POST of
 * `notifications/initialized`: the transport bounds that POST (`http.notificationTimeoutMs`), so
 * the client's wait ends too, and failing the connect releases the stuck socket. Real sockets on
 * 127.0.0.1; the bound asserted is generous.
 */
import { expect, test } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';
import { answerInitialize, rawServer, settledWithin, waitFor } from '../support/raw-http.js';
import { afterEachCleanups } from '../support/cleanups.js';

const cleanups = afterEachCleanups();

test('connect() rejects when the notifications/initialized POST is never answered, and the POST socket is released', async () => {
  const s = await rawServer((r, res) => {
    if (answerInitialize(r, res)) return;
    if (r.method === 'GET') res.writeHead(405).end();
    else if (r.method === 'DELETE') res.writeHead(200).end();
    // the notification POST: no answer, ever
  });
  cleanups.push(() => s.close());
  const connecting = connect({ transport: 'http', id: 'silent', url: s.url }, { timeoutMs: 1000, http: { notificationTimeoutMs: 1000 } });
  connecting.then((c: McpClient) => cleanups.push(() => c.close())).catch(() => {});
  const outcome = await settledWithin(connecting, 10_000);
  expect(outcome).not.toBe('pending');
  expect((outcome as { error?: unknown }).error).toMatchObject({ serverId: 'silent' });
  const stuck = s.requests.filter((r) => r.method === 'POST' && r.msg?.method === 'notifications/initialized');
  expect(stuck).toHaveLength(1);
  await waitFor(() => stuck[0].closed, 'the notification POST to be closed');
});
