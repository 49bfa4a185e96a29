/**
 * The host CLI commands as child processes (`node dist/cli/main.js`; `npm run build` first):
 * `mcp add|list|remove|enable|disable|test`, `status`, `tools`, `call`, `read`, `prompt` on
 * configured servers, `--config <file>`, `--imports`, and no secret in any output.
 *
 * Every run gets its own temp HOME, XDG_CONFIG_HOME, MCPWIRE_CONFIG_PATH and project dir (cwd).
 * Project servers start only in a trusted project: a sandbox trusts its project (as it
 * is at each run) unless made with `sandbox({ autoTrust: false })`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere as runCli } from '../support/cli-in-process.js';
import { trustProject } from '../../src/host/config/index.js';
import { cleanup, root, run as userRun, sandbox as userSandbox, writeJson, type Sandbox as UserSandbox } from '../support/cli-user.js';

const mock = path.join(root, 'mock-servers/stdio-server.mjs');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const crashOnStart = path.join(root, 'mock-servers/scenarios/crash-on-start.json');
const node = process.execPath;

const HEADER_SECRET = 'hdr-secret-7f3a9c21';
const ENV_SECRET = 'env-secret-51d2e8aa';
const CLIENT_SECRET = 'oauth-secret-c0ffee42';
const SECRETS = [HEADER_SECRET, ENV_SECRET, CLIENT_SECRET];

interface Sandbox extends UserSandbox {
  autoTrust: boolean;
}

afterAll(cleanup);

function sandbox({ autoTrust = true } = {}): Sandbox {
  return { ...userSandbox(), autoTrust };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

const outputs: { args: string[]; text: string }[] = [];

async function run(sb: Sandbox, args: string[]): Promise<Run> {
  const t0 = performance.now();
  const r = sb.autoTrust ? await userRun(sb, args) : await runCli(args, { cwd: sb.proj, env: { ...process.env, ...sb.env } });
  outputs.push({ args, text: r.stdout + r.stderr });
  return { ...r, ms: performance.now() - t0 };
}

function nativeConfig(servers: Record<string, unknown>): unknown {
  return { version: 1, mcp: { servers } };
}

const mockEntry = (extra: Record<string, unknown> = {}) => ({ transport: 'stdio', command: node, args: [mock], ...extra });
const everythingEntry = () => ({ transport: 'stdio', command: node, args: [everything, 'stdio'] });

function publicName(server: string, tool: string): string {
  const slug = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/_+/g, '_').replace(/^_+|_+$/g, '');
  return `mcp_${slug(server)}_${slug(tool)}_${createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)}`;
}

/**
 * Below the 60 s defaults a hang would wait out, and far above a loaded CI machine's slowest
 * `status` (16-19 s seen at a load average of 26 on 2 cores, where 15 s failed).
 */
const NO_HANG_MS = 45_000;

const STATUS_KEYS = ['enabled', 'era', 'id', 'last_connected_at', 'last_error', 'next', 'protocol_version', 'sandbox', 'source', 'state', 'store', 'tools', 'transport'];

