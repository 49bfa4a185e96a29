/**
 * Browsing what a configured server offers, as a user types it, against
 * server-everything: tools as readable signatures (required vs optional, enums, defaults, output
 * schema), `--schema`, `--names`, one tool in detail; resources, templates and prompts as tables
 * and `--json`. Needs `dist/` (`npm run build`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, everythingEntry, everythingJs, mockJs, node, run, sandbox, writeJson } from '../support/cli-user.js';

afterAll(cleanup);

describe('mcpwire tools/resources/templates/prompts on server-everything', { timeout: 120_000 }, () => {
  const sb = sandbox({ everything: everythingEntry() });

  it('tools <id>: one signature per tool with required/optional, enums, defaults and the output schema; no public names without --names', async () => {
    const r = await run(sb, ['tools', 'everything']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^everything \(\d+ tools\)$/);
    expect(lines).toContain('  get-sum(a: number, b: number)');
    expect(lines).toContain('  echo(message: string)');
    expect(lines).toContain('  get-resource-links(count?: number = 3)');
    expect(lines).toContain('  get-resource-reference(resourceType?: "Text" | "Blob" = "Text", resourceId?: number = 1)');
    expect(lines).toContain('  get-structured-content(location: "New York" | "Chicago" | "Los Angeles") → { temperature: number, conditions: string, humidity: number }');
    expect(r.stdout).toContain('      Returns the sum of two numbers');
    expect(r.stdout).not.toMatch(/mcp_everything_/);
    expect(r.stdout).not.toContain('"$schema"');
  });

  it('tools <id> --schema adds the raw JSON Schemas; tools <id> <tool> describes each parameter', async () => {
    const r = await run(sb, ['tools', 'everything', '--schema']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('      inputSchema:');
    expect(r.stdout).toContain('"description": "First number"');
    expect(r.stdout).toContain('      outputSchema:');

    const one = await run(sb, ['tools', 'everything', 'get-sum']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('get-sum(a: number, b: number)');
    expect(one.stdout).toContain('  a: number (required) — First number');
    expect(one.stdout).toContain('call it: mcpwire call everything get-sum a=… b=…');
  });

  it('resources: a table of URIs (what read takes) and --json with the server of each', async () => {
    const r = await run(sb, ['resources']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^server\s+uri\s+name\s+mime\s+description$/);
    expect(r.stdout).toMatch(/^everything\s+demo:\/\/resource\/static\/document\/architecture\.md\s+architecture\.md\s+text\/markdown/m);

    const j = await run(sb, ['resources', 'everything', '--json']);
    expect(j.code, j.stderr).toBe(0);
    const list = JSON.parse(j.stdout) as { server: string; uri: string; name: string }[];
    expect(list.length).toBeGreaterThan(2);
    expect(list.every((x) => x.server === 'everything' && typeof x.uri === 'string')).toBe(true);
    // each URI listed can be read
    const read = await run(sb, ['read', 'everything', list[0].uri]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.length).toBeGreaterThan(0);
  });

  it('templates and prompts: tables (prompt arguments with ? when optional) and --json', async () => {
    const t = await run(sb, ['templates', 'everything']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^everything\s+demo:\/\/resource\/dynamic\/text\/\{resourceId\}\s+Dynamic Text Resource/m);
    const tj = JSON.parse((await run(sb, ['templates', '--json'])).stdout) as { server: string; uriTemplate: string }[];
    expect(tj.map((x) => x.uriTemplate)).toContain('demo://resource/dynamic/blob/{resourceId}');

    const p = await run(sb, ['prompts', 'everything']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout.split('\n')[0]).toMatch(/^server\s+name\s+arguments\s+description$/);
    expect(p.stdout).toMatch(/^everything\s+args-prompt\s+city, state\?\s+/m);
    const pj = JSON.parse((await run(sb, ['prompts', 'everything', '--json'])).stdout) as { server: string; name: string; arguments?: unknown[] }[];
    expect(pj.find((x) => x.name === 'args-prompt')).toMatchObject({ server: 'everything', arguments: [{ name: 'city', required: true }, { name: 'state' }] });

    const got = await run(sb, ['prompt', 'everything', 'args-prompt', 'city=Paris']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain('Paris');
  });

  it('ad hoc (--stdio): the same listings; --json is the raw array', async () => {
    const stdio = `${node} ${everythingJs} stdio`;
    const r = await run(sb, ['--stdio', stdio, 'prompts', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; server?: string }[];
    expect(list.map((x) => x.name)).toContain('simple-prompt');
    expect(list.every((x) => x.server === undefined)).toBe(true);
    const t = await run(sb, ['--stdio', stdio, 'tools']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout.split('\n')).toContain('get-sum(a: number, b: number)');
  });
});

/**
 * Public names (`--names`), "did you mean" for a tool or prompt name and a prompt's arguments
 * checked before prompts/get are mcpwire's own, the same with any server: on the mock, whose start
 * costs a fifth of server-everything's CPU (the listings of server-everything are the describe above's).
 */
describe('mcpwire tools/prompt: public names, names and prompt arguments checked against the lists, on any server (the mock)', { timeout: 120_000 }, () => {
  const sb = sandbox();
  const record = path.join(sb.dir, 'record.jsonl');
  writeJson(sb.projectFile, { version: 1, mcp: { servers: { m: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_RECORD: record } } } } });

  it('tools <id> --names: the public name of each tool under its signature', async () => {
    const named = await run(sb, ['tools', 'm', '--names']);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toMatch(/^ {6}name: mcp_m_add_[0-9a-f]{8}$/m);
  });

  it('an unknown tool gets "did you mean"', async () => {
    const typo = await run(sb, ['tools', 'm', 'addd']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown tool "addd" on server "m" (did you mean "add"?)');
  });

  it('prompt arguments are checked against prompts/list before prompts/get; an unknown prompt gets "did you mean"', async () => {
    const missing = await run(sb, ['prompt', 'm', 'greet', 'nme=Bob']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('invalid arguments for prompt "greet": missing required argument "name"; unknown argument "nme" (did you mean "name"?); nothing was sent');
    expect(missing.stderr).toContain('usage: greet name, style?');
    const typo = await run(sb, ['prompt', 'm', 'gret', 'name=Bob']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown prompt "gret" on server "m" (did you mean "greet"?)');
    const received = fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '';
    expect(received).toContain('prompts/list');
    expect(received).not.toContain('prompts/get');
  });
});
