/**
 * The `mcpwire` CLI as a user runs it (the built dist/; `npm test`'s pretest step builds it), in the test's own process where a process is not what is tested (support/cli-in-process.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const mockCmd = `${process.execPath} ${path.join(root, 'mock-servers/stdio-server.mjs')}`;

const emptyDirs = tempDirs('mcpwire-empty-');
const traceDirs = tempDirs('mcpwire-cli-trace-');

const run = (args: string[], env: Record<string, string> = {}) => runCliHere(args, { env: { ...process.env, ...env } });

describe('mcpwire CLI', () => {
  it('tools --json against server-everything launched with npx (devDependency, no network)', async () => {
    const r = await run(['--stdio', 'npx -y @modelcontextprotocol/server-everything', 'tools', '--json']);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('echo');
  });

  it('tools prints signatures and descriptions for people', async () => {
    const r = await run(['--stdio', mockCmd, 'tools']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^echo\(text: string\)$/m);
    expect(r.stdout).toMatch(/^ {4}Echoes the given text back/m);
  });

  it('call --json prints the CallToolResult; progress goes to stderr as plain lines when not a TTY', async () => {
    const r = await run(['--stdio', mockCmd, 'call', 'progress', '--args', '{"steps":3,"intervalMs":5}', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ content: [{ type: 'text', text: 'done 3 steps' }] });
    // Progress is coalesced (basic.utilities.progress#10): the first and the last line always
    // arrive; a middle one may be folded into the next.
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('progress'));
    expect(lines[0]).toBe('progress 1/3 step 1 of 3');
    expect(lines.at(-1)).toBe('progress 3/3 step 3 of 3');
    expect(lines.every((l) => /^progress [123]\/3 step [123] of 3$/.test(l))).toBe(true);
  });

  it('call exits 1 when the tool reports isError', async () => {
    const r = await run(['--stdio', mockCmd, 'call', 'fail', '--args', '{"message":"nope"}']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('nope');
  });

  it('--timeout-ms applies to calls and the error names the method', async () => {
    // generous: on a loaded machine the connect (era probe, initialize) must fit in it too
    const r = await run(['--stdio', mockCmd, '--timeout-ms', '2500', 'call', 'never']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/request "tools\/call" timed out after 2500 ms/);
  });

  it('usage errors exit 2 with a message', async () => {
    expect((await run(['--stdio', mockCmd, 'call', 'echo', '--args', '{not json'])).code).toBe(2);
    const empty = emptyDirs();
    const isolated = { HOME: empty, XDG_CONFIG_HOME: empty, MCPWIRE_CONFIG_PATH: path.join(empty, 'none.json') };
    expect((await run(['tools'], isolated)).stderr).toMatch(/no server/);
    expect((await run(['frobnicate'])).code).toBe(2);
  });

  it('a server that cannot start: exit 1 and an error naming the phase', async () => {
    const r = await run(['--stdio', 'no-such-command-xyz --flag', 'tools']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/during spawn.*command not found: "no-such-command-xyz"/);
  });

  it('npm start (mcpwire demo) connects to the bundled mock, lists tools, calls one with progress', async () => {
    const r = await run(['demo']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/connected to .* over stdio, protocol 2025-11-25/);
    expect(r.stdout).toMatch(/progress → .*\(\d+ progress updates/);
    expect(r.stdout).toMatch(/summary:/);
  });

  it('--trace writes a JSON-lines trace that trace stats can read', async () => {
    const file = path.join(traceDirs(), 'trace.jsonl');
    const r = await run(['--stdio', mockCmd, '--trace', file, 'call', 'echo', '--args', '{"text":"traced"}']);
    expect(r.code).toBe(0);
    const s = await run(['trace', 'stats', file, '--json']);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('tools/call');
  });
});
