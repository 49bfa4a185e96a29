/**
 * Helpers to run the scripted stdio mock server (mock-servers/stdio-server.mjs) as a real child
 * process, with a recording of everything it received.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type ClientOptions, type McpClient, type StdioServerConfig } from '../../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MOCK_SERVER = path.join(root, 'mock-servers/stdio-server.mjs');
export const SCENARIOS = path.join(root, 'mock-servers/scenarios');

export interface MockHandle {
  config: StdioServerConfig;
  /** Every message the server received so far, in order. */
  received(): Array<{ id?: string | number; method?: string; params?: any; result?: any; error?: any }>;
}

/** The recording folders `mock` made (removed by `removeMockDirs`, after a file's last test). */
const dirs: string[] = [];

/** Removes the recording folders of the mocks made so far. */
export function removeMockDirs(): void {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** A server config for a named scenario file or an inline scenario object. */
export function mock(scenario: string | object = 'default', id = 'mock'): MockHandle {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-mock-'));
  dirs.push(dir);
  const record = path.join(dir, 'received.jsonl');
  const env: Record<string, string> = { MOCK_RECORD: record };
  const args = [MOCK_SERVER];
  if (typeof scenario === 'string') args.push(path.join(SCENARIOS, `${scenario}.json`));
  else env.MOCK_SCENARIO_JSON = JSON.stringify(scenario);
  return {
    config: { transport: 'stdio', id, command: process.execPath, args, env },
    received() {
      if (!fs.existsSync(record)) return [];
      return fs
        .readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
  };
}

const clients = new Set<McpClient>();

/** Connects to a mock (closed by `closeAll`). */
export async function connectMock(handle: MockHandle, options: ClientOptions = {}): Promise<McpClient> {
  const client = await connect(handle.config, { timeoutMs: 15_000, shutdown: { stdinCloseWaitMs: 500, sigtermWaitMs: 500 }, ...options });
  clients.add(client);
  return client;
}

export function track(client: McpClient): McpClient {
  clients.add(client);
  return client;
}

/** Closes every client and checks nothing is pending and no server process remains. */
export async function closeAll(): Promise<void> {
  const all = [...clients];
  clients.clear();
  await Promise.all(all.map((c) => c.close()));
  for (const c of all) {
    if (c.pendingCount !== 0) throw new Error(`client ${c.serverId} still has ${c.pendingCount} pending requests`);
    if (c.pid !== undefined && isAlive(c.pid)) throw new Error(`server process ${c.pid} is still alive after close`);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `cond` until true (generous bound for a loaded CI machine). */
export async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
