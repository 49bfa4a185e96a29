/**
 * The CLI as a user meets config mistakes and variable expansion (built dist/, child
 * processes, a sandbox HOME/XDG/MCPWIRE_CONFIG_PATH and project dir per test): each config
 * mistake gets the message that says what to do; `--env K=V` / `--env K` for `--stdio`;
 * `mcp add --env K` stores a reference; `${VAR}` in the native config reaches the server and an
 * unset one disables it with a diagnostic; denied tools are hidden from `tools`; YAML configs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const everything = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'))} stdio`;
const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');

let dir: string;
let proj: string;
let globalFile: string;
let baseEnv: Record<string, string>;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-cli-config-')));
  proj = path.join(dir, 'proj');
  fs.mkdirSync(proj);
  fs.mkdirSync(path.join(dir, 'home'));
  globalFile = path.join(dir, 'xdg', 'mcpwire', 'config.json');
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'SYSTEMROOT', 'TMPDIR', 'TEMP', 'TMP']) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  baseEnv = { ...env, HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg'), MCPWIRE_CONFIG_PATH: globalFile, NO_COLOR: '1' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) => runCliHere(args, { cwd: proj, env: { ...baseEnv, ...env } });
const projectConfig = () => JSON.parse(fs.readFileSync(path.join(proj, '.mcpwire', 'config.json'), 'utf8')) as { mcp: { servers: Record<string, unknown> } };
const writeGlobal = (servers: Record<string, unknown>) => {
  fs.mkdirSync(path.dirname(globalFile), { recursive: true });
  fs.writeFileSync(globalFile, JSON.stringify({ version: 1, mcp: { servers } }, null, 2));
};

describe('mcp add: mistakes caught when written', () => {
  it('without --url or --command it says what is missing', async () => {
    const r = await run(['mcp', 'add', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcp add x: say where the server is: --url <url> (an HTTP server) or --command <cmd> (a stdio server the CLI starts)');
    expect(fs.existsSync(path.join(proj, '.mcpwire'))).toBe(false);
  });

  it('--command "npx -y pkg" (a whole command line) is split like --stdio, and says so', async () => {
    const r = await run(['mcp', 'add', 'x', '--command', 'npx -y "@scope/pkg" --root /tmp']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: split --command into the program "npx" and 4 arguments');
    expect(projectConfig().mcp.servers.x).toEqual({ transport: 'stdio', command: 'npx', args: ['-y', '@scope/pkg', '--root', '/tmp'] });
  });

  it('a whole command line together with --arg is refused, showing the --arg form', async () => {
    const r = await run(['mcp', 'add', 'y', '--command', 'npx -y pkg', '--arg', 'extra']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--command holds a whole command line and --arg is given too: give the program alone, each argument with --arg (--command npx --arg=-y --arg pkg --arg extra)');
    expect(fs.existsSync(path.join(proj, '.mcpwire'))).toBe(false);
  });

  it('--transport sse (legacy HTTP+SSE) is accepted; an unknown transport names the three', async () => {
    const r = await run(['mcp', 'add', 's', '--transport', 'sse', '--url', 'http://127.0.0.1:9/sse']);
    expect(r.code).toBe(0);
    expect(projectConfig().mcp.servers.s).toEqual({ transport: 'sse', url: 'http://127.0.0.1:9/sse' });
    const list = await run(['mcp', 'list', '--json', '--scope', 'project']);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id: 's', transport: 'http', legacy_sse: true, error: null })]);
    const bad = await run(['mcp', 'add', 'w', '--transport', 'websocket', '--url', 'ws://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--transport must be "http" (streamable HTTP), "sse" (the legacy HTTP+SSE transport) or "stdio"');
  });

  it('--config with --scope is refused', async () => {
    const r = await run(['mcp', 'add', 'x', '--command', 'node', '--config', path.join(dir, 'c.json'), '--scope', 'global']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--scope and --config exclude each other');
  });

  it('an unknown field inside permissions ("denied") is an error naming it, and the server is not started', async () => {
    writeGlobal({ m: { transport: 'stdio', command: process.execPath, args: [mockJs], permissions: { denied: ['echo'] } } });
    const r = await run(['tools', 'm', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server "m": field "permissions.denied": unknown field (did you mean "deny"?); "permissions" takes only "allow" and "deny"');
    expect(r.stdout).not.toContain('"echo"');
  });

  it('tools denied by config are hidden from "mcpwire tools" (not only refused on call)', async () => {
    writeGlobal({ m: { transport: 'stdio', command: process.execPath, args: [mockJs], permissions: { deny: ['echo', 'sl*'] } } });
    const all = await run(['--stdio', `${JSON.stringify(process.execPath)} ${JSON.stringify(mockJs)}`, 'tools', '--json']);
    const r = await run(['tools', 'm', '--json']);
    expect(r.code).toBe(0);
    const names = (JSON.parse(r.stdout) as { tool: string }[]).map((t) => t.tool);
    const allNames = (JSON.parse(all.stdout) as { name: string }[]).map((t) => t.name);
    expect(allNames).toEqual(expect.arrayContaining(['echo', 'slow', 'add']));
    expect(names).toEqual(allNames.filter((n) => n !== 'echo' && !n.startsWith('sl')).sort());
  });

  it('mcp remove of a global entry without --scope suggests --scope global', async () => {
    expect((await run(['mcp', 'add', 'g', '--command', 'node', '--scope', 'global'])).code).toBe(0);
    const r = await run(['mcp', 'remove', 'g']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`server "g" is not defined in project config ${path.join(proj, '.mcpwire', 'config.json')}; it is defined in the global config ${globalFile}: remove it with "mcpwire mcp remove g --scope global"`);
    expect((await run(['mcp', 'remove', 'g', '--scope', 'global'])).code).toBe(0);
  });
});

describe('env and secrets', () => {
  it('--env K=V sets a variable and --env K passes the current value to a --stdio server; others are not passed', async () => {
    const r = await run(['--stdio', everything, '--env', 'FOO=bar', '--env', 'PASS_ME', 'call', 'get-env', '--json'], { PASS_ME: 'from-shell', NOT_PASSED: 'x' });
    expect(r.code).toBe(0);
    const env = JSON.parse((JSON.parse(r.stdout) as { content: { text: string }[] }).content[0].text) as Record<string, string>;
    expect(env).toMatchObject({ FOO: 'bar', PASS_ME: 'from-shell' });
    expect(env).not.toHaveProperty('NOT_PASSED');
  });

  it('--env K of an unset variable, and --env without --stdio, are usage errors naming the variable', async () => {
    const unset = await run(['--stdio', everything, '--env', 'NOPE_NOT_SET', 'tools']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('--env NOPE_NOT_SET: "NOPE_NOT_SET" is not set in this environment');
    const noStdio = await run(['--env', 'A=1', 'tools', 'x']);
    expect(noStdio.code).toBe(2);
    expect(noStdio.stderr).toContain('--env is for a --stdio server');
  });

  it('mcp add --env K stores the reference ${K}, never the value; an unset K is pointed out', async () => {
    const r = await run(['mcp', 'add', 'e', '--command', 'node', '--env', 'GH_TOKEN', '--env', 'NODE_ENV=production', '--env', 'NOT_SET_HERE'], { GH_TOKEN: 'ghp_SECRET_VALUE' });
    expect(r.code).toBe(0);
    expect(projectConfig().mcp.servers.e).toEqual({ transport: 'stdio', command: 'node', env: { GH_TOKEN: '${GH_TOKEN}', NODE_ENV: 'production', NOT_SET_HERE: '${NOT_SET_HERE}' } });
    expect(fs.readFileSync(path.join(proj, '.mcpwire', 'config.json'), 'utf8')).not.toContain('ghp_SECRET_VALUE');
    expect(r.stderr).toContain('note: "NOT_SET_HERE" is not set in this shell; "e" stays disabled until it is set where mcpwire runs');
    expect(r.stderr).not.toContain('GH_TOKEN');
  });

  it('${VAR} in the native config is expanded at spawn; an unset one disables that server with a diagnostic naming it', async () => {
    writeGlobal({ m: { transport: 'stdio', command: process.execPath, args: ['${MOCK_JS}'], env: { MOCK_SCENARIO_JSON: '${SCENARIO}' } } });
    const ok = await run(['tools', 'm', '--json'], { MOCK_JS: mockJs, SCENARIO: '{"tools":["add"]}' });
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as { tool: string }[]).map((t) => t.tool)).toEqual(['add']);
    const missing = await run(['tools', 'm', '--json'], { SCENARIO: '{}' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('server "m": field "args.0": environment variable "MOCK_JS" is not set and has no default; server disabled');
    // Nothing was written back.
    expect(fs.readFileSync(globalFile, 'utf8')).toContain('${MOCK_JS}');
  });
});

describe('YAML native config through the CLI', () => {
  it('mcp add --config x.yaml writes YAML; mcp list reads it; a project .mcpwire/config.yaml is the file mcp add edits', async () => {
    const y = path.join(dir, 'servers.yaml');
    fs.writeFileSync(y, '# my servers\nversion: 1\nmcp:\n  servers: {}\n');
    expect((await run(['mcp', 'add', 'h', '--url', 'https://h.example/mcp', '--config', y])).code).toBe(0);
    expect(fs.readFileSync(y, 'utf8')).toMatch(/^# my servers\n/);
    const list = await run(['mcp', 'list', '--json', '--config', y]);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id: 'h', transport: 'http', url: 'https://h.example/mcp' })]);

    fs.mkdirSync(path.join(proj, '.mcpwire'));
    fs.writeFileSync(path.join(proj, '.mcpwire', 'config.yaml'), 'mcp:\n  servers:\n    a: { transport: stdio, command: node }\n');
    const add = await run(['mcp', 'add', 'b', '--command', 'node']);
    expect(add.stdout).toContain(path.join(proj, '.mcpwire', 'config.yaml'));
    expect(fs.existsSync(path.join(proj, '.mcpwire', 'config.json'))).toBe(false);
    const both = await run(['mcp', 'list', '--json', '--scope', 'project']);
    expect((JSON.parse(both.stdout) as { id: string }[]).map((s) => s.id)).toEqual(['a', 'b']);
  });
});
