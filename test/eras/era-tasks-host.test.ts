// clauses: 2026-07-28
/**
 * The host declares the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) by itself,
 * as it uses core tasks in the 2025-11-25 era: an embedder that gives no capabilities still gets
 * a task-handle tool's result and a task that needs input answered by its elicitation handler
 * (`tasks/update`). Real stdio mock process (mock-servers/modern/stdio-server.mjs, scenario
 * `tasks`, which refuses a task tool with -32021 to a request not declaring the extension).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task, Tool } from '../../src/index.js';
import { createHost, publicToolName, type McpHost, type ResolvedServer } from '../../src/host-api.js';
import { unavailableReason } from '../../src/host/runtime.js';
import { withTasksExtension } from '../../src/host/server-slot.js';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { CAPS, jsonLines, MODERN_SERVER } from '../support/recorded-mock.js';

const EXT = 'io.modelcontextprotocol/tasks';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-era-tasks-host-'));
const record = path.join(dir, 'modern.jsonl');
const received = () => jsonLines(record);

const modern: ResolvedServer = stdioServer('modern', [MODERN_SERVER, 'tasks'], { env: { MOCK_RECORD: record }, requestTimeoutMs: 20_000 });

const asked: unknown[] = [];
let host: McpHost;
beforeAll(async () => {
  // no capabilities given: the host declares the tasks extension itself
  host = createHost([modern], {
    permission: 'allow',
    clientOptions: {
      taskPolling: { minPollIntervalMs: 20 },
      onElicitation: async (req) => {
        asked.push(req);
        return { action: 'accept', content: { ok: true } };
      },
    },
  });
  await startAndSettle(host);
}, 40_000);
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the host and the 2026-07-28 tasks extension', () => {
  it('the tasks extension: the host declares it on every request with no capabilities from the embedder; a task-handle tool gives its result', async () => {
    expect(host.status().map((s) => [s.id, s.state, s.era])).toEqual([['modern', 'ready', 'modern']]);
    expect(host.status()[0]!.capabilities).toContain(`extensions(${EXT})`);
    const statuses: string[] = [];
    const r = await host.callTool(publicToolName('modern', 'research'), { ms: 100 }, { onTaskStatus: (t: Task) => statuses.push(t.status) });
    expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: 'slept 100 ms' }] });
    expect([statuses[0], statuses.at(-1)]).toEqual(['working', 'completed']);
    const sent = received();
    const call = sent.find((m) => m.method === 'tools/call' && m.params?.name === 'research');
    expect(call?.params._meta[CAPS].extensions).toEqual({ [EXT]: {} });
    expect(sent.some((m) => m.method === 'tasks/get')).toBe(true);
  }, 30_000);

  it('the tasks extension: a task that needs input is answered through tasks/update by the host elicitation handler', async () => {
    const r = await host.callTool(publicToolName('modern', 'approve'), { message: 'go?' });
    expect(r.isError).toBe(false);
    expect(r.content).toEqual([{ type: 'text', text: 'accept: {"ok":true} after 1 round(s)' }]);
    expect(asked.length).toBe(1);
    expect(received().some((m) => m.method === 'tasks/update')).toBe(true);
  }, 30_000);

  it('basic.versioning#4: the declared identifier is the prefixed io.modelcontextprotocol/tasks; an embedder declaration of its own is kept, other extensions too', () => {
    expect(withTasksExtension({}).capabilities).toEqual({ extensions: { [EXT]: {} } });
    const mine = { capabilities: { roots: {}, extensions: { 'com.example/ui': { a: 1 } } } };
    expect(withTasksExtension(mine).capabilities).toEqual({ roots: {}, extensions: { 'com.example/ui': { a: 1 }, [EXT]: {} } });
    const own = { capabilities: { extensions: { [EXT]: { custom: true } } } };
    expect(withTasksExtension(own)).toBe(own);
  });
});

describe('which task-required tools the host offers in 2026-07-28', () => {
  const required = { name: 'job', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } } as unknown as Tool;
  const modernClient = (serverDeclares: boolean) => ({
    protocolVersion: '2026-07-28',
    serverCapabilities: serverDeclares ? { tools: {}, extensions: { [EXT]: {} } } : { tools: {} },
    has: (f: 'tasks' | 'taskHandles') => (f === 'taskHandles' ? true : serverDeclares),
  });

  it('the tasks extension both sides declare is enough: no 2025-11-25 tasks.requests.tools.call needed', () => {
    expect(unavailableReason(required, modernClient(true))).toBeUndefined();
  });

  it('a server without the extension: the tool is not offered, and the reason names the extension', () => {
    expect(unavailableReason(required, modernClient(false))).toContain(EXT);
  });
});
