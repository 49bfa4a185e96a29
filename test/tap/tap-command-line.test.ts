/**
 * The server command line a trace shows (`redactCommandLine`, src/trace/command-line.ts):
 * credentials given as arguments — after a credential-named flag, as `NAME=value`, in URL user
 * info — become `[redacted]`, other arguments stay as they are; and the stdio tap's `spawn`
 * event shows it so, with the values redacted where the server echoes them too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace-api.js';
import { runStdioTap } from '../../src/tap/index.js';
import { redactArgs, redactCommandLine } from '../../src/trace/command-line.js';
import { tempDirs } from '../support/temp-dirs.js';

const R = '[redacted]';
const tmp = tempDirs('mcpwire-tap-cmdline-');

describe('redactCommandLine', () => {
  it('the value after a credential-named flag, as a separate argument or after =', () => {
    expect(redactCommandLine('server', ['--api-key', 'sk-live-123456', '--port', '8080'])).toBe(`server --api-key ${R} --port 8080`);
    expect(redactCommandLine('server', ['--token=ghp_abcdef123456', '-v'])).toBe(`server --token=${R} -v`);
    for (const flag of ['--auth', '--client-secret', '--password', '--db-passwd', '--session-id', '--cookie', '--credentials-file', '-apikey', '--Bearer']) {
      expect(redactCommandLine('s', [flag, 'value-123456']), flag).toBe(`s ${flag} ${R}`);
    }
  });

  it('one-letter flags, --no-… flags, a flag followed by another flag, and ordinary arguments stay', () => {
    expect(redactCommandLine('psql', ['-p', '5432', '-U', 'admin'])).toBe('psql -p 5432 -U admin');
    expect(redactCommandLine('s', ['--no-auth', 'server.js'])).toBe('s --no-auth server.js');
    expect(redactCommandLine('s', ['--token', '--verbose'])).toBe('s --token --verbose');
    expect(redactCommandLine('npx', ['-y', '@modelcontextprotocol/server-everything', 'stdio'])).toBe('npx -y @modelcontextprotocol/server-everything stdio');
    expect(redactCommandLine('s', ['--token='])).toBe('s --token=');
  });

  it('NAME=value arguments with a credential-like name (env, docker -e)', () => {
    expect(redactCommandLine('env', ['GITHUB_TOKEN=ghp_x123456', 'LOG_LEVEL=debug', 'node', 'server.js'])).toBe(`env GITHUB_TOKEN=${R} LOG_LEVEL=debug node server.js`);
    expect(redactCommandLine('docker', ['run', '-e', 'OPENAI_API_KEY=sk-abc123456', '-e', 'MY_SECRET=s3cr3t!', 'img'])).toBe(`docker run -e OPENAI_API_KEY=${R} -e MY_SECRET=${R} img`);
  });

  it('user info of URLs among the arguments', () => {
    expect(redactCommandLine('s', ['postgres://admin:hunter2pw@db:5432/app', '--url=https://ghp_tok123456@github.com/x'])).toBe(
      `s postgres://admin:${R}@db:5432/app --url=https://${R}@github.com/x`,
    );
    expect(redactCommandLine('s', ['https://example.com/path?q=1'])).toBe('s https://example.com/path?q=1');
  });

  it('gives the values it took out', () => {
    expect(redactArgs(['--api-key', 'sk-1', '--token=t-2', 'A_SECRET=s-3', 'redis://u:p-4@h']).secrets).toEqual(['sk-1', 't-2', 's-3', 'p-4']);
  });
});

describe('the stdio tap traces the command line redacted', () => {
  it('spawn shows --api-key/--token=/NAME=/URL credentials as [redacted], and an echo of the key is redacted too', async () => {
    const dir = tmp();
    const trace = path.join(dir, 't.jsonl');
    const KEY = 'sk-cmdline-5f4e3d2c1b';
    const TOK = 'tok-cmdline-0a9b8c7d6e';
    const PW = 'pw-cmdline-1122334455';
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const got: Buffer[] = [];
    stdout.on('data', (c: Buffer) => got.push(c));
    const line = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: `my key is ${KEY}` } } })}\n`;
    const args = ['-e', 'process.stdin.pipe(process.stdout)', '--', '--api-key', KEY, `--token=${TOK}`, `DB_PASSWORD=${PW}`, `postgres://me:${PW}@db/x`, '-p', '7'];
    const running = runStdioTap({ command: process.execPath, args, trace, name: 'cmdline', stdin, stdout, env: { PATH: process.env.PATH } });
    stdin.end(line);
    const exit = await running;
    expect(exit.code).toBe(0);
    expect(Buffer.concat(got).toString()).toBe(line); // relayed unchanged
    const text = fs.readFileSync(trace, 'utf8');
    for (const s of [KEY, TOK, PW]) expect(text).not.toContain(s);
    const spawnEvent = (parseTrace(text).records as any[]).find((r) => r.event === 'transport' && r.type === 'spawn');
    expect(spawnEvent.command).toBe(`${process.execPath} -e process.stdin.pipe(process.stdout) -- --api-key ${R} --token=${R} DB_PASSWORD=${R} postgres://me:${R}@db/x -p 7`);
  });
});