describe('mcpwire mcp add / list / remove / enable / disable', { timeout: 120_000 }, () => {
  it('adds stdio and http servers per scope, refuses a duplicate without --replace, lists with sources', async () => {
    const sb = sandbox();
    let r = await run(sb, ['mcp', 'add', 'local', '--transport', 'stdio', '--command', node, '--arg', mock, '--env', `API_KEY=${ENV_SECRET}`, '--request-timeout-ms', '15000']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`added server "local" (stdio) in project config ${sb.projectFile}`);
    r = await run(sb, [
      'mcp', 'add', 'remote', '--scope', 'global', '--transport', 'http', '--url', 'https://mcp.example.com/mcp',
      '--header', `X-Api-Key=${HEADER_SECRET}`, '--oauth-client-id', 'my-client', '--oauth-client-secret', CLIENT_SECRET,
      '--oauth-token-url', 'https://auth.example.com/token', '--oauth-scope', 'read', '--enabled', 'false',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`in global config ${sb.globalFile}`);

    const project = JSON.parse(fs.readFileSync(sb.projectFile, 'utf8'));
    expect(project).toEqual({ version: 1, mcp: { servers: { local: { transport: 'stdio', command: node, args: [mock], env: { API_KEY: ENV_SECRET }, request_timeout_ms: 15000 } } } });
    expect(fs.statSync(sb.projectFile).mode & 0o777).toBe(0o600);
    const global = JSON.parse(fs.readFileSync(sb.globalFile, 'utf8'));
    expect(global.mcp.servers.remote).toEqual({
      transport: 'http',
      enabled: false,
      url: 'https://mcp.example.com/mcp',
      headers: { 'X-Api-Key': HEADER_SECRET },
      oauth: { client_id: 'my-client', client_secret: CLIENT_SECRET, token_url: 'https://auth.example.com/token', scope: 'read' },
    });

    r = await run(sb, ['mcp', 'add', 'local', '--transport', 'stdio', '--command', 'other']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already exists.*--replace/);
    r = await run(sb, ['mcp', 'add', 'local', '--transport', 'stdio', '--command', node, '--arg', mock, '--replace', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'local', scope: 'project', file: sb.projectFile, transport: 'stdio', replaced: true, trusted: true });
    expect(JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')).mcp.servers.local).toEqual({ transport: 'stdio', command: node, args: [mock] });

    r = await run(sb, ['mcp', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id\s+source\s+enabled\s+transport\s+target\s+details/m);
    expect(r.stdout).toMatch(/^local\s+project\s+true\s+stdio\s+/m);
    expect(r.stdout).toMatch(/^remote\s+global\s+false\s+http\s+https:\/\/mcp\.example\.com\/mcp\s+headers: X-Api-Key=\[redacted\]; oauth: token_url, client_id, client_secret, scope/m);

    r = await run(sb, ['mcp', 'list', '--json']);
    const listed = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(listed.map((l) => [l.id, l.source])).toEqual([['local', 'project'], ['remote', 'global']]);
    expect(listed[1]).toMatchObject({ headers: { 'X-Api-Key': '[redacted]' }, oauth: { client_id: 'my-client', client_secret: '[redacted]' }, enabled: false, error: null });

    r = await run(sb, ['mcp', 'list', '--scope', 'global']);
    expect(r.stdout).not.toMatch(/^local/m);
    expect(r.stdout).toMatch(/^id\s+enabled\s+transport/m); // no source column for one layer
    expect(r.stdout).toMatch(/^remote\s+false\s+http/m);
    r = await run(sb, ['mcp', 'list', '--scope', 'project', '--json']);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((l) => l.id)).toEqual(['local']);
  });

  it('remove deletes from one scope only; the same id in global stays effective (source changes)', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ dup: mockEntry() }));
    writeJson(sb.globalFile, nativeConfig({ dup: everythingEntry() }));
    let r = await run(sb, ['mcp', 'list', '--json']);
    expect((JSON.parse(r.stdout) as { source: string }[])[0].source).toBe('project');
    r = await run(sb, ['mcp', 'remove', 'dup']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`removed server "dup" from project config ${sb.projectFile}`);
    expect(r.stdout).toContain(`"dup" is still defined in the global config ${sb.globalFile}`);
    r = await run(sb, ['mcp', 'list', '--json']);
    expect((JSON.parse(r.stdout) as { source: string }[])[0].source).toBe('global');
    r = await run(sb, ['mcp', 'remove', 'dup']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not defined in project config');
    r = await run(sb, ['mcp', 'remove', 'dup', '--scope', 'global', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'dup', scope: 'global', removed: true, still_defined_in: null });
    r = await run(sb, ['mcp', 'list']);
    expect(r.stdout).toBe('no MCP servers configured\n');
  });

  it('disable writes a project override for a global server; enable removes it; errors name the scope', async () => {
    const sb = sandbox();
    writeJson(sb.globalFile, nativeConfig({ g: mockEntry() }));
    let r = await run(sb, ['mcp', 'disable', 'g']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('wrote an override');
    expect(JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')).mcp.servers.g).toEqual({ enabled: false });
    r = await run(sb, ['mcp', 'list', '--json']);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: 'g', source: 'project', enabled: false, transport: 'stdio' });
    r = await run(sb, ['mcp', 'list', '--scope', 'project']);
    expect(r.stdout).toContain('(override: disables a lower layer)');
    r = await run(sb, ['mcp', 'enable', 'g', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'g', outcome: 'override-removed', effective_enabled: true });
    expect(JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')).mcp.servers).toEqual({});

    r = await run(sb, ['mcp', 'disable', 'g', '--scope', 'global']);
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(sb.globalFile, 'utf8')).mcp.servers.g.enabled).toBe(false);
    r = await run(sb, ['mcp', 'enable', 'g']); // project scope does not define it
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not defined in project config .*defined in the global config .*--scope global/);
    r = await run(sb, ['mcp', 'enable', 'g', '--scope', 'global']);
    expect(r.code).toBe(0);
    r = await run(sb, ['mcp', 'enable', 'g', '--scope', 'global']);
    expect(r.stdout).toContain('server "g" is already enabled');
    r = await run(sb, ['mcp', 'disable', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown server "nope"');
    expect(fs.existsSync(sb.projectFile) && JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')).mcp.servers.nope).toBeFalsy();
  });

  it('usage errors exit 2; invalid entries exit 1 naming the field, never the value', async () => {
    const sb = sandbox();
    const noUrl = await run(sb, ['mcp', 'add', 'x', '--transport', 'http']);
    expect(noUrl.stderr).toContain('needs --url');
    expect(noUrl.code).toBe(2);
    expect((await run(sb, ['mcp', 'add', 'x', '--transport', 'stdio', '--command', 'c', '--header', 'a=b'])).code).toBe(2);
    expect((await run(sb, ['mcp', 'add', 'x', '--transport', 'stdio', '--command', 'c', '--enabled', 'maybe'])).code).toBe(2);
    expect((await run(sb, ['mcp', 'list', '--scope', 'bogus'])).code).toBe(2);
    expect((await run(sb, ['mcp', 'remove', 'x', '--scope', 'effective'])).code).toBe(2);
    expect((await run(sb, ['mcp', 'frob'])).code).toBe(2);
    expect((await run(sb, ['mcp'])).code).toBe(2);
    expect((await run(sb, ['mcp', '--help'])).code).toBe(0);
    // The HTTP header form "Name: value" is accepted as well as Name=value.
    const other = sandbox();
    const colonForm = await run(other, ['mcp', 'add', 'colon', '--transport', 'http', '--url', 'https://h/mcp', '--header', `Authorization: Bearer ${HEADER_SECRET}`]);
    expect(colonForm.code, colonForm.stderr).toBe(0);
    expect(colonForm.stdout + colonForm.stderr).not.toContain(HEADER_SECRET);
    expect(JSON.parse(fs.readFileSync(other.projectFile, 'utf8')).mcp.servers.colon.headers).toEqual({ Authorization: `Bearer ${HEADER_SECRET}` });
    const noName = await run(sb, ['mcp', 'add', 'x', '--transport', 'http', '--url', 'https://h/mcp', '--header', `${HEADER_SECRET}`]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).not.toContain(HEADER_SECRET);
    const badId = await run(sb, ['mcp', 'add', 'bad id!', '--transport', 'stdio', '--command', 'c']);
    expect(badId.code).toBe(1);
    expect(badId.stderr).toContain('invalid server id');
    const badHeader = await run(sb, ['mcp', 'add', 'x', '--transport', 'http', '--url', 'https://h/mcp', '--header', `Bad Name=${HEADER_SECRET}`]);
    expect(badHeader.code).toBe(1);
    expect(badHeader.stderr).toContain('headers');
    expect(badHeader.stderr).not.toContain(HEADER_SECRET);
    expect(fs.existsSync(sb.projectFile)).toBe(false);
  });
});

