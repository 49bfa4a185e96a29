/**
 * Long calls through the host over Streamable HTTP: reset-on-progress and the
 * call's log messages (sent on the request's SSE stream, across a dropped and resumed stream)
 * reach host.callTool's caller, by the same rules as on stdio. Real HTTP mock on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { publicToolName, type McpHost } from '../../src/host/index.js';
import { httpServer, startHost } from '../support/host-calls.js';

let host: McpHost | undefined;
let mock: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await host?.close();
  await mock?.close();
  host = undefined;
  mock = undefined;
});

async function start(): Promise<McpHost> {
  mock = (await startHttpMock({ mode: 'sse' })) as { url: string; close(): Promise<void> };
  const h = await startHost([httpServer('h', mock.url, { requestTimeoutMs: 1000 })], { auth: false });
  host = h;
  return h;
}

describe('host.callTool over Streamable HTTP', () => {
  it('a job longer than the timeout completes with resetTimeoutOnProgress; without it, outcome timeout', async () => {
    const h = await start();
    const name = publicToolName('h', 'progress');
    const seen: number[] = [];
    const ok = await h.callTool(name, { steps: 6, ms: 300 }, { resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p.progress) });
    expect(ok).toMatchObject({ outcome: 'ok', attempts: 1 });
    expect(seen.at(-1)).toBe(6);
    const plain = await h.callTool(name, { steps: 6, ms: 300 }, { onProgress: () => {} });
    expect(plain).toMatchObject({ outcome: 'timeout', code: 'MCPWIRE_TIMEOUT' });
  });

  it('log messages the server sends on the call\'s stream, before and after the stream drops and resumes, reach onLog', async () => {
    const h = await start();
    const logs: unknown[] = [];
    const r = await h.callTool(publicToolName('h', 'resumable'), { delayMs: 50 }, { timeoutMs: 5000, onLog: (m) => logs.push(m.data) });
    expect(r.outcome).toBe('ok');
    expect(logs).toEqual(['before the drop', 'while you were away']);
  });
});
