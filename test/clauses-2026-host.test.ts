// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * The host over a 2026-07-28 stdio server that dies: the reconnected client subscribes again
 * (basic/patterns/subscriptions: the server holds no subscription state across reconnections).
 * A real host (createHost) and the scripted modern mock, whose MOCK_RECORD file collects what
 * every one of its processes received.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyNormalizedConfig } from '../src/host/config/types.js';
import { createHost, type McpHost } from '../src/host/index.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const MODERN_SERVER = path.join(root, 'mock-servers', 'modern', 'stdio-server.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clauses-2026-host-'));
let host: McpHost | undefined;
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Msg = Record<string, any>;

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('subscriptions across a reconnection (2026-07-28, stdio)', () => {
  it('basic.patterns.subscriptions#7: the stdio server is killed; the host reconnects and the new connection sends subscriptions/listen again', async () => {
    const record = path.join(dir, 'in.jsonl');
    const received = (): Msg[] => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Msg) : []);
    host = createHost(
      [
        {
          id: 'modern',
          source: 'global',
          file: '/u/config.json',
          enabled: true,
          transport: 'stdio',
          config: { ...emptyNormalizedConfig(), command: process.execPath, args: [MODERN_SERVER], env: { MOCK_RECORD: record }, requestTimeoutMs: 15_000 },
        },
      ],
      { permission: 'allow' },
    );
    await host.start();
    const count = (method: string) => received().filter((r) => r.method === method).length;
    await until(() => count('subscriptions/listen') === 1, 'the first subscriptions/listen');
    expect(count('server/discover')).toBe(1);
    const pid = host.status()[0]!.pid;
    expect(pid).toEqual(expect.any(Number));
    process.kill(pid!, 'SIGKILL'); // the server process this host started dies
    await until(() => count('server/discover') === 2, 'the reconnection');
    await until(() => count('subscriptions/listen') === 2, 'the second subscriptions/listen');
    const listens = received().filter((r) => r.method === 'subscriptions/listen');
    expect(listens[1]!.params).toMatchObject({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    // the second listen asks for what the first did: the same filter, on the new connection
    const { _meta: _a, ...first } = listens[0]!.params;
    const { _meta: _b, ...second } = listens[1]!.params;
    expect(second).toEqual(first);
  }, 60_000);
});