describe('mcpwire mcp test', { timeout: 120_000 }, () => {
  it('connects, initializes, lists tools: exit 0 with server info and tool count; exit 1 for a broken server', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ m: mockEntry({ enabled: false }), broken: { transport: 'stdio', command: 'no-such-command-mcpwire-xyz' } }));
    let r = await run(sb, ['mcp', 'test', 'm']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok: "m" \(stdio\) is mcpwire-mock 1\.0\.0, protocol 2025-11-25, 14 tools \(\d+ ms\)$/m);
    expect(r.stdout).toContain('is disabled in the config');
    r = await run(sb, ['mcp', 'test', 'm', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'm', ok: true, server_info: { name: 'mcpwire-mock', version: '1.0.0' }, protocol_version: '2025-11-25', tools: 14, error: null });
    r = await run(sb, ['mcp', 'test', 'broken']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/test of "broken" \(stdio\) failed .*command not found/);
    r = await run(sb, ['mcp', 'test', 'broken', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'broken', ok: false, tools: null, error: expect.stringContaining('command not found') });
    r = await run(sb, ['mcp', 'test', 'missing']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown server "missing" (configured: broken, m)');
  });
});

describe('mcpwire status', { timeout: 120_000 }, () => {
  it('server-everything ready with its tools, a missing command in error with its reason, without hanging', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ everything: everythingEntry(), broken: { transport: 'stdio', command: 'no-such-command-mcpwire-xyz' } }));
    const r = await run(sb, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(NO_HANG_MS); // proves no hang (defaults are 60 s)
    expect(r.stdout).toMatch(/^id\s+transport\s+source\s+enabled\s+state\s+tools\s+protocol\s+error$/m); // protocol: shown once a server is connected
    expect(r.stdout).toMatch(/^everything\s+stdio\s+project\s+true\s+ready\s+(\d+)\s+20\d\d-\d\d-\d\d$/m);
    expect(Number(/^everything\s+stdio\s+project\s+true\s+ready\s+(\d+)\s/m.exec(r.stdout)![1])).toBeGreaterThan(5);
    expect(r.stdout).toMatch(/^broken\s+stdio\s+project\s+true\s+error\s+0\s+-\s+.*command not found: "no-such-command-mcpwire-xyz"/m);

    const j = await run(sb, ['status', '--json']);
    expect(j.code).toBe(0);
    expect(j.ms).toBeLessThan(NO_HANG_MS);
    const rows = JSON.parse(j.stdout) as Record<string, unknown>[];
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(STATUS_KEYS);
    expect(rows.map((x) => [x.id, x.state])).toEqual([['broken', 'error'], ['everything', 'ready']]);
    expect(rows[0]).toMatchObject({ transport: 'stdio', source: 'project', enabled: true, tools: 0, last_connected_at: null });
    expect(rows[0].last_error).toMatch(/command not found/);
    expect(rows[1]).toMatchObject({ last_error: null });
    expect(Date.parse(rows[1].last_connected_at as string)).toBeGreaterThan(Date.now() - 120_000);
    expect(rows[1].tools as number).toBeGreaterThan(5);
  });

  it('a server that exits at start (crash-on-start scenario) is an error with its stderr; status <id> adds details', async () => {
    const sb = sandbox();
    // The ready neighbour is the mock: that a failing server leaves the others ready needs any
    // well-behaved one (server-everything's own readiness is the test above's).
    writeJson(sb.projectFile, nativeConfig({
      ready: mockEntry(),
      crashy: mockEntry({ args: [mock, crashOnStart] }),
      crashy2: mockEntry({ env: { MOCK_SCENARIO_JSON: fs.readFileSync(crashOnStart, 'utf8') } }),
      off: mockEntry({ enabled: false }),
    }));
    const r = await run(sb, ['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(NO_HANG_MS); // proves no hang (defaults are 60 s)
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => [x.id, x.state, x.enabled])).toEqual([
      ['crashy', 'error', true],
      ['crashy2', 'error', true],
      ['off', 'disabled', false],
      ['ready', 'ready', true],
    ]);
    for (const x of rows.slice(0, 2)) expect(x.last_error).toMatch(/exited with code 3.*could not open the database/);

    const one = await run(sb, ['status', 'crashy']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^state\s+error$/m);
    expect(one.stdout).toMatch(/^last_error\s+.*exited with code 3/m);
    expect(one.stdout).toMatch(/^last_connected_at\s+-$/m);
    const oneJson = await run(sb, ['status', 'ready', '--json']);
    const obj = JSON.parse(oneJson.stdout) as Record<string, unknown>;
    expect(Object.keys(obj).sort()).toEqual(STATUS_KEYS);
    expect(obj).toMatchObject({ id: 'ready', state: 'ready', last_error: null });
    expect(typeof obj.last_connected_at).toBe('string');
    expect((await run(sb, ['status', 'nope'])).code).toBe(1);
  });

  it('a server that never answers initialize is an error after --timeout-ms, not a hang', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ hang: mockEntry({ env: { MOCK_SCENARIO_JSON: JSON.stringify({ behavior: { onInitialize: { never: true } } }) } }) }));
    const r = await run(sb, ['status', '--timeout-ms', '700', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(NO_HANG_MS); // proves no hang (defaults are 60 s)
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: 'hang', state: 'error', last_error: expect.stringMatching(/"initialize" timed out after 700 ms/) });
  });

  it('says "no MCP servers configured" when there are none', async () => {
    const sb = sandbox();
    const r = await run(sb, ['status']);
    expect(r).toMatchObject({ code: 0, stdout: 'no MCP servers configured\n' });
    expect(JSON.parse((await run(sb, ['status', '--json'])).stdout)).toEqual([]);
  });
});

