/**
 * A config written by hand, as the built CLI (`npm run build` first) reads it in a sandbox
 * (temp HOME, XDG and global config; a project directory): an entry without `transport` gets
 * the one its `command` / `url` implies (or says what is missing), a pasted `mcpServers` block
 * (Claude Desktop, Claude Code, Cursor) is read, and a misspelt field gets a did-you-mean naming
 * the file and the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { node, root } from '../support/cli-process.js';

const mockJs = path.join(root, 'mock-servers/stdio-server.mjs');

let dir: string;
let proj: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-cli-handwritten-')));
  proj = path.join(dir, 'proj');
  fs.mkdirSync(path.join(proj, '.mcpwire'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'home'));
  env = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg'), XDG_RUNTIME_DIR: path.join(dir, 'run'), MCPWIRE_CONFIG_PATH: path.join(dir, 'xdg', 'global.json'), MCPWIRE_NO_DAEMON: '1', NO_COLOR: '1' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCliHere(args, { cwd: proj, env });
const writeFile = (name: string, doc: unknown): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
};
interface Listed {
  id: string;
  transport: string;
  enabled: boolean;
  error: string | null;
}

describe('a native config written by hand', () => {
  it('an entry without "transport" is stdio with a "command", streamable HTTP with a "url"; with neither it says what to write, naming file and server', async () => {
    const file = writeFile('hand.json', {
      version: 1,
      mcp: {
        servers: {
          mock: { command: node, args: [mockJs] },
          remote: { url: 'http://127.0.0.1:9/mcp' },
          nothing: { args: ['x'] },
          both: { command: 'node', url: 'http://127.0.0.1:9/mcp' },
        },
      },
    });
    const list = await run(['mcp', 'list', '--json', '--config', file]);
    const rows = (JSON.parse(list.stdout) as Listed[]).map((s) => [s.id, s.transport, s.enabled]);
    expect(rows).toEqual([
      ['both', 'unknown', false],
      ['mock', 'stdio', true],
      ['nothing', 'unknown', false],
      ['remote', 'http', true],
    ]);
    expect(list.stderr).toContain(`${file}: server "nothing": field "transport": missing: give "command" (a stdio server the host starts) or "url" (a streamable HTTP server), or set "transport"; server disabled`);
    expect(list.stderr).toContain(`${file}: server "both": field "transport": missing, and the entry has both "command" and "url": set "transport" to "stdio" or "http"`);
    expect(list.stderr).not.toMatch(/Invalid option/);
    // and the inferred stdio server runs
    const call = await run(['call', 'mock', 'add', 'a=1', 'b=2', '--config', file]);
    expect(call.stdout).toBe('3\n');
  }, 60_000);

  it('a pasted "mcpServers" block (Claude Desktop / Cursor shape) is read, "type" and all; mcp add refuses to hide it', async () => {
    const file = writeFile('pasted.json', { mcpServers: { mock: { command: node, args: [mockJs] }, remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } });
    const list = await run(['mcp', 'list', '--json', '--config', file]);
    expect(list.stderr).toBe('');
    expect((JSON.parse(list.stdout) as Listed[]).map((s) => [s.id, s.transport, s.enabled])).toEqual([
      ['mock', 'stdio', true],
      ['remote', 'http', true],
    ]);
    expect((await run(['call', 'mock', 'add', 'a=2', 'b=3', '--config', file])).stdout).toBe('5\n');
    const add = await run(['mcp', 'add', 'other', '--command', 'node', '--config', file]);
    expect(add.code).not.toBe(0);
    expect(add.stderr).toContain(`${file}: holds a pasted "mcpServers" block`);
    expect(add.stderr).toContain('not rewritten');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ mcpServers: { mock: { command: node, args: [mockJs] }, remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } });
  }, 60_000);

  it('the project file: a pasted block is read there too (and held until trusted, like any project server)', async () => {
    fs.writeFileSync(path.join(proj, '.mcpwire', 'config.json'), JSON.stringify({ mcpServers: { mock: { command: node, args: [mockJs] } } }));
    const list = await run(['mcp', 'list', '--json']);
    expect((JSON.parse(list.stdout) as (Listed & { source: string; state: string })[]).map((s) => [s.id, s.source, s.state])).toEqual([['mock', 'project', 'untrusted']]);
    expect(list.stderr).not.toContain('no servers read');
  }, 60_000);

  it('misspelt fields (comand, enviroment, keep_alvie, type) get a did-you-mean naming the file and the server', async () => {
    const file = writeFile('typos.json', {
      version: 1,
      mcp: { servers: { web: { transport: 'stdio', comand: 'npx' }, db: { command: node, args: [mockJs], enviroment: { A: '1' }, keep_alvie: true, type: 'stdio' } } },
    });
    const r = await run(['mcp', 'list', '--config', file]);
    expect(r.stderr).toContain(`${file}: server "web": field "comand": unknown field ignored (did you mean "command"?)`);
    expect(r.stderr).toContain(`${file}: server "db": field "enviroment": unknown field ignored (did you mean "env"?)`);
    expect(r.stderr).toContain(`${file}: server "db": field "keep_alvie": unknown field ignored (did you mean "keep_alive"?)`);
    expect(r.stderr).toContain(`${file}: server "db": field "type": unknown field ignored (did you mean "transport"?)`);
    expect(r.stderr).toContain(`${file}: server "web": field "command": required when transport is "stdio"`);
  }, 60_000);
});
