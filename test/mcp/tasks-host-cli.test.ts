/**
 * Task-required tools through the host (`host.callTool`) and the CLI (`mcpwire call`), against
 * the scripted stdio mock (mock-servers/stdio-server.mjs) with task support in its scenario.
 * The CLI tests need dist/ (`npx tsc -p tsconfig.build.json && node scripts/postbuild.mjs`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { taskStatusPrinter } from '../../src/cli/progress.js';
import { createHost, publicToolName, type McpHost, type ResolvedServer } from '../../src/host-api.js';
import type { Task } from '../../src/index.js';
import { MOCK, mockServer } from '../support/host-calls.js';
import { jsonLines } from '../support/recorded-mock.js';
import { tempDirs } from '../support/temp-dirs.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const cli = path.join(root, 'dist/cli/main.js');

const research = { name: 'research', builtin: 'slow', execution: { taskSupport: 'required' } };
const withTasks = { tasks: { pollInterval: 50 }, tools: [research, 'echo'] };

const tmp = tempDirs('mcpwire-tasks-');
const received = jsonLines;

const server = (id: string, scenario: object, record?: string): ResolvedServer => mockServer(id, scenario, {}, record ? { MOCK_RECORD: record } : {});

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('host: task-required tools', () => {
  it('basic.utilities.tasks#7: host.callTool runs a task-required tool as a task and returns its result; onTaskStatus sees the statuses', async () => {
    const record = path.join(tmp(), 'received.jsonl');
    host = createHost([server('m', withTasks, record)], { permission: 'allow' });
    await host.start();
    const statuses: string[] = [];
    const r = await host.callTool(publicToolName('m', 'research'), { ms: 200 }, { onTaskStatus: (t: Task) => statuses.push(t.status) });
    expect(r.isError).toBe(false);
    expect(r.content[0]).toEqual({ type: 'text', text: 'slept 200 ms' });
    expect(statuses[0]).toBe('working');
    expect(statuses.at(-1)).toBe('completed');
    const calls = received(record).filter((m) => m.method === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(calls[0].params.task).toEqual({});
    expect(received(record).some((m) => m.method === 'tasks/result')).toBe(true);
  });

  it('basic.utilities.tasks#4: on a server without tasks.requests.tools.call the task-required tool is not offered (unavailableTools and a diagnostic say why); calling it is a tool error result, nothing sent', async () => {
    const record = path.join(tmp(), 'received.jsonl');
    host = createHost([server('m', { tools: [research, 'echo'] }, record)], { permission: 'allow' });
    const diagnostics: { server?: string; message: string }[] = [];
    host.on('diagnostic', (d) => diagnostics.push(d));
    await host.start();
    expect(host.tools().map((t) => t.tool)).toEqual(['echo']);
    expect(host.unavailableTools()).toEqual([{ server: 'm', tool: 'research', reason: expect.stringMatching(/requires task execution.*tasks\.requests\.tools\.call/) }]);
    expect(host.serverStatus('m')).toMatchObject({ tools: 1, toolsUnavailable: 1 });
    expect(diagnostics).toContainEqual({ server: 'm', message: expect.stringMatching(/^tool "research" requires task execution/) });
    const r = await host.callTool(publicToolName('m', 'research'), { ms: 1 });
    expect(r.isError).toBe(true);
    expect(received(record).filter((m) => m.method === 'tools/call')).toHaveLength(0);
  });
});

/** Runs the CLI; `onStderr` may act on what it prints so far. */
function runCli(args: string[], onOutput?: (stderr: string, child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, [cli, ...args], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCPWIRE_TRACE: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    onOutput?.(stderr, child);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('mcpwire call: task-required tools', { timeout: 60_000 }, () => {
  function adHoc(scenario: object) {
    const dir = tmp();
    const file = path.join(dir, 'scenario.json');
    const record = path.join(dir, 'received.jsonl');
    fs.writeFileSync(file, JSON.stringify(scenario));
    return { args: ['--stdio', `env MOCK_RECORD=${record} ${process.execPath} ${MOCK} ${file}`], record };
  }

  it('prints the final result on stdout and the task status on stderr', async () => {
    const { args } = adHoc(withTasks);
    const r = await runCli([...args, 'call', 'research', '--args', '{"ms":300}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('slept 300 ms\n');
    expect(r.stderr).toMatch(/^task [0-9a-f-]{36} working \d+s…/m);
    expect(r.stderr).toMatch(/^task [0-9a-f-]{36} completed \d+s…/m);
  });

  it('Ctrl-C during a task-augmented call sends tasks/cancel before closing the server; exit 130', async () => {
    const { args, record } = adHoc(withTasks);
    let sent = false;
    const r = await runCli([...args, 'call', 'research', '--args', '{"ms":60000}'], (stderr, child) => {
      if (!sent && /working/.test(stderr)) {
        sent = true;
        process.kill(-child.pid!, 'SIGINT');
      }
    });
    expect(sent, r.stderr).toBe(true);
    expect(r.code, r.stderr).toBe(130);
    const got = received(record);
    const taskId = got.find((m) => m.method === 'tasks/get')?.params.taskId ?? got.find((m) => m.method === 'tasks/cancel')?.params.taskId;
    expect(got.filter((m) => m.method === 'tasks/cancel').map((m) => m.params)).toEqual([{ taskId }]);
  });
});

describe('task status on stderr (taskStatusPrinter)', () => {
  const task = (status: Task['status'], statusMessage?: string): Task => ({ taskId: 't-1', status, statusMessage, createdAt: '', lastUpdatedAt: '', ttl: null });
  const sink = (isTTY: boolean) => {
    const out: string[] = [];
    return { out, stream: { isTTY, write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WriteStream };
  };

  it('not a terminal — one line per status change with the elapsed seconds; the server\'s control characters are dropped', () => {
    let now = 10_000;
    const { out, stream } = sink(false);
    const p = taskStatusPrinter(stream, () => now);
    p.onTaskStatus(task('working', 'step\u001b[2J 1'));
    now += 3_400;
    p.onTaskStatus(task('completed'));
    p.done();
    expect(out).toEqual(['task t-1 working 0s… step[2J 1\n', 'task t-1 completed 3s…\n']);
  });

  it('on a terminal the line is redrawn every second (elapsed time moves) and cleared at the end', () => {
    vi.useFakeTimers();
    try {
      const { out, stream } = sink(true);
      const p = taskStatusPrinter(stream, () => Date.now());
      p.onTaskStatus(task('working'));
      vi.advanceTimersByTime(2_000);
      p.done();
      vi.advanceTimersByTime(5_000); // nothing after done()
      expect(out).toEqual(['\r\u001b[2Ktask t-1 working 0s…', '\r\u001b[2Ktask t-1 working 1s…', '\r\u001b[2Ktask t-1 working 2s…', '\r\u001b[2K']);
    } finally {
      vi.useRealTimers();
    }
  });
});
