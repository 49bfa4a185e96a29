/**
 * The daemon's elicitation forwarding, in process (a real daemon socket in a 0700 temp dir, the
 * bundled mock server as a real child process): a server's elicitation/create during a call
 * reaches the command that made the call, and is withdrawn from it when that call ends first
 * (here: its timeout), so the command's prompt stops as it does without a daemon.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDaemon, fingerprint, openRemote, type DaemonConnection } from '../../src/daemon-api.js';
import { Daemon } from '../../src/daemon/server.js';
import { loadConfig } from '../../src/host-api.js';
import { root, until } from '../support/cli-process.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-daemon-elicit-'));
const paths = { dir: path.join(dir, 'run'), socket: path.join(dir, 'run', 'd.sock'), log: path.join(dir, 'run', 'daemon.log'), traces: path.join(dir, 'run', 'traces'), logs: path.join(dir, 'run', 'logs') };
let daemon: Daemon;
const conns: DaemonConnection[] = [];

const ASK = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } };

beforeAll(async () => {
  for (const d of [paths.dir, paths.traces, paths.logs]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, JSON.stringify({ version: 1, mcp: { servers: { mock: { transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs')] } } } }));
  const config = await loadConfig({ globalPath: file, projectPath: path.join(dir, 'none.json') });
  daemon = new Daemon({ paths, idleMs: 0, log: () => {} });
  await daemon.listen();
  await daemon.held.load(config.servers);
}, 60_000);

afterAll(async () => {
  for (const c of conns) c.close();
  await daemon?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function remoteMock(onAsk: Parameters<typeof openRemote>[3]['onAsk']) {
  const conn = (await connectDaemon(paths))!;
  conns.push(conn);
  const [server] = (await loadConfig({ globalPath: path.join(dir, 'config.json'), projectPath: path.join(dir, 'none.json') })).servers;
  return (await openRemote(conn, 'mock', fingerprint(server), { onAsk }))!;
}

describe('daemon: elicitation crosses the socket', () => {
  it("a server's elicitation/create during a call is answered by the command that made the call", async () => {
    const asked: unknown[] = [];
    const client = await remoteMock(async (method, params) => {
      asked.push([method, (params as { message: string }).message]);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await client.callTool('ask', ASK, { timeoutMs: 20_000 });
    expect(asked).toEqual([['elicitation/create', 'Name?']]);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ action: 'accept', content: { name: 'Ada' } });
  }, 60_000);

  it('an elicitation still open when its call ends (timeout) is withdrawn from the command', async () => {
    let withdrawn = false;
    let asked = false;
    const client = await remoteMock(
      (_method, _params, _server, signal) =>
        new Promise((resolve) => {
          asked = true;
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ action: 'cancel' });
          });
        }),
    );
    await expect(client.callTool('ask', ASK, { timeoutMs: 1500 })).rejects.toMatchObject({ code: 'MCPWIRE_TIMEOUT' });
    expect(asked).toBe(true);
    expect(await until(() => withdrawn, 10_000)).toBe(true);
  }, 60_000);
});
