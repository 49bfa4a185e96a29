/**
 * The apps extension is declared only when the embedder opts in, on both revisions: in
 * `initialize` (2025-11-25: test/apps-mock-servers.test.ts) and, on 2026-07-28, in every request's
 * client-capabilities `_meta` (the stateless revision has no handshake to carry it). A real host
 * against the 2026-07-28 scripted server (mock-servers/modern), its received messages recorded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type McpHost } from '../../src/host/index.js';
import { APPS_EXTENSION, publicNameOf, withAppsExtension } from '../../src/apps/index.js';
import { root } from '../support/cli-process.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { tempDirs } from '../support/temp-dirs.js';

const MODERN = join(root, 'mock-servers/modern/stdio-server.mjs');
const dir = tempDirs('mcpwire-apps-cap-')();
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function received(tag: string, optIn: boolean): Promise<Record<string, any>[]> {
  const record = join(dir, `${tag}.jsonl`);
  host = createHost([stdioServer('m', [MODERN], { env: { MOCK_RECORD: record } })], { clientOptions: optIn ? withAppsExtension({}) : {}, permission: 'allow', backoff: { maxRetries: 0 } });
  await startAndSettle(host);
  expect(host.serverStatus('m')?.state).toBe('ready');
  expect((await host.callTool(publicNameOf(host, 'm', 'echo')!, { text: 'hi' })).outcome).toBe('ok');
  return readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('the apps extension on 2026-07-28 (per-request client capabilities)', () => {
  it('opted in: every request carries it with the view MIME type', { timeout: 60_000 }, async () => {
    const requests = (await received('in', true)).filter((m) => typeof m.method === 'string' && m.id !== undefined);
    expect(requests.map((m) => m.method)).toEqual(expect.arrayContaining(['server/discover', 'tools/list', 'tools/call']));
    for (const m of requests) {
      expect(m.params._meta[CAPS].extensions?.[APPS_EXTENSION], m.method).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
    }
  });

  it('not opted in: no request carries it', { timeout: 60_000 }, async () => {
    const requests = (await received('out', false)).filter((m) => typeof m.method === 'string' && m.id !== undefined);
    expect(requests.some((m) => m.method === 'tools/call')).toBe(true);
    for (const m of requests) expect(m.params?._meta?.[CAPS]?.extensions?.[APPS_EXTENSION], m.method).toBeUndefined();
  });
});
