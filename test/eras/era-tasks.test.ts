// clauses: 2026-07-28
/**
 * One `callTool` for both eras' tasks, through the host: a 2025-11-25 server whose tool requires
 * a task (core tasks: task-augmented `tools/call`, `tasks/get`, `tasks/result`) and a
 * 2026-07-28 server that answers with a task handle of the tasks extension (`tasks/get` until
 * terminal, result inline) give the host the same outcome — the result, the failure, the
 * statuses seen. Real stdio mock processes (mock-servers/stdio-server.mjs with tasks in its
 * scenario, mock-servers/modern/stdio-server.mjs with scenarios/tasks.json).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type McpClient, type Task } from '../../src/index.js';
import { createHost, publicToolName, type McpHost, type ResolvedServer } from '../../src/host-api.js';
import { startModernHttpMock } from '../../mock-servers/modern/http-server.mjs';
import { readModernScenarioFile, resolveModernScenario } from '../../mock-servers/modern/lib/scenario.mjs';
import { startAndSettle, stdioServer } from '../support/host-servers.js';
import { jsonLines, LEGACY_SERVER, MODERN_SERVER } from '../support/recorded-mock.js';

const EXT = 'io.modelcontextprotocol/tasks';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-era-tasks-'));
const record = (id: string) => path.join(dir, `${id}.jsonl`);
const received = (id: string) => jsonLines(record(id));

/** The 2025-11-25 mock: the same tools, task-required (core tasks). */
const LEGACY_SCENARIO = {
  tasks: { pollInterval: 50 },
  tools: [
    'echo',
    { name: 'research', builtin: 'slow', execution: { taskSupport: 'required' } },
    { name: 'doomed', execution: { taskSupport: 'required' }, error: { code: -32603, message: 'the job crashed', data: { step: 3 } } },
    { name: 'flaky', execution: { taskSupport: 'required' }, result: { content: [{ type: 'text', text: 'the tool failed' }], isError: true } },
  ],
};

function server(id: string, args: string[], env: Record<string, string> = {}): ResolvedServer {
  return stdioServer(id, args, { env: { ...env, MOCK_RECORD: record(id) }, requestTimeoutMs: 20_000 });
}

