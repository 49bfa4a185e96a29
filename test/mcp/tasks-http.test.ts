/**
 * Task-augmented tool calls over Streamable HTTP (basic/utilities/tasks with basic/transports):
 * the HTTP mock serving the scripted mock's scenario engine (option `mcpScenario`), on
 * 127.0.0.1, real sockets and real timers (short tool delays; no timing is asserted).
 *
 * What HTTP adds to the stdio tests (spec-conformance/tasks.test.ts): the task outlives the
 * tools/call POST, so what it sends on its own (status, its notifications, progress) arrives on
 * the session's GET stream, and a request it holds (input_required) goes out while the client's
 * tasks/result POST is open — on that POST's SSE stream, or (JSON responses) on the GET stream.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript mock without type declarations
import { startHttpMock } from '../../mock-servers/http-server.mjs';
import { publicToolName, type McpHost } from '../../src/host/index.js';
import { connect, type McpClient } from '../../src/index.js';
import { httpServer, startHost } from '../support/host-calls.js';
import { until } from '../support/until.js';
import { afterEachCleanups } from '../support/cleanups.js';

const RELATED = 'io.modelcontextprotocol/related-task';

interface HttpMock {
  url: string;
  close(): Promise<void>;
  record: {
    messages: { id?: unknown; method?: string; params?: any; result?: any }[];
    requests: { method: string; body: string }[];
    sent: { via: string; message: { id?: unknown; method?: string; params?: any } }[];
  };
}

const cleanups = afterEachCleanups();

async function mockWith(mode: 'sse' | 'json', scenario: Record<string, unknown>): Promise<HttpMock> {
  const m = (await startHttpMock({ mode, mcpScenario: scenario })) as HttpMock;
  cleanups.push(() => m.close());
  return m;
}

/** Resolves once the client opened its standalone GET stream (bounded like the test). */
const getStream = (m: HttpMock) => until('the standalone GET stream', () => m.record.requests.some((q) => q.method === 'GET'), 30_000, 10);

const ASK = { tasks: { pollInterval: 50 }, tools: [{ name: 'clarify', builtin: 'ask', execution: { taskSupport: 'required' } }] };
const ELICIT = { method: 'elicitation/create', params: { message: 'Which one?', requestedSchema: { type: 'object', properties: { pick: { type: 'string' } } } } };

