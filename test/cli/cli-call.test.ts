/**
 * `mcpwire call` as people and scripts type it: key=value typed by the
 * tool's inputSchema, `--args @file` / `--args -`, schema violations reported locally naming the
 * field with nothing sent (the mock server records what it receives), "did you mean" for tools,
 * content-only stdout, `--raw`, `--text`, `--structured`, `--save-dir` for images and blobs,
 * resource links with their URI. Needs `dist/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, everythingEntry, mockJs, node, run, sandbox, writeJson } from '../support/cli-user.js';

afterAll(cleanup);

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('mcpwire call on server-everything', { timeout: 120_000 }, () => {
  const sb = sandbox({ everything: everythingEntry() });

  it('call everything get-sum a=2 b=3: numbers typed by the schema, only the content on stdout', async () => {
    const r = await run(sb, ['call', 'everything', 'get-sum', 'a=2', 'b=3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('The sum of 2 and 3 is 5.\n');
    const raw = await run(sb, ['call', 'everything', 'get-sum', 'a=2.5', 'b=-1', '--raw']);
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(raw.stdout)).toEqual({ content: [{ type: 'text', text: 'The sum of 2.5 and -1 is 1.5.' }] });
  });

  it('get-tiny-image --save-dir writes a .png and prints its path; without it a line says how', async () => {
    const dir = path.join(sb.dir, 'out');
    const r = await run(sb, ['call', 'everything', 'get-tiny-image', '--save-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(dir, 'get-tiny-image.png');
    expect(r.stdout.split('\n')).toContain(file);
    expect(fs.readFileSync(file).subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
    const again = await run(sb, ['call', 'everything', 'get-tiny-image', '--save-dir', dir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).content.some((b: { type: string }) => b.type === 'image')).toBe(true);
    expect(again.stderr).toContain(`saved ${path.join(dir, 'get-tiny-image-2.png')}`);

    const plain = await run(sb, ['call', 'everything', 'get-tiny-image']);
    expect(plain.stdout).toMatch(/^\[image image\/png, \d+ bytes; --save-dir DIR writes it to a file\]$/m);
    const text = await run(sb, ['call', 'everything', 'get-tiny-image', '--text']);
    expect(text.stdout).not.toContain('[image');
    expect(text.stdout).toContain('MCP logo');
  });

  it('resource links show their URI and the read command that follows it; an embedded blob is saved by --save-dir', async () => {
    const r = await run(sb, ['call', 'everything', 'get-resource-links', 'count=2']);
    expect(r.code, r.stderr).toBe(0);
    const m = /^\[resource_link [^\]]+\] (demo:\/\/\S+) {2}\(mcpwire read everything (demo:\/\/\S+)\)$/m.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(m![1]).toBe(m![2]);
    const read = await run(sb, ['read', 'everything', m![1]]);
    expect(read.code, read.stderr).toBe(0);

    const dir = path.join(sb.dir, 'blobs');
    const blob = await run(sb, ['call', 'everything', 'get-resource-reference', 'resourceType=Blob', 'resourceId=2', '--save-dir', dir]);
    expect(blob.code, blob.stderr).toBe(0);
    const saved = blob.stdout.split('\n').find((l) => l.startsWith(dir));
    expect(saved, blob.stdout).toBeDefined();
    expect(fs.statSync(saved!).size).toBeGreaterThan(0);
  });
});

/**
 * mcpwire's own handling of a call's result, arguments and names, the same with any server: on the
 * mock, whose start costs a fifth of server-everything's CPU (its own tools are the describe above's).
 */