describe('mcpwire tools / call / read / prompt from config', { timeout: 120_000 }, () => {
  it('tools --json: public names (stable, the same for one server or all), server, tool, description, inputSchema', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ alpha: mockEntry(), 'beta-2': mockEntry({ env: { MOCK_SCENARIO_JSON: JSON.stringify({ tools: ['echo', 'add'] }) } }) }));
    const all = await run(sb, ['tools', '--json']);
    expect(all.code, all.stderr).toBe(0);
    const list = JSON.parse(all.stdout) as { name: string; server: string; tool: string; description: string; inputSchema: unknown }[];
    for (const t of list) {
      expect(Object.keys(t).sort()).toEqual(['description', 'inputSchema', 'name', 'server', 'tool']);
      expect(t.name).toBe(publicName(t.server, t.tool));
      expect(t.name).toMatch(/^mcp_[a-zA-Z0-9_-]+_[0-9a-f]{8}$/);
    }
    expect(list.filter((t) => t.server === 'beta-2').map((t) => t.tool)).toEqual(['add', 'echo']);
    expect(list.filter((t) => t.server === 'alpha')).toHaveLength(14);
    const echo = list.find((t) => t.server === 'alpha' && t.tool === 'echo')!;
    expect(echo.description).toBe('Echoes the given text back');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });

    const again = JSON.parse((await run(sb, ['tools', '--json'])).stdout) as { name: string }[];
    expect(again.map((t) => t.name)).toEqual(list.map((t) => t.name));
    const one = JSON.parse((await run(sb, ['tools', 'beta-2', '--json'])).stdout) as { name: string }[];
    expect(one.map((t) => t.name)).toEqual(list.filter((t) => t.server === 'beta-2').map((t) => t.name));

    // People get signatures; the public name only with --names.
    const table = await run(sb, ['tools', 'beta-2', '--names']);
    expect(table.stdout).toMatch(/^ {2}echo\(text: string\)$/m);
    expect(table.stdout).toMatch(/^ {6}Echoes/m);
    expect(table.stdout).toContain(`      name: ${publicName('beta-2', 'echo')}`);

    // Ad hoc: the raw tools array, as before.
    const adHoc = await run(sb, ['--stdio', `${node} ${mock}`, 'tools', '--json']);
    expect(adHoc.code).toBe(0);
    const raw = JSON.parse(adHoc.stdout) as Record<string, unknown>[];
    expect(raw.find((t) => t.name === 'echo')).toMatchObject({ name: 'echo', inputSchema: { type: 'object' } });
    expect(raw[0]).not.toHaveProperty('server');
  });

  it('tools: a broken server is a warning on stderr and exit 1; the others are still listed', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ ok: mockEntry({ env: { MOCK_SCENARIO_JSON: '{"tools":["echo"]}' } }), broken: { transport: 'stdio', command: 'no-such-command-mcpwire-xyz' } }));
    const r = await run(sb, ['tools', '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { tool: string }[]).map((t) => t.tool)).toEqual(['echo']);
    expect(r.stderr).toMatch(/warning: server "broken" is error: .*command not found/);
  });

  it('call goes through for a person; a deny rule refuses it and nothing is sent (MOCK_RECORD)', async () => {
    const sb = sandbox();
    const record = path.join(sb.dir, 'record.jsonl');
    writeJson(sb.projectFile, nativeConfig({ m: mockEntry({ env: { MOCK_RECORD: record }, permissions: { deny: ['ech*'] } }) }));
    const denied = await run(sb, ['call', 'm', 'echo', '--args', '{"text":"should not be sent"}']);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe('');
    expect(denied.stderr).toMatch(/call refused: tool "echo" of server "m" matches a permissions\.deny rule in the project config .*nothing was sent/);
    expect(fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '').not.toContain('tools/call');

    const ok = await run(sb, ['call', 'm', 'add', '--args', '{"a":2,"b":3}']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('5\n');
    const json = await run(sb, ['call', 'm', 'progress', '--args', '{"steps":2,"intervalMs":5}', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ content: [{ type: 'text', text: 'done 2 steps' }] });
    expect(json.stderr).toContain('progress 2/2');
    const failing = await run(sb, ['call', 'm', 'fail', '--args', '{"message":"nope"}']);
    expect(failing.code).toBe(1);

    const received = fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { method?: string; params?: { name?: string } });
    const calls = received.filter((m) => m.method === 'tools/call').map((m) => m.params?.name);
    expect(calls).toEqual(['add', 'progress', 'fail']);

    const unknown = await run(sb, ['call', 'nope', 'echo']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown server "nope"');
    expect((await run(sb, ['call', 'm'])).code).toBe(2);
    // The ad-hoc form still works.
    const adHoc = await run(sb, ['--stdio', `${node} ${mock}`, 'call', 'echo', '--args', '{"text":"hi"}']);
    expect(adHoc).toMatchObject({ code: 0, stdout: 'hi\n' });
  });

  it('call refuses a disabled server', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ m: mockEntry({ enabled: false }) }));
    const r = await run(sb, ['call', 'm', 'echo', '--args', '{"text":"x"}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server "m" is disabled');
  });

  it('read <id> <uri> and prompt <id> <name> --args, with --json', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ m: mockEntry() }));
    let r = await run(sb, ['read', 'm', 'mem://readme']);
    expect(r).toMatchObject({ code: 0, stdout: 'Hello from the mock server.\n' });
    r = await run(sb, ['read', 'm', 'mem://pixel.png']);
    expect(r.stdout).toMatch(/^\[blob image\/png, \d+ bytes: mem:\/\/pixel\.png\]$/m);
    r = await run(sb, ['read', 'm', 'mem://readme', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ contents: [{ uri: 'mem://readme', mimeType: 'text/plain', text: 'Hello from the mock server.' }] });
    r = await run(sb, ['read', 'm', 'mem://missing']);
    expect(r.code).toBe(1);

    r = await run(sb, ['prompt', 'm', 'greet', '--args', '{"name":"Bob","style":"formal"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^user: .*Bob/m);
    r = await run(sb, ['prompt', 'm', 'greet', '--args', '{"name":"Bob"}', '--json']);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.stdout) as { messages: { role: string; content: { type: string; text: string } }[] };
    expect(p.messages[0].role).toBe('user');
    expect(p.messages[0].content.text).toContain('Bob');
    expect((await run(sb, ['prompt', 'm', 'greet', '--args', '{"name":1}'])).code).toBe(2);
    expect((await run(sb, ['read', 'm'])).code).toBe(2);
  });
});

