/**
 * Host side of a failed session renewal: a server whose session renewal fails (404, then 500 to the new
 * initialize) must not stay `ready` with a stuck client. The client closes with the cause; the
 * supervisor (src/host/server-slot.ts) sees the `close` event, shows `error` with the reason and
 * reconnects with backoff. Real Streamable HTTP mock on 127.0.0.1; short backoff.
 */
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { createHost, type McpHost, type ResolvedServer } from '../../src/host/index.js';
import { emptyNormalizedConfig } from '../../src/host/config/types.js';
import { until } from '../support/until.js';

type Mock = {
  url: string;
  record: { messages: { method?: string }[] };
  options: { failures: { rpcMethod?: string; status: number; times?: number }[] };
  expireSessions(): void;
  close(): Promise<void>;
};

let host: McpHost | undefined;
let mock: Mock | undefined;
afterEach(async () => {
  await host?.close();
  await mock?.close();
  host = undefined;
  mock = undefined;
});

describe('host supervisor after a failed session renewal', () => {
  it('renewal refused with HTTP 500 → the server shows error with the cause, then reconnects with backoff (basic.transports#45)', async () => {
    mock = (await startHttpMock({ mode: 'json', getStream: false })) as Mock;
    const server: ResolvedServer = {
      id: 'web',
      source: 'project',
      file: '/p/.mcpwire/config.json',
      enabled: true,
      transport: 'http',
      config: { ...emptyNormalizedConfig(), url: mock.url, requestTimeoutMs: 10_000 },
    };
    host = createHost([server], { permission: 'allow', backoff: { initialDelayMs: 20, maxDelayMs: 50, jitter: 0 } });
    const states: string[] = [];
    const errors: string[] = [];
    host.on('status', (s: { id: string; state: string; lastError?: string }) => {
      states.push(s.state);
      if (s.state === 'error' && s.lastError !== undefined) errors.push(s.lastError);
    });
    await host.start();
    expect(host.serverStatus('web')!.state).toBe('ready');
    const echo = host.tools().find((t) => t.tool === 'echo')!;

    mock.options.failures.push({ rpcMethod: 'initialize', status: 500, times: 1 });
    mock.expireSessions();
    states.length = 0;
    const failed = await host.callTool(echo.name, { text: 'during the outage' });
    expect(failed.isError).toBe(true);

    // The supervisor saw the client close: error with the reason, then a reconnect.
    await until('the server to be ready again', () => host!.serverStatus('web')!.state === 'ready' && states.includes('error'), 10_000, 10);
    expect(states.indexOf('error')).toBeLessThan(states.lastIndexOf('ready'));
    expect(errors[0]).toMatch(/session expired and a new one could not be started/);
    expect(errors[0]).toMatch(/500/);
    const initializes = mock.record.messages.filter((m) => m.method === 'initialize').length;
    expect(initializes).toBe(3); // first connect, the refused renewal, the reconnect
    const ok = await host.callTool(echo.name, { text: 'back again' });
    expect(ok).toMatchObject({ isError: false, content: [{ type: 'text', text: 'back again' }] });
  });
});