describe('task-augmented tools/call over Streamable HTTP', () => {
  for (const mode of ['sse', 'json'] as const) {
    it(`basic.utilities.tasks#28/#39/#40 (${mode} responses): input_required → tasks/result; the held elicitation reaches the ordinary handler with the related task, the answer goes back with it, the result arrives`, async () => {
      const m = await mockWith(mode, ASK);
      const asked: any[] = [];
      const c: McpClient = await connect(
        { transport: 'http', url: m.url, id: 'mock' },
        {
          onElicitation: async (params) => {
            asked.push(params);
            return { action: 'accept', content: { pick: 'second' } };
          },
        },
      );
      cleanups.push(() => c.close());
      await c.listTools();
      const statuses: string[] = [];
      const r = await c.callTool('clarify', ELICIT, { onTaskStatus: (t) => statuses.push(t.status) });
      const taskId = m.record.messages.find((x) => x.method === 'tasks/result')?.params.taskId as string;
      expect(typeof taskId).toBe('string');
      expect(asked).toHaveLength(1);
      expect(asked[0]._meta[RELATED]).toEqual({ taskId });
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({ action: 'accept', content: { pick: 'second' }, _meta: { [RELATED]: { taskId } } });
      expect(r._meta?.[RELATED]).toEqual({ taskId });
      expect(statuses).toContain('input_required');
      expect(statuses.at(-1)).toBe('completed');
      // where it travelled: on tasks/result's own SSE stream, or (JSON responses) on the GET stream
      const held = m.record.sent.filter((x) => x.message.method === 'elicitation/create');
      expect(held.map((x) => x.via)).toEqual([mode === 'sse' ? 'post tasks/result' : 'get']);
      // the CreateTaskResult answered the tools/call POST; the status notifications came on GET
      expect(m.record.sent.find((x) => (x.message as { result?: { task?: unknown } }).result?.task !== undefined)?.via).toBe('post tools/call');
      const statusVia = m.record.sent.filter((x) => x.message.method === 'notifications/tasks/status').map((x) => x.via);
      expect(statusVia.length).toBeGreaterThan(0);
      expect(new Set(statusVia)).toEqual(new Set(['get']));
      // the client's answer to the elicitation was a POST of its own, naming the task (tasks#40)
      const answer = m.record.messages.find((x) => x.id !== undefined && x.method === undefined && x.result?.action === 'accept');
      expect(answer?.result._meta).toEqual({ [RELATED]: { taskId } });
      expect(c.pendingCount).toBe(0);
    });
  }

  it('basic.utilities.progress#5 / basic.utilities.tasks#39: the task\'s progress and notifications, sent after the tools/call POST ended, come on the GET stream and reach the call', async () => {
    const m = await mockWith('sse', {
      tasks: { pollInterval: 50 },
      tools: [
        { name: 'steps', builtin: 'progress', execution: { taskSupport: 'required' } },
        { name: 'tev', builtin: 'events', execution: { taskSupport: 'required' } },
      ],
    });
    const c: McpClient = await connect({ transport: 'http', url: m.url, id: 'mock' });
    cleanups.push(() => c.close());
    await c.listTools();
    // the task's own messages need the standalone GET stream (the client opens it after initialize)
    await getStream(m);
    const seen: number[] = [];
    const done = await c.callTool('steps', { steps: 3, intervalMs: 30 }, { onProgress: (p) => seen.push(p.progress) });
    expect(done.content[0]).toEqual({ type: 'text', text: 'done 3 steps' });
    expect(seen).toEqual([1, 2, 3]);
    const progressVia = m.record.sent.filter((x) => x.message.method === 'notifications/progress').map((x) => x.via);
    expect(progressVia).toEqual(['get', 'get', 'get']);

    const got: { method: string; params: any }[] = [];
    c.on('notification', (n: { method: string; params: any }) => got.push(n));
    c.on('log', (params: any) => got.push({ method: 'notifications/message', params }));
    await c.callTool('tev', { count: 2, intervalMs: 20, tag: 'T' });
    const taskId = m.record.messages.filter((x) => x.method === 'tasks/result').at(-1)?.params.taskId as string;
    const own = got.filter((n) => n.method === 'notifications/tool_event' || n.method === 'notifications/message');
    expect(own.map((n) => `${n.method === 'notifications/message' ? 'log' : 'ev'}${n.params.seq ?? n.params.data?.seq}`).sort()).toEqual(['ev1', 'ev2', 'log1', 'log2']);
    for (const n of own) expect(n.params._meta[RELATED]).toEqual({ taskId });
  });
});

describe('host.callTool to task tools over Streamable HTTP', () => {
  it('basic.utilities.tasks#39: two task calls in flight each get their own task\'s notifications and logs (tied by the related task), none of the other\'s', async () => {
    const m = await mockWith('sse', { tasks: { pollInterval: 50 }, tools: [{ name: 'tevents', builtin: 'events', execution: { taskSupport: 'required' } }] });
    const host: McpHost = await startHost([httpServer('h', m.url)], { auth: false });
    cleanups.push(() => host.close());
    await getStream(m);
    type Got = { logs: unknown[]; events: unknown[] };
    const a: Got = { logs: [], events: [] };
    const b: Got = { logs: [], events: [] };
    const listeners = (got: Got) => ({
      onLog: (p: Record<string, unknown>) => got.logs.push(p.data),
      onNotification: (_method: string, params: Record<string, unknown> | undefined) => got.events.push(params),
    });
    const name = publicToolName('h', 'tevents');
    const [ra, rb] = await Promise.all([
      host.callTool(name, { count: 3, intervalMs: 60, tag: 'A' }, listeners(a)),
      host.callTool(name, { count: 3, intervalMs: 90, tag: 'B' }, listeners(b)),
    ]);
    expect([ra.outcome, rb.outcome]).toEqual(['ok', 'ok']);
    const tagSeq = (xs: unknown[]) => xs.map((x) => `${(x as { tag: string }).tag}${(x as { seq: number }).seq}`);
    expect(tagSeq(a.events)).toEqual(['A1', 'A2', 'A3']);
    expect(tagSeq(b.events)).toEqual(['B1', 'B2', 'B3']);
    expect(tagSeq(a.logs)).toEqual(['A1', 'A2', 'A3']);
    expect(tagSeq(b.logs)).toEqual(['B1', 'B2', 'B3']);
  });
});