describe('--config <file> and --imports', { timeout: 120_000 }, () => {
  it('--config uses that one file for reading and writing; the layers are ignored', async () => {
    const sb = sandbox();
    const file = path.join(sb.dir, 'elsewhere', 'mcp.json');
    writeJson(sb.projectFile, nativeConfig({ layered: mockEntry() }));
    let r = await run(sb, ['mcp', 'add', 'solo', '--config', file, '--transport', 'stdio', '--command', node, '--arg', mock]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`in config file ${file}`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcp.servers.solo).toBeDefined();
    r = await run(sb, ['--config', file, 'mcp', 'list', '--json']);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((s) => s.id)).toEqual(['solo']);
    r = await run(sb, ['status', '--config', file, '--json']);
    expect((JSON.parse(r.stdout) as { id: string; state: string }[]).map((s) => [s.id, s.state])).toEqual([['solo', 'ready']]);
    r = await run(sb, ['call', 'solo', 'echo', '--args', '{"text":"via --config"}', '--config', file]);
    expect(r).toMatchObject({ code: 0, stdout: 'via --config\n' });
    expect((await run(sb, ['mcp', 'list', '--config', file, '--scope', 'global'])).code).toBe(2);
    r = await run(sb, ['mcp', 'disable', 'solo', '--config', file]);
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcp.servers.solo.enabled).toBe(false);
    r = await run(sb, ['mcp', 'list']);
    expect(r.stdout).toMatch(/^layered\s/m);
    expect(r.stdout).not.toContain('solo');
  });

  it('import files are read only with --imports and show their source', async () => {
    const sb = sandbox();
    const imported = path.join(sb.proj, '.mcp.json');
    writeJson(imported, { mcpServers: { imp: { command: node, args: [mock] } } });
    writeJson(sb.projectFile, nativeConfig({ native: mockEntry({ env: { MOCK_SCENARIO_JSON: '{"tools":["echo"]}' } }) }));
    let r = await run(sb, ['mcp', 'list', '--json']);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((s) => s.id)).toEqual(['native']);
    expect(r.stderr).toContain(`${imported} not read (import files are used only with --imports)`);
    r = await run(sb, ['mcp', 'list', '--imports']);
    expect(r.stdout).toMatch(new RegExp(`^imp\\s+import:${imported.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+true\\s+stdio`, 'm'));
    r = await run(sb, ['status', '--json']);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((s) => s.id)).toEqual(['native']);
    r = await run(sb, ['status', '--imports', '--json']);
    const rows = JSON.parse(r.stdout) as { id: string; source: string; state: string }[];
    expect(rows.map((s) => [s.id, s.source, s.state])).toEqual([['imp', `import:${imported}`, 'ready'], ['native', 'project', 'ready']]);
    expect((await run(sb, ['call', 'imp', 'echo', '--args', '{"text":"x"}'])).stderr).toContain('unknown server "imp"');
    expect((await run(sb, ['call', 'imp', 'echo', '--args', '{"text":"x"}', '--imports'])).stdout).toBe('x\n');
  });

  it('config diagnostics go to stderr as warnings naming the file, server and field', async () => {
    const sb = sandbox();
    writeJson(sb.projectFile, nativeConfig({ bad: { transport: 'http', url: 'https://h/mcp', request_timeout_ms: ENV_SECRET }, good: mockEntry({ colour: 'blue' }) }));
    const r = await run(sb, ['mcp', 'list']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`config error: project config ${sb.projectFile}: server "bad": field "request_timeout_ms"`);
    expect(r.stderr).toContain(`warning: project config ${sb.projectFile}: server "good": field "colour": unknown field ignored`);
    expect(r.stdout).toMatch(/^bad\s+project\s+false\s+http\s+.*invalid: field "request_timeout_ms"/m);
    const s = await run(sb, ['status', '--json']);
    expect(JSON.parse(s.stdout)[0]).toMatchObject({ id: 'bad', state: 'error', last_error: expect.stringContaining('invalid configuration') });
    expect(r.stdout + r.stderr + s.stdout + s.stderr).not.toContain(ENV_SECRET);
  });
});

