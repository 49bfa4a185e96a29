/**
 * Tasks against the reference server `@modelcontextprotocol/server-everything` (a real child
 * process over stdio): its `simulate-research-query` tool has `execution.taskSupport: "required"`,
 * so the client and `mcpwire call` must run it through tasks.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type McpClient, type Task } from '../../src/index.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const cli = path.join(root, 'dist/cli/main.js');

let client: McpClient;
const methods: string[] = [];

// Each research query takes the server 4 s (four 1 s stages): the CLI run, with its own server
// process, goes at the same time as the client's connect and its two tests, which run one after
// the other (the first checks the order of the client's requests; the second would add to them).
describe.concurrent('interop: tasks with server-everything', { timeout: 60_000 }, () => {
  describe('on the client connected in beforeAll', () => {
    beforeAll(async () => {
      client = await connect(
        { transport: 'stdio', id: 'everything', command: process.execPath, args: [everything, 'stdio'] },
        { timeoutMs: 20_000, observer: { message: (dir, m) => dir === 'out' && 'method' in (m as object) && methods.push(String((m as { method: string }).method)), event: () => {} } },
      );
    });

    afterAll(async () => {
      await client?.close();
      expect(client.pendingCount).toBe(0);
    });

    it.sequential('basic.utilities.tasks#7/#11: callTool of the task-required simulate-research-query completes through tasks/get and tasks/result', async ({ expect }) => {
      expect(client.serverCapabilities?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
      const statuses: Task[] = [];
      const r = await client.callTool('simulate-research-query', { topic: 'interop' }, { onTaskStatus: (t) => statuses.push(t), taskTtlMs: 120_000 });
      expect(r.isError).toBeFalsy();
      expect((r.content[0] as { text: string }).text).toContain('Research Report: interop');
      const taskId = statuses[0].taskId;
      expect(statuses.every((t) => t.taskId === taskId)).toBe(true);
      expect(statuses[0].status).toBe('working');
      expect(statuses.at(-1)!.status).toBe('completed');
      // never called plain: the only tools/call went out with `task`, after tools/list taught taskSupport
      expect(methods.filter((m) => m.startsWith('tools/') || m.startsWith('tasks/')).slice(0, 2)).toEqual(['tools/list', 'tools/call']);
      expect(methods).toContain('tasks/get');
      expect(methods).toContain('tasks/result');
      expect((await client.getTask(taskId)).status).toBe('completed');
      expect((await client.listTasks()).map((t) => t.taskId)).toContain(taskId);
      expect(client.pendingCount).toBe(0);
    });

    it.sequential('basic.utilities.tasks#51: cancelTask moves a running task to cancelled', async ({ expect }) => {
      const task = await client.createTask('simulate-research-query', { topic: 'to cancel' });
      expect(task.status).toBe('working');
      const cancelled = await client.cancelTask(task.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect((await client.getTask(task.taskId)).status).toBe('cancelled');
    });
  });

  it('`mcpwire --stdio "npx -y @modelcontextprotocol/server-everything" call simulate-research-query --json` prints the result; status on stderr', async ({ expect }) => {
    const child = spawn(process.execPath, [cli, '--stdio', 'npx -y @modelcontextprotocol/server-everything', 'call', 'simulate-research-query', '--args', '{"topic":"x"}', '--json'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCPWIRE_TRACE: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.content[0].text).toContain('Research Report: x');
    expect(result._meta['io.modelcontextprotocol/related-task'].taskId).toMatch(/\S/);
    expect(stderr).toMatch(/^task \S+ working \d+s…/m);
    expect(stderr).toMatch(/^task \S+ completed \d+s…/m);
  });
});
