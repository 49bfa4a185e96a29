/**
 * `mcpwire call --events`: the notifications tied to the call (log messages, custom ones) on
 * stderr as they arrive — before the result, while the call still runs — and none without the
 * flag. The built CLI against the mock server. Needs `dist/`.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, until } from '../support/cli-process.js';
import { cleanup, mockJs, node, run, sandbox, writeJson } from '../support/cli-user.js';

afterAll(cleanup);

const scenario = {
  tools: [
    'echo',
    'events',
    {
      name: 'slowly',
      builtin: 'echo',
      behavior: { notifications: [{ method: 'notifications/tool_event', params: { step: 1 } }, { method: 'notifications/message', params: { level: 'info', logger: 'work', data: 'started' } }], delayMs: 4000 },
    },
  ],
};

describe('mcpwire call --events', { timeout: 120_000 }, () => {
  const sb = sandbox();
  writeJson(sb.projectFile, { version: 1, mcp: { servers: { m: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_SCENARIO_JSON: JSON.stringify(scenario) } } } } });

  it('prints each notification and log message of the call on stderr; the result alone on stdout', async () => {
    const r = await run(sb, ['call', 'm', 'events', 'count=2', 'intervalMs=10', 'tag=t', '--events']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('notification ') || l.startsWith('log '));
    expect(lines.filter((l) => l.startsWith('notification notifications/tool_event '))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('log '))).toHaveLength(2);
    expect(lines[0]).toMatch(/"tag":"t"/);
    expect(r.stdout).toBe('sent 2 notifications/tool_event\n');
    const quiet = await run(sb, ['call', 'm', 'events', 'count=2', 'intervalMs=10', 'tag=t']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/tool_event|^log /m);
  });

  it('as they arrive: the lines are on stderr while the call is still running', async () => {
    await run(sb, ['trust', '.']); // the sandbox's project, as run() trusts it
    const child = spawn(node, [cli, 'call', 'm', 'slowly', 'text=done', '--events'], { cwd: sb.proj, env: { ...process.env, ...sb.env } });
    let stderr = '';
    let stdout = '';
    let exited = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => ((exited = true), resolve(code))));
    const seen = await until(() => stderr.includes('notification notifications/tool_event {"step":1}') && stderr.includes('log info work: started'), 30_000);
    expect(seen, stderr).toBe(true);
    expect(exited).toBe(false); // the server holds the answer for 4 s
    expect(stdout).toBe('');
    expect(await closed).toBe(0);
    expect(stdout).toBe('done\n');
  });
});
