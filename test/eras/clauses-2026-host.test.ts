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
import { afterAll, describe, expect, it } from 'vitest';
import { createHost, type McpHost } from '../../src/host/index.js';
import { stdioServer } from '../support/host-servers.js';
import { jsonLines, MODERN_SERVER } from '../support/recorded-mock.js';
import { until } from '../support/until.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clauses-2026-host-'));
let host: McpHost | undefined;
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});


describe('subscriptions across a reconnection (2026-07-28, stdio)', () => {
  it('basic.patterns.subscriptions#7: the stdio server is killed; the host reconnects and the new connection sends subscriptions/listen again', async () => {
    const record = path.join(dir, 'in.jsonl');
    const received = () => jsonLines(record);
    host = createHost([stdioServer('modern', [MODERN_SERVER], { env: { MOCK_RECORD: record }, requestTimeoutMs: 15_000 })], { permission: 'allow' });
    await host.start();
    const count = (method: string) => received().filter((r) => r.method === method).length;
    await until('the first subscriptions/listen', () => count('subscriptions/listen') === 1, 20_000, 50);
    expect(count('server/discover')).toBe(1);
    const pid = host.status()[0]!.pid;
    expect(pid).toEqual(expect.any(Number));
    process.kill(pid!, 'SIGKILL'); // the server process this host started dies
    await until('the reconnection', () => count('server/discover') === 2, 20_000, 50);
    await until('the second subscriptions/listen', () => count('subscriptions/listen') === 2, 20_000, 50);
    const listens = received().filter((r) => r.method === 'subscriptions/listen');
    expect(listens[1]!.params).toMatchObject({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    // the second listen asks for what the first did: the same filter, on the new connection
    const { _meta: _a, ...first } = listens[0]!.params;
    const { _meta: _b, ...second } = listens[1]!.params;
    expect(second).toEqual(first);
  }, 60_000);
});
