/**
 * examples/go-host: a Go program (standard library only) as an MCP host through `mcpwire serve`
 * over stdio — initialize, list tools, call one with progress, cancel one. Built and run when `go`
 * is on PATH (.ci/run installs Debian's golang-go when it can); the standard-library-only rule is
 * checked either way.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { goHost } from '../support/built-examples.js';
import { cli, root } from '../support/tap-helpers.js';
import { tempDirs } from '../support/temp-dirs.js';

const example = path.join(root, 'examples/go-host');
const tmp = tempDirs('mcpwire-go-host-');
const hasGo = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('examples/go-host', { timeout: 240_000 }, () => {
  it('imports only the Go standard library and requires no module', () => {
    const src = fs.readFileSync(path.join(example, 'main.go'), 'utf8');
    const block = /import \(([^)]*)\)/.exec(src)![1];
    const imports = [...block.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    // A standard library path has no dot in its first element (golang.org/x/… and github.com/… do).
    for (const i of imports) expect(i.split('/')[0], i).not.toContain('.');
    expect(fs.readFileSync(path.join(example, 'go.mod'), 'utf8')).not.toMatch(/\brequire\b/);
  });

  it.runIf(hasGo)('builds with go and runs against mcpwire serve: initialize, tools, a call with progress, a cancelled call', async () => {
    const dir = tmp();
    const bin = await goHost();
    const record = path.join(dir, 'alpha.jsonl');
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { serve_names: 'host', servers: { alpha: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')], env: { MOCK_RECORD: record } } } } }));
    const child = spawn(bin, ['--', process.execPath, cli, 'serve', '--config', config], { cwd: dir, env: { ...process.env, MCPWIRE_TRACE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^initialized: mcpwire-gateway \S+, protocol 2025-11-25$/m);
    expect(stdout).toMatch(/^ {2}mcpwire_status$/m);
    expect(stdout).toMatch(/^ {2}mcp_alpha_echo\S*$/m);
    expect(stdout).toMatch(/^progress: 1\/3/m);
    expect(stdout).toMatch(/^result of mcp_alpha_progress\S*: done 3 steps \(isError false\)$/m);
    expect(stdout).toMatch(/^cancelled mcp_alpha_slow\S*: no response, as the spec says$/m);
    // The cancel reached the downstream server, naming its own request.
    const got = fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const slow = got.find((m) => m.method === 'tools/call' && m.params?.name === 'slow');
    expect(got.find((m) => m.method === 'notifications/cancelled')?.params?.requestId).toBe(slow.id);
  });
});
