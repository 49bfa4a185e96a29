/**
 * The host's `notification` event: every notification of a server that no tool call's listener
 * received (rules in src/host/call-notifications.ts) — none in flight, two in flight with nothing
 * to tell them apart, a call without a listener — reaches the embedder with the server's id and
 * its credentials taken out. Against the real stdio mock server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HostNotification, McpHost } from '../../src/host/index.js';
import { mockServer, startHost, toolName } from '../support/host-calls.js';

const SCENARIO = { tools: ['events', 'echo'] };
let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function collect(h: McpHost): HostNotification[] {
  const seen: HostNotification[] = [];
  h.on('notification', (n: HostNotification) => seen.push(n));
  return seen;
}

describe('host notification event: what no call could be tied to', { timeout: 30_000 }, () => {
  it('a custom tool_event without a progress token while two calls are in flight reaches the host event (server, method, params), not a call', async () => {
    host = await startHost([mockServer('e', SCENARIO)]);
    const seen = collect(host);
    const calls: string[] = [];
    const onNotification = (method: string) => calls.push(method);
    const name = toolName('e', 'events');
    // A sends at ~100 and ~200 ms while B runs; B sends once at ~1500 ms, long after A ended
    await Promise.all([
      host.callTool(name, { count: 2, intervalMs: 100, method: 'tool_event', tag: 'A' }, { onNotification }),
      host.callTool(name, { count: 1, intervalMs: 1500, method: 'tool_event', tag: 'B' }, { onNotification: () => {} }),
    ]);
    const custom = seen.filter((n) => n.method === 'tool_event');
    expect(custom).toEqual([
      { server: 'e', method: 'tool_event', params: { tag: 'A', seq: 1 } },
      { server: 'e', method: 'tool_event', params: { tag: 'A', seq: 2 } },
    ]);
    expect(calls).toEqual([]);
    // each tool_event comes with a log message: those no call took are host events too
    expect(seen.filter((n) => n.method === 'notifications/message').map((n) => (n.params?.data as { tag: string }).tag)).toContain('A');
  });

  it('a notification tied to the only call in flight goes to its listener, not to the host event; without a listener it goes to the host event', async () => {
    host = await startHost([mockServer('e', SCENARIO)]);
    const seen = collect(host);
    const got: string[] = [];
    await host.callTool(toolName('e', 'events'), { count: 1, intervalMs: 1, tag: 'own' }, { onNotification: (m) => got.push(m), onLog: () => {} });
    expect(got).toEqual(['notifications/tool_event']);
    expect(seen).toEqual([]);
    await host.callTool(toolName('e', 'events'), { count: 1, intervalMs: 1, tag: 'loose' });
    expect(seen.map((n) => [n.server, n.method, (n.params as { tag?: string; data?: { tag: string } }).tag ?? (n.params?.data as { tag: string }).tag])).toEqual([
      ['e', 'notifications/tool_event', 'loose'],
      ['e', 'notifications/message', 'loose'],
    ]);
  });

  it('a notification sent while no call is in flight (during the first tools/list) is a host event; the server credentials are taken out of its params', async () => {
    const secret = 'tok-5e4f3a2b1c0d9b8a7c6d';
    const scenario = { ...SCENARIO, behavior: { methods: { 'tools/list': { notifications: [{ method: 'notifications/startup', params: { note: `key=${secret}`, ok: true } }] } } } };
    const server = mockServer('s', scenario, {}, { SERVICE_TOKEN: secret });
    const { createHost } = await import('../../src/host/index.js');
    host = createHost([server], { permission: 'allow' });
    const seen = collect(host);
    await host.start();
    expect(host.serverStatus('s')!.state).toBe('ready');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ server: 's', method: 'notifications/startup', params: { ok: true } });
    expect(JSON.stringify(seen)).not.toContain(secret);
    expect(String(seen[0].params?.note)).toMatch(/^key=/);
  });
});
