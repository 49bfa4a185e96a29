/**
 * An ad-hoc server (`--stdio`) that never answers `initialize`, driven through the built CLI
 * (`npm run build` first): after the connect timeout the failure names the server and the phase,
 * then shows what the server printed — the lines on stdout that were not JSON-RPC and the tail
 * of its stderr — with the values given by `--env` never shown; a server that printed nothing
 * is said to have printed nothing, one whose stderr tail the error already shows is not; the
 * command is shown quoted as a shell would need it. Every command path: `call`, `tools`, `request`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { runCli } from '../support/cli-process.js';

/** Prints a banner on stdout and log lines on stderr, reads stdin, and never answers. */
const SILENT = `
process.stdout.write('Server starting on stdio...\\n');
process.stderr.write('plugins: loading\\n');
process.stdout.write('token=' + (process.env.API_TOKEN ?? 'none') + '\\n');
process.stderr.write('license: waiting for ' + (process.env.API_TOKEN ?? 'none') + '\\n');
process.stdin.resume();
`;

let dir: string;
let env: NodeJS.ProcessEnv;
const SECRET = 'sk-adhoc-9f8e7d6c5b4a';

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-adhoc-silent-')));
  fs.writeFileSync(path.join(dir, 'silent.mjs'), SILENT);
  fs.writeFileSync(path.join(dir, 'mute.mjs'), 'process.stdin.resume();\n');
  fs.writeFileSync(path.join(dir, 'dies.mjs'), "process.stderr.write('fatal: no config file\\n');\nprocess.exit(3);\n");
  fs.mkdirSync(path.join(dir, 'with space'));
  fs.writeFileSync(path.join(dir, 'with space', 'mute.mjs'), 'process.stdin.resume();\n');
  fs.mkdirSync(path.join(dir, 'home'));
  env = { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg'), XDG_RUNTIME_DIR: path.join(dir, 'run'), MCPWIRE_NO_DAEMON: '1', NO_COLOR: '1' };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCli(args, { cwd: dir, env });
const silent = () => `node ${path.join(dir, 'silent.mjs')}`;

function expectPrinted(expect: ExpectStatic, stderr: string, ms: number): void {
  const lines = stderr.split('\n');
  expect(lines[0]).toMatch(new RegExp(`^mcpwire: \\[server "stdio" during initialize\\] request "initialize" timed out after ${ms} ms.*\\(MCPWIRE_TIMEOUT\\)$`));
  expect(lines.slice(1).join('\n')).toBe(
    [
      `the server (${silent()}) printed:`,
      '  on stdout, not JSON-RPC:',
      '    Server starting on stdio...',
      '    token=[redacted]',
      '  on stderr (the last lines):',
      '    plugins: loading',
      '    license: waiting for [redacted]',
      '',
    ].join('\n'),
  );
  expect(stderr).not.toContain(SECRET);
}

// Each run waits out its connect timeout in a CLI process of its own (the sandbox is only read):
// the runs go at once.
describe.concurrent('an ad-hoc server that never answers', () => {
  it('call: after the connect timeout, the server and the phase, then what it printed (stdout not JSON-RPC, stderr tail), --env values hidden', async ({ expect }) => {
    const started = Date.now();
    const r = await run(['call', '--stdio', silent(), '--env', `API_TOKEN=${SECRET}`, 'anything', '--timeout-ms', '5000']);
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
    expect(r.stdout).toBe('');
    expectPrinted(expect, r.stderr, 5000);
  }, 60_000);

  it('tools and request report it the same way', async ({ expect }) => {
    const [tools, request] = await Promise.all([
      run(['tools', '--stdio', silent(), '--env', `API_TOKEN=${SECRET}`, '--timeout-ms', '5000']),
      run(['request', '--stdio', silent(), '--env', `API_TOKEN=${SECRET}`, 'tools/list', '--timeout-ms', '5000']),
    ]);
    expect(tools.code).toBe(1);
    expectPrinted(expect, tools.stderr, 5000);
    expect(request.code).toBe(1);
    expectPrinted(expect, request.stderr, 5000);
  }, 60_000);

  it('a server that printed nothing is said to have printed nothing', async ({ expect }) => {
    const r = await run(['call', '--stdio', `node ${path.join(dir, 'mute.mjs')}`, 'anything', '--timeout-ms', '3000']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').slice(1)).toEqual([`the server (node ${path.join(dir, 'mute.mjs')}) printed nothing on stdout or stderr`, '']);
  }, 60_000);

  it('the command is shown as it was quoted: an argument with a space or a quote comes back quoted', async ({ expect }) => {
    const script = path.join(dir, 'with space', 'mute.mjs');
    const r = await run(['call', '--stdio', `node "${script}" --greeting "it's"`, 'anything', '--timeout-ms', '3000']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').slice(1)).toEqual([`the server (node '${script}' --greeting 'it'\\''s') printed nothing on stdout or stderr`, '']);
  }, 60_000);
});

describe.concurrent('an ad-hoc server that writes to stderr and exits', () => {
  it('its stderr tail is shown once, in the error, and it is never said to have printed nothing', async ({ expect }) => {
    const r = await run(['tools', '--stdio', `node ${path.join(dir, 'dies.mjs')}`, '--timeout-ms', '5000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exited with code 3; stderr tail:\nfatal: no config file/);
    expect(r.stderr.split('fatal: no config file')).toHaveLength(2);
    expect(r.stderr).not.toContain('printed nothing');
  }, 60_000);
});
