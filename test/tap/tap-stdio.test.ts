/**
 * `mcpwire tap -- <cmd>` as a host sees it (the built CLI, real child processes): bytes pass
 * through unchanged both ways (partial lines, a multi-MiB message, split UTF-8, non-JSON), the
 * server's stderr is forwarded, exit codes and signals propagate, and the trace (0600, redacted)
 * holds every message of both directions.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace-api.js';
import { defaultServerName } from '../../src/tap/index.js';
import { tempDirs } from '../support/temp-dirs.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli/main.js');
const dir = tempDirs('mcpwire-tap-stdio-')();

/** A "server" that echoes its stdin to stdout byte for byte, and says hello on stderr. */
const CAT = `process.stderr.write('stderr-from-server\\n'); process.stdin.pipe(process.stdout);`;

interface Run {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

function tap(trace: string, serverArgs: string[], feed: (stdin: NodeJS.WritableStream, child: ReturnType<typeof spawn>) => Promise<void> | void, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'tap', '--trace', trace, '--name', 'echo', '--', process.execPath, ...serverArgs], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ stdout: Buffer.concat(out), stderr: err, code, signal }));
    void Promise.resolve(feed(child.stdin, child)).catch(reject);
  });
}

function write(stream: NodeJS.WritableStream, data: Buffer | string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(data)) resolve();
    else stream.once('drain', () => resolve());
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mcpwire tap (stdio)', () => {
  it('relays bytes unchanged both ways: partial lines, a 3 MiB message, UTF-8 split across writes, non-JSON; traces every message', async () => {
    const trace = path.join(dir, 'bytes.jsonl');
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(3 * 1024 * 1024) } } });
    const utf8 = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'héllo wörld ✓ 日本語' } })}\n`);
    const pieces: Buffer[] = [
      Buffer.from('{"jsonrpc":"2.0","id":1,'),
      Buffer.from('"method":"ping"}\n{"jsonrpc":"2.0","id":1,"result":{}}\r\n'),
      Buffer.from(`${big}\n`),
      utf8.subarray(0, 70),
      utf8.subarray(70),
      Buffer.from('not json at all\n'),
      Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}'), // last line without newline
    ];
    const sent = Buffer.concat(pieces);
    const r = await tap(trace, ['-e', CAT], async (stdin) => {
      for (const p of pieces) {
        await write(stdin, p);
        await pause(20);
      }
      stdin.end();
    });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(sent.length);
    expect(r.stdout.equals(sent)).toBe(true);
    expect(r.stderr).toContain('stderr-from-server');

    expect(fs.statSync(trace).mode & 0o777).toBe(0o600);
    const records = parseTrace(fs.readFileSync(trace, 'utf8')).records as any[];
    const msgs = records.filter((x) => x.dir);
    // The echo server sends back everything: each message appears once per direction.
    for (const dir of ['out', 'in']) {
      const kinds = msgs.filter((m) => m.dir === dir).map((m) => `${m.kind}:${m.method ?? ''}`);
      expect(kinds).toEqual(['request:ping', 'result:' + (dir === 'in' ? 'ping' : ''), 'request:tools/call', 'notification:notifications/message', 'invalid:', 'notification:notifications/initialized']);
    }
    const bigRec = msgs.find((m) => m.dir === 'out' && m.method === 'tools/call');
    expect(bigRec.bytes).toBe(Buffer.byteLength(big));
    const utfRec = msgs.find((m) => m.dir === 'in' && m.method === 'notifications/message');
    expect(utfRec.msg.params.data).toBe('héllo wörld ✓ 日本語');
    expect(records.some((x) => x.event === 'transport' && x.type === 'spawn')).toBe(true);
    expect(records.every((x) => x.server === 'echo')).toBe(true);
  });

  it('redacts: credential env values the server is given never reach the trace, even when they pass in messages', async () => {
    const trace = path.join(dir, 'redact.jsonl');
    const secret = 'ghp_tapsecret_5c1e9d2a7b';
    const line = `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: `token is ${secret}` } } })}\n`;
    const r = await tap(trace, ['-e', CAT], (stdin) => void stdin.end(line), { GITHUB_TOKEN: secret });
    expect(r.stdout.toString()).toBe(line); // the host still gets the bytes as they were
    const text = fs.readFileSync(trace, 'utf8');
    expect(text).toContain('tools/call');
    expect(text).not.toContain(secret);
  });

  it("exits with the server's exit code", async () => {
    const r = await tap(path.join(dir, 'exit.jsonl'), ['-e', 'process.stdin.resume(); setTimeout(() => process.exit(7), 50)'], () => {});
    expect(r.code).toBe(7);
  });

  it('forwards SIGTERM to the server and dies of the signal the server died of', async () => {
    const trace = path.join(dir, 'signal.jsonl');
    const r = await tap(trace, ['-e', "process.stderr.write('ready\\n'); process.stdin.resume();"], async (_stdin, child) => {
      // wait for the server to be up (its stderr is forwarded)
      await new Promise<void>((resolve) => {
        const on = (c: Buffer) => c.toString().includes('ready') && (child.stderr!.off('data', on), resolve());
        child.stderr!.on('data', on);
      });
      child.kill('SIGTERM');
    });
    expect(r.signal).toBe('SIGTERM');
    const records = parseTrace(fs.readFileSync(trace, 'utf8')).records as any[];
    expect(records.some((x) => x.event === 'transport' && x.type === 'signal' && x.signal === 'SIGTERM')).toBe(true);
    expect(records.some((x) => x.event === 'transport' && x.type === 'exit' && x.signal === 'SIGTERM')).toBe(true);
  });

  it('a server that handles SIGINT and exits 3 makes the tap exit 3', async () => {
    const r = await tap(path.join(dir, 'sigint.jsonl'), ['-e', "process.on('SIGINT', () => process.exit(3)); process.stderr.write('ready\\n'); process.stdin.resume();"], async (_stdin, child) => {
      await new Promise<void>((resolve) => {
        const on = (c: Buffer) => c.toString().includes('ready') && (child.stderr!.off('data', on), resolve());
        child.stderr!.on('data', on);
      });
      child.kill('SIGINT');
    });
    expect(r.code).toBe(3);
  });
  it('--strict checks both directions against the schema as they pass: violations are schema events and stderr lines, bytes still pass', async () => {
    const trace = path.join(dir, 'strict.jsonl');
    // answers initialize without serverInfo/capabilities (a violation); the host's request is valid
    const server = `let b='';process.stdin.on('data',c=>{b+=c;let i;while((i=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{protocolVersion:'2025-11-25'}})+'\\n');}});`;
    const init = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } } })}\n`;
    const child = spawn(process.execPath, [cli, 'tap', '--strict', '--trace', trace, '--', process.execPath, '-e', server], { cwd: root });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.endsWith('\n')) resolve();
      }),
    );
    child.stdin.write(init);
    await answered;
    child.stdin.end();
    await new Promise((r) => child.once('close', r));
    expect(JSON.parse(out)).toEqual({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(err).toMatch(/schema: server result initialize \/result: must have required property '(capabilities|serverInfo)'/);
    const records = parseTrace(fs.readFileSync(trace, 'utf8')).records as any[];
    const schema = records.filter((r) => r.event === 'schema');
    expect(schema.length).toBeGreaterThanOrEqual(1);
    expect(schema.every((v) => v.dir === 'in' && v.schemaType === 'InitializeResult')).toBe(true);
    expect(records.find((r) => r.event === 'trace-start').strict).toBe(true);
  });
  it('names the server after what a launcher runs when --name is not given', () => {
    expect(defaultServerName('npx', ['-y', '@modelcontextprotocol/server-everything@latest'])).toBe('server-everything');
    expect(defaultServerName('/usr/bin/node', ['dist/server.js', '--port', '1'])).toBe('server');
    expect(defaultServerName('uvx', ['mcp-server-git'])).toBe('mcp-server-git');
    expect(defaultServerName('/opt/bin/my-server', ['--flag'])).toBe('my-server');
    expect(defaultServerName('node', [])).toBe('node');
  });
  it('forwards each message at once, not when the trace is written (median ping round trip through the tap far below the 250 ms trace batch)', async () => {
    const server = `let b='';process.stdin.on('data',c=>{b+=c;let i;while((i=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{}})+'\\n');}});`;
    const child = spawn(process.execPath, [cli, 'tap', '--trace', path.join(dir, 'latency.jsonl'), '--', process.execPath, '-e', server], { cwd: root });
    let buf = '';
    let waiter: (() => void) | undefined;
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      while (buf.includes('\n')) {
        buf = buf.slice(buf.indexOf('\n') + 1);
        waiter?.();
      }
    });
    const ping = (id: number) =>
      new Promise<void>((resolve) => {
        waiter = resolve;
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
      });
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await ping(i);
      times.push(performance.now() - t0);
    }
    child.stdin.end();
    await new Promise((r) => child.once('close', r));
    times.sort((a, b) => a - b);
    // Typically ~0.3 ms (scripts/tap-bench.mjs); a relay that waited for the trace writer would take ≥ 250 ms.
    expect(times[100]).toBeLessThan(50);
  });
});