let host: McpHost;
beforeAll(async () => {
  host = createHost(
    [
      server('legacy', [LEGACY_SERVER], { MOCK_SCENARIO_JSON: JSON.stringify(LEGACY_SCENARIO) }),
      server('modern', [MODERN_SERVER, 'tasks']),
    ],
    // the host enables the 2026-07-28 tasks extension (declared in every request's capabilities)
    { permission: 'allow', clientOptions: { capabilities: { extensions: { [EXT]: {} } }, taskPolling: { minPollIntervalMs: 20 } } },
  );
  await startAndSettle(host);
}, 40_000);
afterAll(async () => {
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A host result with the server's id made neutral, for comparing the two eras: without its
 * timing and its `_meta` (each era's own: the 2025-11-25 related-task, the 2026-07-28 serverInfo).
 */
function neutral(r: unknown, id: string): unknown {
  const { durationMs: _d, _meta: _m, ...rest } = r as Record<string, unknown>;
  return JSON.parse(JSON.stringify(rest).replaceAll(id, 'SERVER'));
}

describe('host.callTool on a task, whatever the era', () => {
  it('each server is ready in its era', () => {
    expect(host.status().map((s) => [s.id, s.era, s.protocolVersion])).toEqual([
      ['legacy', 'handshake', '2025-11-25'],
      ['modern', 'modern', '2026-07-28'],
    ]);
  });

  it('the tasks extension: a tool the server runs as a task gives the same result and statuses as a 2025-11-25 task-required tool', async () => {
    const outcome: Record<string, unknown> = {};
    for (const id of ['legacy', 'modern']) {
      const statuses: string[] = [];
      const r = await host.callTool(publicToolName(id, 'research'), { ms: 200 }, { onTaskStatus: (t: Task) => statuses.push(t.status) });
      outcome[id] = { result: neutral(r, id), first: statuses[0], last: statuses.at(-1) };
    }
    expect(outcome.modern).toEqual(outcome.legacy);
    expect(outcome.legacy).toMatchObject({ result: { isError: false, content: [{ type: 'text', text: 'slept 200 ms' }] }, first: 'working', last: 'completed' });
    // each era's own wire: task-augmented call and tasks/result, or a plain call and tasks/get only
    expect(received('legacy').find((m) => m.method === 'tools/call')?.params.task).toEqual({});
    expect(received('legacy').some((m) => m.method === 'tasks/result')).toBe(true);
    const modern = received('modern');
    expect(modern.find((m) => m.method === 'tools/call')?.params.task).toBeUndefined();
    expect(modern.some((m) => m.method === 'tasks/get')).toBe(true);
    expect(modern.some((m) => m.method === 'tasks/result')).toBe(false);
  }, 30_000);

  it('the tasks extension: a failed task and a tool error inside a task give the host the same outcomes in both eras', async () => {
    for (const tool of ['doomed', 'flaky']) {
      const legacy = await host.callTool(publicToolName('legacy', tool), {});
      const modern = await host.callTool(publicToolName('modern', tool), {});
      expect(legacy.isError, tool).toBe(true);
      expect(neutral(modern, 'modern'), tool).toEqual(neutral(legacy, 'legacy'));
    }
  }, 30_000);
});

describe('McpClient.has("tasks") per era', () => {
  it('2025-11-25: tasks are core (has), no task handles; 2026-07-28: the extension both sides declared (has), handles followed', async () => {
    const clients: McpClient[] = [];
    try {
      const legacy = await connect(
        { transport: 'stdio', id: 'l', command: process.execPath, args: [LEGACY_SERVER], env: { MOCK_SCENARIO_JSON: JSON.stringify(LEGACY_SCENARIO) } },
        { capabilities: { extensions: { [EXT]: {} } } },
      );
      clients.push(legacy);
      expect([legacy.era, legacy.has('tasks'), legacy.has('taskHandles')]).toEqual(['handshake', true, false]);
      const modern = await connect({ transport: 'stdio', id: 'm', command: process.execPath, args: [MODERN_SERVER, 'tasks'] }, { capabilities: { extensions: { [EXT]: {} } } });
      clients.push(modern);
      expect([modern.era, modern.has('tasks'), modern.has('taskHandles')]).toEqual(['modern', true, true]);
      const undeclared = await connect({ transport: 'stdio', id: 'u', command: process.execPath, args: [MODERN_SERVER, 'tasks'] }, {});
      clients.push(undeclared);
      expect([undeclared.era, undeclared.has('tasks'), undeclared.has('taskHandles')]).toEqual(['modern', false, false]);
    } finally {
      for (const c of clients) await c.close();
    }
  }, 30_000);
});

describe('the tasks extension over Streamable HTTP', () => {
  it('the tasks extension: tasks/get, tasks/update and tasks/cancel carry Mcp-Name = their taskId (the mock refuses a mismatch); the call completes', async () => {
    const m = await startModernHttpMock({ port: 0, scenario: resolveModernScenario(readModernScenarioFile('tasks')), stderr: () => {} });
    let c: McpClient | undefined;
    try {
      c = await connect(
        { transport: 'http', id: 'h', url: m.url },
        {
          timeoutMs: 15_000,
          capabilities: { extensions: { [EXT]: {} } },
          taskPolling: { minPollIntervalMs: 20 },
          onElicitation: async () => ({ action: 'accept', content: { ok: true } }),
        },
      );
      expect(c.era).toBe('modern');
      const r = await c.callTool('approve', { message: 'go?' });
      expect(r.content).toEqual([{ type: 'text', text: 'accept: {"ok":true} after 1 round(s)' }]);
      const slow = new AbortController();
      const aborted = c.callTool('research', { ms: 60_000 }, { signal: slow.signal }).catch((e: unknown) => e);
      // abort once the second task is being polled (a tasks/get after the second tools/call)
      const polled = () => {
        const second = m.record.requests.findIndex((q, i) => q.method === 'tools/call' && m.record.requests.slice(0, i).some((x) => x.method === 'tools/call'));
        return second >= 0 && m.record.requests.slice(second).some((q) => q.method === 'tasks/get');
      };
      const until = Date.now() + 10_000;
      while (!polled() && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
      slow.abort(new Error('stop'));
      await aborted;
      const end = Date.now() + 5_000;
      while (!m.record.requests.some((q) => q.method === 'tasks/cancel') && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
      const taskRequests = m.record.requests.filter((q) => q.method.startsWith('tasks/'));
      expect(new Set(taskRequests.map((q) => q.method))).toEqual(new Set(['tasks/get', 'tasks/update', 'tasks/cancel']));
      for (const q of taskRequests) {
        expect(q.rejected, q.method).toBeUndefined();
        expect(q.headers?.['mcp-name'], q.method).toEqual(expect.any(String));
        expect(q.headers?.['mcp-method'], q.method).toBe(q.method);
      }
    } finally {
      await c?.close();
      await m.close();
    }
  }, 30_000);
});