describe('mcpwire call: structuredContent, --args and tool names, on any server (the mock)', { timeout: 120_000 }, () => {
  const sb = sandbox();
  const record = path.join(sb.dir, 'record.jsonl');
  writeJson(sb.projectFile, { version: 1, mcp: { servers: { m: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_RECORD: record } } } } });

  it('structuredContent is not printed by default when content is there; --structured and --json give it', async () => {
    const r = await run(sb, ['call', 'm', 'structured', 'text=Chicago']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('structuredContent');
    const s = await run(sb, ['call', 'm', 'structured', 'text=Chicago', '--structured']);
    expect(JSON.parse(s.stdout)).toEqual({ text: 'Chicago', length: 7, upper: 'CHICAGO' });
    const j = await run(sb, ['call', 'm', 'structured', 'text=Chicago', '--json']);
    expect(JSON.parse(j.stdout)).toHaveProperty('structuredContent.upper', 'CHICAGO');
    expect((await run(sb, ['call', 'm', 'add', 'a=1', 'b=1', '--raw', '--text'])).code).toBe(2);
  });

  it('--args @file.json and --args - (stdin); key=value wins over --args', async () => {
    const file = path.join(sb.dir, 'args.json');
    fs.writeFileSync(file, '{"a": 40, "b": 2}');
    const f = await run(sb, ['call', 'm', 'add', '--args', `@${file}`]);
    expect(f).toMatchObject({ code: 0, stdout: '42\n' });
    const stdin = await run(sb, ['call', 'm', 'add', '--args', '-'], { input: '{"a": 1, "b": 2}' });
    expect(stdin).toMatchObject({ code: 0, stdout: '3\n' });
    const both = await run(sb, ['call', 'm', 'add', '--args', '{"a":1,"b":2}', 'b=10']);
    expect(both.stdout).toBe('11\n');
    const missing = await run(sb, ['call', 'm', 'add', '--args', '@/no/such/file.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--args @/no/such/file.json: cannot read the file (ENOENT)');
  });

  it('an unknown tool gets "did you mean"; nothing is called', async () => {
    const received = () => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '');
    const before = received();
    const r = await run(sb, ['call', 'm', 'addd', 'a=1', 'b=2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown tool "addd" on server "m" (did you mean "add"?)');
    expect(r.stdout).toBe('');
    expect(received().slice(before.length)).toContain('tools/list');
    expect(received().slice(before.length)).not.toContain('tools/call');
  });
});

describe('mcpwire call: schema violations are caught before anything is sent (mock server records)', { timeout: 120_000 }, () => {
  it('a wrong type, a missing field, an enum value, an unknown field: exit 2 naming the field; no tools/call reached the server', async () => {
    const sb = sandbox();
    const record = path.join(sb.dir, 'record.jsonl');
    const scenario = {
      tools: [
        'add',
        {
          name: 'configure',
          description: 'Sets things',
          inputSchema: {
            type: 'object',
            properties: { mode: { type: 'string', enum: ['fast', 'safe'] }, tags: { type: 'array', items: { type: 'string' } }, verbose: { type: 'boolean' }, opts: { type: 'object' } },
            required: ['mode'],
            additionalProperties: false,
          },
          result: { content: [{ type: 'text', text: 'configured' }] },
        },
      ],
    };
    writeJson(sb.projectFile, { version: 1, mcp: { servers: { m: { transport: 'stdio', command: node, args: [mockJs], env: { MOCK_RECORD: record, MOCK_SCENARIO_JSON: JSON.stringify(scenario) } } } } });

    const wrongType = await run(sb, ['call', 'm', 'add', 'a=two', 'b=3']);
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toContain('argument "a" must be number (got "two")');
    const missing = await run(sb, ['call', 'm', 'add', 'a=2']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('invalid arguments for tool "add": missing required argument "b"; nothing was sent');
    expect(missing.stderr).toContain('usage: add(a: number, b: number)');
    const badJson = await run(sb, ['call', 'm', 'add', '--args', '{"a":"2","b":3}']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('argument "a" must be number');
    const enumValue = await run(sb, ['call', 'm', 'configure', 'mode=quick']);
    expect(enumValue.code).toBe(2);
    expect(enumValue.stderr).toContain('argument "mode" must be equal to one of the allowed values');
    const unknown = await run(sb, ['call', 'm', 'configure', 'mode=fast', 'verbos=true']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown argument "verbos" (did you mean "verbose"?)');

    const received = fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '';
    expect(received).toContain('tools/list');
    expect(received).not.toContain('tools/call');

    // typed right: booleans, JSON arrays and objects
    const ok = await run(sb, ['call', 'm', 'configure', 'mode=safe', 'verbose=true', 'tags=["a","b"]', 'opts={"x":1}', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const calls = fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { method?: string; params?: { arguments?: unknown } }).filter((m) => m.method === 'tools/call');
    expect(calls.map((c) => c.params?.arguments)).toEqual([{ mode: 'safe', verbose: true, tags: ['a', 'b'], opts: { x: 1 } }]);
  });
});
