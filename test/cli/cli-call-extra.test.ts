/**
 * `mcpwire call` with an argument the tool does not declare (`read_text_file path=x heda=1`): a
 * usage error with "did you mean", nothing sent, whatever the schema's `additionalProperties`
 * says — unless `--allow-extra`. The built CLI against the mock server, which records what it
 * receives. Needs `dist/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, mockJs, node, run, sandbox } from '../support/cli-user.js';

afterAll(cleanup);

/** The tools/call requests the mock received. */
function calls(record: string): Array<{ name: string; arguments: Record<string, unknown> }> {
  if (!fs.existsSync(record)) return [];
  return fs
    .readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { method?: string; params?: { name: string; arguments: Record<string, unknown> } })
    .filter((m) => m.method === 'tools/call')
    .map((m) => ({ name: m.params!.name, arguments: m.params!.arguments }));
}

describe('mcpwire call: arguments a tool does not declare', { timeout: 120_000 }, () => {
  it('an undeclared argument (no additionalProperties in the schema) is exit 2 with "did you mean", and nothing is sent', async () => {
    const sb = sandbox();
    const record = path.join(sb.dir, 'record.jsonl');
    const servers = { m: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_RECORD: record } } };
    fs.mkdirSync(path.dirname(sb.projectFile), { recursive: true });
    fs.writeFileSync(sb.projectFile, JSON.stringify({ version: 1, mcp: { servers } }));

    const typo = await run(sb, ['call', 'm', 'echo', 'text=hi', 'tex=1']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('invalid arguments for tool "echo": unknown argument "tex" (did you mean "text"?)');
    expect(typo.stderr).toContain('nothing was sent');
    expect(typo.stderr).toContain('usage: echo(text: string)');
    const unrelated = await run(sb, ['call', 'm', 'add', 'a=1', 'b=2', 'bb=3']);
    expect(unrelated.code).toBe(2);
    expect(unrelated.stderr).toMatch(/unknown argument "bb" \(did you mean "b"\?\)/);
    expect(calls(record)).toEqual([]);

    const allowed = await run(sb, ['call', 'm', 'echo', 'text=hi', 'heda=1', '--allow-extra']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe('hi\n');
    expect(calls(record)).toEqual([{ name: 'echo', arguments: { text: 'hi', heda: 1 } }]);
  });

  it('the same for an ad-hoc server (--stdio)', async () => {
    const sb = sandbox();
    const r = await run(sb, ['--stdio', `${node} ${mockJs}`, 'call', 'echo', 'text=hi', 'heda=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown argument "heda"');
    expect(r.stderr).toContain('--allow-extra');
    const ok = await run(sb, ['--stdio', `${node} ${mockJs}`, 'call', 'echo', 'text=hi', 'heda=1', '--allow-extra']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
