// clauses: 2026-07-28
/**
 * `mcpwire call` (the built CLI) against the 2026-07-28 tasks mock
 * (mock-servers/modern/stdio-server.mjs, scenario `tasks`, which refuses a task tool with -32021
 * to a request not declaring the extension): the CLI declares `io.modelcontextprotocol/tasks`
 * as the host does, so a tool the server runs as a task gives its result, and a task that needs
 * input gets the CLI's elicitation answer (declined: stdin is not a terminal) through
 * `tasks/update`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, MODERN_SERVER } from '../support/recorded-mock.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const cli = path.join(root, 'dist', 'cli', 'main.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-era-tasks-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function call(record: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [cli, '--stdio', `${process.execPath} ${MODERN_SERVER} tasks`, '--env', `MOCK_RECORD=${record}`, 'call', ...args], {
    cwd: dir,
    encoding: 'utf8',
    input: '',
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { ...r, received: jsonLines(record) };
}

describe.skipIf(!fs.existsSync(cli))('mcpwire call and the 2026-07-28 tasks extension', () => {
  it('the tasks extension: a tool the server answers with a task handle prints its result; the extension is declared on the call', () => {
    const r = call(path.join(dir, 'research.jsonl'), 'research', 'ms=100');
    expect([r.status, r.stdout], r.stderr).toEqual([0, 'slept 100 ms\n']);
    const toolsCall = r.received.find((m) => m.method === 'tools/call');
    expect(toolsCall?.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    expect(r.received.some((m) => m.method === 'tasks/get')).toBe(true);
    expect(r.stderr).not.toContain('-32021');
  }, 40_000);

  it('the tasks extension: a task that needs input gets the CLI elicitation answer through tasks/update', () => {
    const r = call(path.join(dir, 'approve.jsonl'), 'approve', 'message=go?');
    expect([r.status, r.stdout], r.stderr).toEqual([0, 'decline: null after 1 round(s)\n']);
    expect(r.stderr).toContain('declined an elicitation');
    expect(r.received.some((m) => m.method === 'tasks/update')).toBe(true);
  }, 40_000);
});
