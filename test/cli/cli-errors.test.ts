/**
 * Errors that say what to do, and the CLI's manners ("did you mean", `--help` and
 * EPIPE): each mistake a user makes, with the message asserted. Real
 * processes; HTTP servers on 127.0.0.1. Needs `dist/`.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, cli, everythingEntry, mockJs, node, run, sandbox, sh, writeJson } from '../support/cli-user.js';

afterAll(cleanup);

/** An HTTP server that answers every request with `status`, recording the request headers. */
async function statusServer(status: number): Promise<{ url: string; headers: http.IncomingHttpHeaders[]; close: () => Promise<void> }> {
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    headers.push(req.headers);
    req.resume();
    res.statusCode = status;
    res.end(status === 404 ? 'Not Found' : 'Method Not Allowed');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, headers, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * Never answers, and leaves when its stdin closes, as a well-behaved server does: these tests are
 * about the startup timeout, not the close ladder (a server that stays up after its stdin closes
 * costs each run the ladder's 2 s wait; test/transport/stdio-transport.test.ts proves the ladder).
 */
const hangEntry = () => ({ transport: 'stdio', command: node, args: ['-e', "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"] });

describe('errors that say what to do', { timeout: 120_000 }, () => {
  it('HTTP 404 / 405 on initialize: "no MCP endpoint at <url> (HTTP 404) — is the path right? (e.g. /mcp)", not "connection closed"', async () => {
    const s404 = await statusServer(404);
    const s405 = await statusServer(405);
    try {
      const sb = sandbox({ web: { transport: 'http', url: `${s405.url}/wrong?token=abc123secret` } });
      const adHoc = await run(sb, ['--url', `${s404.url}/`, 'tools']);
      expect(adHoc.code).toBe(1);
      expect(adHoc.stderr).toContain(`no MCP endpoint at ${s404.url}/ (HTTP 404) — is the path right? (e.g. /mcp)`);
      expect(adHoc.stderr).not.toContain('connection closed');

      const configured = await run(sb, ['call', 'web', 'echo']);
      expect(configured.code).toBe(1);
      expect(configured.stderr).toContain(`no MCP endpoint at ${s405.url}/wrong (HTTP 405) — is the path right? (e.g. /mcp)`);
      expect(configured.stderr).not.toContain('abc123secret');
    } finally {
      await s404.close();
      await s405.close();
    }
  });

  it('a web page (200 text/html) or HTTP 501 at the URL: "no MCP endpoint at <url> (HTTP 501, text/html)" during initialize, no HTML shown', async () => {
    const page = '<!doctype html><html><body><h1>Not Implemented</h1><p>&lt;b&gt; &amp; more</p></body></html>';
    const servers = await Promise.all(
      [501, 200].map(async (status) => {
        const server = http.createServer((req, res) => {
          req.resume();
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
          res.end(page);
        });
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        const { port } = server.address() as AddressInfo;
        return { status, url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise<void>((r) => server.close(() => r())) };
      }),
    );
    try {
      const sb = sandbox({});
      for (const s of servers) {
        for (const pin of [[], ['--protocol-version', '2025-11-25'], ['--protocol-version', '2026-07-28']]) {
          const r = await run(sb, ['--url', s.url, 'tools', ...pin]);
          expect(r.code).toBe(1);
          expect(r.stderr, `${s.status} ${pin.join(' ')}`).toContain(`[server "${new URL(s.url).host}" during initialize] no MCP endpoint at ${s.url} (HTTP ${s.status}, text/html) — is the path right? (e.g. /mcp)`);
          expect(r.stderr).not.toMatch(/html>|&lt;|&amp;|not valid JSON/);
        }
      }
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it('a server found only in an import file says to add --imports', async () => {
    const sb = sandbox({ native: { transport: 'stdio', command: node, args: [mockJs] } });
    writeJson(path.join(sb.proj, '.mcp.json'), { mcpServers: { imp: { command: node, args: [mockJs] } } });
    for (const args of [['call', 'imp', 'echo', 'text=x'], ['tools', 'imp'], ['resources', 'imp']]) {
      const r = await run(sb, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`unknown server "imp": it is defined only in an import file (${path.join(fs.realpathSync(sb.proj), '.mcp.json')}), which is read only with --imports`);
    }
    const ok = await run(sb, ['call', 'imp', 'echo', 'text=x', '--imports']);
    expect(ok).toMatchObject({ code: 0, stdout: 'x\n' });
  });

  it('an unknown server id gets "did you mean" from the configured ids', async () => {
    const sb = sandbox({ everything: everythingEntry() });
    const r = await run(sb, ['call', 'everythin', 'echo', 'message=hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown server "everythin" (did you mean "everything"?) (configured: everything)');
  });

  it('a startup timeout names --timeout-ms (tools, call, resources, status)', async () => {
    const sb = sandbox({ hang: hangEntry() });
    // four independent runs, each waiting out its 800 ms: at once
    const [tools, call, res, status] = await Promise.all([
      run(sb, ['tools', 'hang', '--timeout-ms', '800']),
      run(sb, ['call', 'hang', 'x', '--timeout-ms', '800']),
      run(sb, ['resources', 'hang', '--timeout-ms', '800']),
      run(sb, ['status', 'hang', '--timeout-ms', '800']),
    ]);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toMatch(/timed out after 800 ms.*\(give it longer with --timeout-ms <ms>\)/);
    expect(call.code).toBe(1);
    expect(call.stderr).toMatch(/"initialize" timed out after 800 ms.*--timeout-ms <ms>/);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/timed out after 800 ms.*--timeout-ms <ms>/);
    expect(status.stdout).toMatch(/^last_error\s+.*timed out.*--timeout-ms <ms>/m);
  });

  it('--header "Authorization: Bearer x" (colon form) is accepted and sent', async () => {
    const s = await statusServer(404);
    try {
      const sb = sandbox();
      const r = await run(sb, ['--url', `${s.url}/mcp`, '--header', 'Authorization: Bearer x-token-1', '--header', 'X-Team=acme', 'tools']);
      expect(r.stderr).not.toMatch(/must look like/);
      expect(s.headers[0]?.authorization).toBe('Bearer x-token-1');
      expect(s.headers[0]?.['x-team']).toBe('acme');
      const bad = await run(sb, ['--url', `${s.url}/mcp`, '--header', 'nonsense', 'tools']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--header must look like "Name: value" or Name=value (occurrence 1)');
    } finally {
      await s.close();
    }
  });

  it('--strict without --trace warns; with --trace it does not', async () => {
    const sb = sandbox();
    const warned = await run(sb, ['--stdio', `${node} ${mockJs}`, '--strict', 'call', 'echo', 'text=hi']);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('warning: --strict checks messages for the trace: without --trace <file> (or MCPWIRE_TRACE) nothing records them');
    const traced = await run(sb, ['--stdio', `${node} ${mockJs}`, '--strict', '--trace', path.join(sb.dir, 't.jsonl'), 'call', 'echo', 'text=hi']);
    expect(traced.code, traced.stderr).toBe(0);
    expect(traced.stderr).not.toContain('--strict checks');
  });

  it('--config with --scope is refused (mcp list/add/remove/test)', async () => {
    const sb = sandbox();
    const file = path.join(sb.dir, 'c.json');
    writeJson(file, { version: 1, mcp: { servers: {} } });
    for (const args of [['mcp', 'list'], ['mcp', 'add', 'x', '--command', 'node'], ['mcp', 'remove', 'x'], ['mcp', 'test', 'x']]) {
      const r = await run(sb, [...args, '--config', file, '--scope', 'global']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('--scope and --config exclude each other');
    }
  });

  it('every --json command prints JSON on stdout even when it fails', async () => {
    const sb = sandbox({ m: { transport: 'stdio', command: node, args: [mockJs] } });
    const cases = [
      ['call', 'nope', 'echo', '--json'],
      ['tools', 'nope', '--json'],
      ['resources', 'nope', '--json'],
      ['status', 'nope', '--json'],
      ['read', 'm', '--json'],
      ['frobnicate', '--json'],
      ['call', 'm', 'add', 'a=x', '--json'],
      ['mcp', 'remove', 'nope', '--json'],
    ];
    for (const args of cases) {
      const r = await run(sb, args);
      expect(r.code, args.join(' ')).not.toBe(0);
      const parsed = JSON.parse(r.stdout) as { error?: { message: string; exit_code: number } };
      expect(parsed.error?.message, args.join(' ')).toMatch(/\S/);
      expect(parsed.error?.exit_code).toBe(r.code);
    }
  });

  it('"did you mean" for a mistyped command and option', async () => {
    const sb = sandbox();
    const cmd = await run(sb, ['tols']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('unknown command "tols" (did you mean "tools"?)');
    const opt = await run(sb, ['tools', '--jsn']);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain('unknown option "--jsn" (did you mean "--json"?)');
    const opt2 = await run(sb, ['call', 'm', 'echo', '--save-dri', 'x']);
    expect(opt2.stderr).toContain('(did you mean "--save-dir"?)');
  });
});

describe('--help and pipes', { timeout: 300_000 }, () => {
  it('--help on any command never starts a server', async () => {
    const sb = sandbox();
    const marker = path.join(sb.dir, 'started');
    writeJson(sb.projectFile, { version: 1, mcp: { servers: { s: { transport: 'stdio', command: node, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); setInterval(() => {}, 1000)`] } } } });
    const help = await run(sb, ['--help']);
    expect(help.code).toBe(0);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z-]+)\s/gm)].map((m) => m[1]);
    expect(commands).toEqual(expect.arrayContaining(['tools', 'resources', 'templates', 'prompts', 'call', 'status', 'read', 'prompt', 'check']));
    const lines = [
      ...commands.flatMap((c) => [[c, '-h'], [c, 's', 's', '--help']]),
      ...['tools', 'resources', 'prompts', 'call', 'read'].map((c) => ['--stdio', `${node} ${mockJs}`, c, '--help']),
    ];
    for (let i = 0; i < lines.length; i += 6) {
      const batch = await Promise.all(lines.slice(i, i + 6).map((args) => run(sb, args)));
      batch.forEach((r, j) => expect((r.stdout + r.stderr).length, lines[i + j].join(' ')).toBeGreaterThan(0));
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('piping into head: EPIPE exits quietly (exit 0, nothing on stderr)', async () => {
    const sb = sandbox();
    const args = path.join(sb.dir, 'big.json');
    fs.writeFileSync(args, JSON.stringify({ text: 'x'.repeat(4 * 1024 * 1024) }));
    const r = await sh(sb, `set -o pipefail; ${node} ${cli} --stdio "${node} ${mockJs}" call echo --args @${args} | head -c 10 >/dev/null; echo "status=$?"`);
    expect(r.stdout.trim()).toBe('status=0');
    expect(r.stderr).toBe('');
  });
});
