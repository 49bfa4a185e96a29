/**
 * `mcpwire call <id>.<tool>` (one word, as other tools name a server's tool) works as
 * `mcpwire call <id> <tool>` does; a tool name may hold dots (a server id holds none). The built
 * CLI against the mock server, whose record shows which tool was called. Needs `dist/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitDotted } from '../../src/cli/commands/call.js';
import { cleanup, mockJs, node, run, sandbox, writeJson } from '../support/cli-user.js';

afterAll(cleanup);

describe('mcpwire call <id>.<tool>', { timeout: 120_000 }, () => {
  it('splits at the first dot', () => {
    expect(splitDotted('m.echo')).toEqual({ server: 'm', tool: 'echo' });
    expect(splitDotted('m.files.read')).toEqual({ server: 'm', tool: 'files.read' });
  });

  it('the built CLI calls the same tool either way, also a tool name with dots; an unknown id is named', async () => {
    const sb = sandbox();
    const record = path.join(sb.dir, 'record.jsonl');
    const scenario = { tools: ['echo', { name: 'files.read', description: 'Reads', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, result: { content: [{ type: 'text', text: 'read it' }] } }] };
    const mock = (file: string) => ({ transport: 'stdio', command: node, args: [mockJs], env: { MOCK_RECORD: file, MOCK_SCENARIO_JSON: JSON.stringify(scenario) } });
    writeJson(sb.projectFile, { version: 1, mcp: { servers: { m: mock(record) } } });

    const spaced = await run(sb, ['call', 'm', 'echo', 'text=hi']);
    const dotted = await run(sb, ['call', 'm.echo', 'text=hi']);
    expect(dotted).toEqual(spaced);
    expect(dotted).toMatchObject({ code: 0, stdout: 'hi\n' });
    const nested = await run(sb, ['call', 'm.files.read', 'path=x']);
    expect(nested).toMatchObject({ code: 0, stdout: 'read it\n' });
    const jsonOnly = await run(sb, ['call', 'm.echo', '--args', '{"text":"there"}']);
    expect(jsonOnly).toMatchObject({ code: 0, stdout: 'there\n' });
    const names = (file: string) =>
      fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method?: string; params?: { name?: string } })
        .filter((m) => m.method === 'tools/call')
        .map((m) => m.params?.name);
    expect(names(record)).toEqual(['echo', 'echo', 'files.read', 'echo']);

    const unknown = await run(sb, ['call', 'mm.echo', 'text=hi']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown server "mm" (did you mean "m"?)');
  });
});
