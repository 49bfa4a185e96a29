/**
 * Closing while a server is still coming up, against real child processes
 * (mock-servers/stdio-server.mjs): a server whose first `tools/list` never answers is not yet
 * the slot's client, and a `reload()` under way when the host closes must not start anything
 * afterwards. In every case the server processes are gone once the close resolved.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect as connectClient } from '../../src/mcp/client.js';
import { createHost, type ConnectFn, type HostStateChange, type McpHost, type ResolvedServer } from '../../src/host/index.js';
import { alive } from '../support/cli-process.js';
import { stdioServer } from '../support/host-servers.js';
import { LEGACY_SERVER } from '../support/recorded-mock.js';
import { until } from '../support/until.js';

/** A scenario whose tools/list is never answered (until cancelled). */
const HANGING_LIST = { tools: ['echo'], behavior: { methods: { 'tools/list': { never: true } } } };

function stdio(id: string, scenario: object = { tools: ['echo'] }, tag = ''): ResolvedServer {
  return stdioServer(id, [LEGACY_SERVER], { env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario), TAG: tag }, requestTimeoutMs: 20_000 });
}


/** The engine's connect, remembering each server process's pid. */
function recording(): { connect: ConnectFn; pids: Map<string, number[]> } {
  const pids = new Map<string, number[]>();
  const connect: ConnectFn = async (config, options) => {
    const client = await connectClient(config, options);
    const id = config.id ?? '?';
    if (typeof client.pid === 'number') pids.set(id, [...(pids.get(id) ?? []), client.pid]);
    return client;
  };
  return { connect, pids };
}

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('closing during a server first tools/list', { timeout: 60_000 }, () => {
  it('host.close() while the first tools/list is unanswered ends the server process', async () => {
    const rec = recording();
    host = createHost([stdio('slow', HANGING_LIST)], { connect: rec.connect, permission: 'allow' });
    const started = host.start();
    await until('the server process to be connected', () => rec.pids.get('slow')?.length === 1);
    const [pid] = rec.pids.get('slow')!;
    expect(alive(pid)).toBe(true);
    await host.close();
    await started;
    expect(host.serverStatus('slow')!.state).toBe('closed');
    await until('the server process to exit after close()', () => !alive(pid), 5_000);
  });

  it('stopServer(id) while the first tools/list is unanswered ends the server process (state stopped)', async () => {
    const rec = recording();
    host = createHost([stdio('slow', HANGING_LIST)], { connect: rec.connect, permission: 'allow' });
    const started = host.start();
    await until('the server process to be connected', () => rec.pids.get('slow')?.length === 1);
    const [pid] = rec.pids.get('slow')!;
    expect((await host.stopServer('slow')).state).toBe('stopped');
    await started;
    await until('the server process to exit after stopServer()', () => !alive(pid), 5_000);
    expect(host.serverStatus('slow')!.state).toBe('stopped');
  });

  it('restart(id) while the first tools/list is unanswered ends the first process before the second one', async () => {
    const rec = recording();
    host = createHost([stdio('slow', HANGING_LIST)], { connect: rec.connect, permission: 'allow' });
    void host.start();
    await until('the server process to be connected', () => rec.pids.get('slow')?.length === 1);
    const [first] = rec.pids.get('slow')!;
    const restarted = host.restart('slow');
    await until('the second server process to be connected', () => rec.pids.get('slow')?.length === 2);
    await until('the first server process to exit after restart()', () => !alive(first), 5_000);
    await host.close();
    await restarted;
    const [, second] = rec.pids.get('slow')!;
    await until('the second server process to exit after close()', () => !alive(second), 5_000);
  });
});

describe('reload() racing close()', { timeout: 60_000 }, () => {
  it('a reload under way when the host closes starts nothing afterwards: every server closed, every process gone', async () => {
    const rec = recording();
    host = createHost([stdio('a', { tools: ['echo'] }, 'v1')], { connect: rec.connect, permission: 'allow' });
    await host.start();
    const h = host;
    let closing: Promise<void> | undefined;
    // close() lands while reload() is between closing the changed server and starting the new ones
    h.on('stateChange', (c: HostStateChange) => {
      if (c.server === 'a' && c.to === 'closed' && closing === undefined) closing = h.close();
    });
    const reloaded = h.reload([stdio('a', { tools: ['echo'] }, 'v2'), stdio('b')]).catch((e: unknown) => e);
    await until('close() to be called', () => closing !== undefined);
    await closing;
    await reloaded;
    for (const s of h.status()) expect(`${s.id}:${s.state}`).toBe(`${s.id}:closed`);
    // nothing comes up later either
    await new Promise((r) => setTimeout(r, 300));
    for (const s of h.status()) expect(`${s.id}:${s.state}`).toBe(`${s.id}:closed`);
    const pids = [...rec.pids.values()].flat();
    for (const pid of pids) await until(`process ${pid} to exit`, () => !alive(pid), 5_000);
  });
});
