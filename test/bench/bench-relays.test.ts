/**
 * The floor relays of the bench's gateway rows (bench/stdio-relay.mjs, bench/http-stdio-relay.mjs)
 * relay for real: a client reaches the server through each, concurrent calls come back to the
 * right caller (the relay's own ids are put back), and a long line split over many reads arrives
 * whole — else the `gw-relay-*` rows would measure something other than the shape's floor.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MOCK = path.join(root, 'mock-servers', 'stdio-server.mjs');
const open: { client?: McpClient; child?: ChildProcess }[] = [];

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.client?.close();
    o.child?.kill('SIGTERM');
  }
});

async function calls(client: McpClient): Promise<void> {
  const texts = Array.from({ length: 40 }, (_, i) => `call ${i}`);
  const answers = await Promise.all(texts.map((text) => client.callTool('echo', { text })));
  expect(answers.map((a) => (a.content[0] as { text: string }).text)).toEqual(texts);
  // ~1 MiB: many reads on both pipes before its line ends
  const long = 'x'.repeat(1024 * 1024);
  const r = await client.callTool('echo', { text: long });
  expect((r.content[0] as { text: string }).text).toBe(long);
}

describe('the bench floor relays', () => {
  it('stdio-relay.mjs relays calls between its stdio and the server', async () => {
    const client = await connect(
      { transport: 'stdio', id: 'relay', command: process.execPath, args: [path.join(root, 'bench', 'stdio-relay.mjs'), '--', process.execPath, MOCK] },
      { timeoutMs: 20_000, protocolVersion: '2025-11-25' },
    );
    open.push({ client });
    await calls(client);
  });

  it('http-stdio-relay.mjs relays calls from HTTP POSTs to the server', async () => {
    const child = spawn(process.execPath, [path.join(root, 'bench', 'http-stdio-relay.mjs'), '--', process.execPath, MOCK], { stdio: ['ignore', 'ignore', 'pipe'] });
    open.push({ child });
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /LISTEN (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`relay exited (${code}): ${err}`)));
    });
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const client = await connect({ transport: 'http', id: 'relay-http', url }, { timeoutMs: 20_000, protocolVersion: '2025-11-25' });
    open.push({ client });
    await calls(client);
  });
});