describe('a cloned repository runs nothing before `mcpwire trust`', { timeout: 120_000 }, () => {
  /** A stdio entry that creates `marker` when spawned, then is the mock server. */
  const marking = (marker: string, extra: Record<string, unknown> = {}) => ({
    transport: 'stdio',
    command: node,
    args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'spawned'); import(${JSON.stringify(pathToFileURL(mock).href)})`],
    ...extra,
  });

  it('status/tools/call/mcp test never spawn an untrusted project server; state untrusted with the hint; trust spawns it; a change asks again', async () => {
    const sb = sandbox({ autoTrust: false });
    const marker = path.join(sb.dir, 'spawned-native');
    const importMarker = path.join(sb.dir, 'spawned-import');
    writeJson(sb.projectFile, nativeConfig({ repo: marking(marker) }));
    writeJson(path.join(sb.proj, '.mcp.json'), { mcpServers: { imp: { command: node, args: marking(importMarker).args } } });
    writeJson(sb.globalFile, nativeConfig({ mine: mockEntry() }));
    const real = fs.realpathSync(sb.proj);
    const hint = `run \`mcpwire trust ${real}\` to allow project servers to start`;

    let r = await run(sb, ['status', '--json', '--imports']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; state: string; last_error: string | null }[];
    expect(rows.map((x) => [x.id, x.state])).toEqual([['imp', 'untrusted'], ['mine', 'ready'], ['repo', 'untrusted']]);
    expect(rows[2].last_error).toContain(hint);
    expect(r.stderr).toContain(hint);
    r = await run(sb, ['status']);
    expect(r.stdout).toMatch(/^repo\s+stdio\s+project\s+true\s+untrusted\s+0\s+-\s+project server not trusted: run `mcpwire trust /m);
    r = await run(sb, ['status', 'repo', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'repo', state: 'untrusted' });
    r = await run(sb, ['mcp', 'list', '--json']);
    expect((JSON.parse(r.stdout) as { id: string; state: string }[]).map((x) => [x.id, x.state])).toEqual([['mine', 'enabled'], ['repo', 'untrusted']]);
    expect(r.stderr).toContain(hint);
    r = await run(sb, ['mcp', 'list', '--scope', 'project', '--json']);
    expect(JSON.parse(r.stdout)[0].state).toBe('untrusted');
    r = await run(sb, ['tools', '--imports']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server "repo" is untrusted');
    r = await run(sb, ['call', 'repo', 'echo', '--args', '{"text":"x"}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(hint);
    r = await run(sb, ['mcp', 'test', 'repo']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not trusted');
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(importMarker)).toBe(false);

    r = await run(sb, ['trust']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`trusted ${real}`);
    expect(r.stdout).toMatch(/^repo\s+stdio\s+\.mcpwire\/config\.json/m);
    expect(r.stdout).toMatch(/^imp\s+stdio\s+\.mcp\.json/m);
    const store = path.join(path.dirname(sb.globalFile), 'trusted-projects.json');
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(fs.readFileSync(store, 'utf8')).projects)).toEqual([real]);

    r = await run(sb, ['status', '--json', '--imports']);
    expect((JSON.parse(r.stdout) as { id: string; state: string }[]).map((x) => [x.id, x.state])).toEqual([['imp', 'ready'], ['mine', 'ready'], ['repo', 'ready']]);
    expect(r.stderr).toBe('');
    expect(fs.readFileSync(marker, 'utf8')).toBe('spawned');
    expect(fs.existsSync(importMarker)).toBe(true);

    // The repository changes the command line: asked again, nothing spawned.
    fs.rmSync(marker);
    writeJson(sb.projectFile, nativeConfig({ repo: marking(marker, { env: { EXTRA: '1' } }) }));
    r = await run(sb, ['status', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'repo', state: 'untrusted', last_error: expect.stringContaining('changed since the project was trusted') })]));
    expect(fs.existsSync(marker)).toBe(false);

    r = await run(sb, ['trust', '--list', '--json']);
    expect(JSON.parse(r.stdout)).toEqual([{ project: real, trusted_at: expect.any(String), servers: [{ id: 'repo', file: '.mcpwire/config.json' }, { id: 'imp', file: '.mcp.json' }] }]);
    r = await run(sb, ['trust', sb.proj]);
    expect(r.code).toBe(0);
    r = await run(sb, ['untrust', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ project: real, revoked: true });
    r = await run(sb, ['trust', '--revoke']);
    expect(r.stdout).toContain('was not trusted');
    r = await run(sb, ['status', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'repo', state: 'untrusted' })]));
    expect(fs.existsSync(marker)).toBe(false);
    expect((await run(sb, ['trust', '--list'])).stdout).toBe('no trusted projects\n');
  });

  it('a --config file named on the command line is trusted (the user chose it)', async () => {
    const sb = sandbox({ autoTrust: false });
    const file = path.join(sb.proj, 'ci-mcp.json');
    writeJson(file, nativeConfig({ ci: mockEntry() }));
    const r = await run(sb, ['status', '--config', file, '--json']);
    expect((JSON.parse(r.stdout) as { id: string; state: string }[]).map((x) => [x.id, x.state])).toEqual([['ci', 'ready']]);
  });
});

describe('no secret in any output', { timeout: 120_000 }, () => {
  it('every command, human and --json, on a config full of secrets', async () => {
    const sb = sandbox();
    const file = path.join(sb.dir, 'secret-config.json');
    writeJson(sb.projectFile, nativeConfig({
      m: mockEntry({ env: { API_KEY: ENV_SECRET } }),
      leaky: mockEntry({ env: { TOKEN: ENV_SECRET, MOCK_SCENARIO_JSON: JSON.stringify({ behavior: { onStart: { exit: { code: 1, stderr: `auth failed for key ${ENV_SECRET} and ${HEADER_SECRET}\n` } } } }) } }),
    }));
    writeJson(sb.globalFile, nativeConfig({
      remote: { transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${HEADER_SECRET}`, 'X-Key': HEADER_SECRET }, oauth: { client_id: 'cid', client_secret: CLIENT_SECRET } },
    }));
    // Three phases: the edits that add, then the commands that only read, then the edits that
    // toggle and remove. Every run is one after another, so each runs in this process (runs at
    // once would each be a process of their own: twice the CPU, and longer on 2 cores).
    const adds: string[][] = [
      ['mcp', 'add', 'added', '--transport', 'http', '--url', 'http://127.0.0.1:9/mcp', '--header', `X-Token=${HEADER_SECRET}`, '--oauth-client-secret', CLIENT_SECRET],
      ['mcp', 'add', 'added', '--transport', 'http', '--url', 'http://127.0.0.1:9/mcp', '--header', `X-Token=${HEADER_SECRET}`, '--json'],
      ['mcp', 'add', 'added2', '--config', file, '--transport', 'stdio', '--command', node, '--arg', mock, '--env', `K=${ENV_SECRET}`, '--json'],
    ];
    const reads: string[][] = [
      ['mcp', 'list'],
      ['mcp', 'list', '--json'],
      ['mcp', 'list', '--scope', 'global'],
      ['mcp', 'list', '--scope', 'global', '--json'],
      ['mcp', 'list', '--scope', 'project', '--json'],
      ['mcp', 'list', '--config', file, '--json'],
      ['mcp', 'test', 'm'],
      ['mcp', 'test', 'leaky'],
      ['mcp', 'test', 'leaky', '--json'],
      ['mcp', 'test', 'remote'],
      ['mcp', 'test', 'remote', '--json'],
      ['status'],
      ['status', '--json'],
      ['status', 'leaky'],
      ['status', 'remote', '--json'],
      ['tools'],
      ['tools', '--json'],
      ['tools', 'remote'],
      ['call', 'm', 'echo', '--args', '{"text":"hello"}'],
      ['call', 'leaky', 'echo', '--args', '{"text":"hello"}'],
      ['call', 'remote', 'echo', '--json'],
      ['read', 'm', 'mem://readme', '--json'],
      ['read', 'remote', 'mem://readme'],
      ['prompt', 'm', 'greet', '--args', '{"name":"A"}'],
      ['prompt', 'leaky', 'greet'],
    ];
    const edits: string[][] = [
      ['mcp', 'disable', 'remote'],
      ['mcp', 'enable', 'remote', '--json'],
      ['mcp', 'remove', 'added'],
    ];
    const texts: { cmd: string; out: string }[] = [];
    const record = async (box: Sandbox, args: string[]) => {
      const r = await run(box, args);
      texts.push({ cmd: `mcpwire ${args.join(' ')}`, out: r.stdout + r.stderr });
    };
    for (const args of adds) await record(sb, args);
    // Trusted once for the reads (a run of the sandbox trusts before each command, and the trust
    // store is then written while the others read it).
    await trustProject(sb.proj, { cwd: sb.proj, env: { ...process.env, ...sb.env }, homedir: sb.home });
    const reader: Sandbox = { ...sb, autoTrust: false };
    for (const args of reads) await record(reader, args);
    for (const args of edits) await record(sb, args);
    expect(texts).toHaveLength(adds.length + reads.length + edits.length);
    const all = texts.map((t) => t.out).join('\n');
    // The failures are reported, with the secrets scrubbed out of the server's stderr tail.
    expect(all).toMatch(/auth failed for key \[redacted\]/);
    expect(all).toContain('[redacted]');
    for (const secret of SECRETS) {
      const leaks = texts.filter((t) => t.out.includes(secret)).map((t) => t.cmd);
      expect(leaks, `secret ${secret} printed by`).toEqual([]);
    }
  });

  it('nothing this file ran printed a secret', () => {
    for (const o of outputs) for (const secret of SECRETS) expect(o.text.includes(secret), `mcpwire ${o.args.join(' ')}`).toBe(false);
  });
});
