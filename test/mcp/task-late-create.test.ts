/**
 * basic.utilities.cancellation#3 against the scripted stdio mock in a real child process: a
 * task-augmented `tools/call` aborted before the server answered. The server creates the task
 * anyway (it ignores `notifications/cancelled` and answers late); the client cancels that task
 * with `tasks/cancel` once the late CreateTaskResult names it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { AbortError, connect, type McpClient } from '../../src/index.js';

const mock = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..', 'mock-servers', 'stdio-server.mjs');
let client: McpClient | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
});

const scenario = {
  tasks: { pollInterval: 100 },
  tools: [{ name: 'research', builtin: 'slow', execution: { taskSupport: 'required' }, behavior: { delayMs: 400, ignoreCancel: true } }],
};

it('basic.utilities.cancellation#3: the task a late CreateTaskResult names is cancelled with tasks/cancel (stdio mock)', async () => {
  client = await connect(
    { transport: 'stdio', id: 'late-task', command: process.execPath, args: [mock], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } },
    { timeoutMs: 10_000 },
  );
  await client.listTools();
  const ac = new AbortController();
  const call = client.callTool('research', { ms: 60_000 }, { signal: ac.signal }).catch((e: unknown) => e);
  setTimeout(() => ac.abort('gave up'), 50);
  expect(await call).toBeInstanceOf(AbortError);
  // generous bound: the server answers after its 400 ms delay, then tasks/cancel goes out
  let tasks = await client.listTasks();
  for (let i = 0; i < 100 && (tasks.length === 0 || tasks[0]!.status !== 'cancelled'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    tasks = await client.listTasks();
  }
  expect(tasks).toHaveLength(1);
  expect(tasks[0]!.status).toBe('cancelled');
  expect(client.pendingCount).toBe(0);
}, 30_000);
