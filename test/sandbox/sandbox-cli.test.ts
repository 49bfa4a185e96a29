/**
 * Sandboxed servers through the built CLI (`npm run build` first): `mcp add --sandbox…` writes
 * the entry, `status` / `status --json` show the grants and what the sandbox refused, `call`'s
 * error says the server runs sandboxed; a loosened sandbox in the project's file needs trust
 * again (a tightened one by `mcp add --replace` keeps it); the daemon starts the server sandboxed
 * as the CLI does.
 */
import { extractBlocks } from '../support/docs-blocks.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../../src/transport/spawn/sandbox-launch.js';
import { runCliHere } from '../support/cli-in-process.js';
import { cleanup, node, root, run, sandbox, sh } from '../support/cli-user.js';

const HOSTILE = path.join(root, 'mock-servers', 'hostile-server.mjs');
const noBwrap = process.platform !== 'linux' || findBwrap() === undefined;

afterAll(cleanup);

describe.skipIf(noBwrap)('sandboxed servers in the CLI (bubblewrap; skipped only where bwrap is absent)', { timeout: 120_000 }, () => {
  it('mcp add --sandbox-write writes the sandbox; status shows it; a refused call says the server runs sandboxed', async () => {
    const sb = sandbox();
    const data = path.join(sb.dir, 'data');
    fs.mkdirSync(data);
    const add = await run(sb, ['mcp', 'add', 'jail', '--command', node, '--arg', HOSTILE, '--sandbox-write', data, '--sandbox-env', 'LANGUAGE']);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const written = JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')) as { mcp: { servers: { jail: { sandbox: unknown } } } };
    expect(written.mcp.servers.jail.sandbox).toEqual({ filesystem: { write: [data] }, env: ['LANGUAGE'] });

    const st = await run(sb, ['status', 'jail', '--json']);
    const row = JSON.parse(st.stdout) as { state: string; sandbox: { summary: string; grants: unknown; denied: string[] } | null };
    expect(row.state).toBe('ready');
    expect(row.sandbox?.summary).toContain(`write ${data}`);
    expect(row.sandbox?.grants).toEqual({ filesystem: { read: [], write: [data] }, network: 'none', env: ['LANGUAGE'] });
    expect((await run(sb, ['status'])).stdout).toMatch(/sandboxed[\s\S]*jail.*\byes\b/);
    expect((await run(sb, ['status', 'jail'])).stdout).toMatch(/^sandbox\s+.*network: none/m);

    const key = path.join(sb.home, '.ssh', 'id_rsa');
    fs.mkdirSync(path.dirname(key), { recursive: true });
    fs.writeFileSync(key, 'planted');
    const call = await run(sb, ['call', 'jail', 'read_file', '--args', JSON.stringify({ path: key })]);
    expect(call.code).not.toBe(0);
    expect(call.stdout + call.stderr).toContain('ENOENT');
    expect(call.stdout + call.stderr).toContain('server "jail" runs sandboxed');
  });

  it('a project entry whose sandbox is loosened is not started until trusted again; mcp add --replace with a tighter one keeps the trust', async () => {
    const sb = sandbox();
    const data = path.join(sb.dir, 'data');
    fs.mkdirSync(data);
    expect((await run(sb, ['mcp', 'add', 'jail', '--command', node, '--arg', HOSTILE, '--sandbox-write', data])).code).toBe(0);
    const env = { ...process.env, ...sb.env };
    const status = async () => (JSON.parse((await runCliHere(['status', 'jail', '--json'], { cwd: sb.proj, env })).stdout) as { state: string }).state;
    expect(await status()).toBe('ready');
    // tighter, by the user: trust kept
    const tighter = await runCliHere(['mcp', 'add', 'jail', '--command', node, '--arg', HOSTILE, '--sandbox', '--replace', '--json'], { cwd: sb.proj, env });
    expect(JSON.parse(tighter.stdout)).toMatchObject({ replaced: true, trusted: true });
    expect(await status()).toBe('ready');
    // looser, by the user: trust dropped
    const looser = await runCliHere(['mcp', 'add', 'jail', '--command', node, '--arg', HOSTILE, '--sandbox-write', '/', '--replace', '--json'], { cwd: sb.proj, env });
    expect(JSON.parse(looser.stdout)).toMatchObject({ replaced: true, trusted: false });
    expect(await status()).toBe('untrusted');
    // the repository's file edited to let the network out: a changed entry, untrusted again
    await run(sb, ['status']); // trusts the project as it is now
    const file = JSON.parse(fs.readFileSync(sb.projectFile, 'utf8')) as { mcp: { servers: { jail: { sandbox: Record<string, unknown> } } } };
    file.mcp.servers.jail.sandbox = { network: { allow: ['*.example.com'] } };
    fs.writeFileSync(sb.projectFile, JSON.stringify(file));
    expect(await status()).toBe('untrusted');
    file.mcp.servers.jail.sandbox = undefined as never;
    fs.writeFileSync(sb.projectFile, JSON.stringify(file));
    expect(await status()).toBe('untrusted');
  });

  it('docs/sandbox.md: the `mcp add` block runs as written and status shows the sandbox', async () => {
    const doc = fs.readFileSync(path.join(root, 'docs', 'sandbox.md'), 'utf8');
    // the block's annotation is the HTML comment on the line before its fence (test/support/docs-blocks.ts)
    const found = extractBlocks(doc, 'docs/sandbox.md').find((b) => b.annotation.startsWith('ran-by: test/sandbox/sandbox-cli.test.ts'));
    const block = found?.code;
    expect(block).toBeDefined();
    const sb = sandbox();
    fs.copyFileSync(HOSTILE, path.join(sb.proj, 'server.mjs'));
    const r = await sh(sb, `mcpwire() { ${JSON.stringify(node)} ${JSON.stringify(path.join(root, 'dist', 'cli', 'main.js'))} "$@"; }\nset -e\n${block!}`);
    expect(r.stderr).toBe('');
    const row = JSON.parse(r.stdout.slice(r.stdout.indexOf('{\n'))) as { state: string; sandbox: { summary: string } };
    expect(row.state).toBe('ready');
    expect(row.sandbox.summary).toContain(`write ${path.join(sb.proj, 'notes')}`);
  });

  it('the daemon starts a sandboxed server sandboxed: its environment and HOME are the sandbox\'s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-sbx-daemon-'));
    const home = path.join(dir, 'home');
    const runtime = path.join(dir, 'run');
    fs.mkdirSync(home);
    fs.mkdirSync(runtime, { mode: 0o700 });
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { jail: { command: node, args: [HOSTILE], sandbox: true } } } }));
    const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: config, MCPWIRE_TRACE: '', MCPWIRE_NO_DAEMON: '', MCPWIRE_DAEMON_IDLE_MS: '', MCPWIRE_TEST_SECRET: 'host-secret' };
    try {
      expect((await runCliHere(['daemon', 'start'], { cwd: dir, env })).code).toBe(0);
      const r = await runCliHere(['call', 'jail', 'env', '--args', '{"names":["MCPWIRE_TEST_SECRET"]}'], { cwd: dir, env });
      expect(r.stderr, r.stdout).toMatch(/via daemon/);
      expect(r.stdout).toContain('visible: none');
      expect(r.stdout).toContain('HOME=/tmp');
    } finally {
      await runCliHere(['daemon', 'stop'], { cwd: dir, env });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
