/**
 * The recorded stdio mock of the client tests: a mock server process (the scripted modern mock,
 * mock-servers/modern/stdio-server.mjs, or the handshake-era one, mock-servers/stdio-server.mjs)
 * whose MOCK_RECORD file holds every message it received and MOCK_RECORD_SENT every line it
 * wrote, read back as parsed messages; and the clients connected to it, closed after each test.
 * One place for the set-up the stdio clause tests and the era tests all need.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';
import { connect, type ClientOptions, type McpClient, type StdioServerConfig } from '../../src/index.js';
import type { Msg } from './modern-wire.js';

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
/** The scripted 2026-07-28 mock (also dual and legacy modes: its first argument). */
export const MODERN_SERVER = path.join(ROOT, 'mock-servers', 'modern', 'stdio-server.mjs');
/** The handshake-era mock (initialize first; refuses server/discover). */
export const LEGACY_SERVER = path.join(ROOT, 'mock-servers', 'stdio-server.mjs');

export { CAPS, INFO, LEVEL, V, type Msg } from './modern-wire.js';

/** The messages of a JSON-lines recording; none while the file does not exist yet. */
export function jsonLines(file: string): Msg[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Msg) : [];
}

export interface MockOptions {
  /** The mock's script (default: the modern mock). */
  script?: string;
  /** A scenario object (MOCK_SCENARIO_JSON) or a named scenario / mode (the script's argument). */
  scenario?: object | string;
  /** The server id in the config (default `modern`). */
  id?: string;
  /** Also record what the mock wrote (MOCK_RECORD_SENT), for `sent()`. */
  recordSent?: boolean;
}

export interface RecordedMock {
  config: StdioServerConfig;
  /** Every message the mock received so far. */
  received(): Msg[];
  /** Every message the mock wrote so far (with `recordSent`; else none). */
  sent(): Msg[];
}

export interface RecordedMocks {
  /** The test file's temporary folder (removed after all its tests). */
  dir: string;
  /** A fresh path in `dir` (`<stem>-<n>.jsonl`), for a file's own recordings. */
  file(stem: string): string;
  /** A mock's config and its recordings. */
  mock(options?: MockOptions): RecordedMock;
  /** Connects with `defaults` then `options`; the client is closed after the test. */
  open(config: StdioServerConfig, options?: ClientOptions): Promise<McpClient>;
  /** The clients still open (closed after each test): push one connected otherwise to have it closed too. */
  clients: McpClient[];
}

/** The clients a test opened (push each): closed after each test. */
export function closedAfterEach(): McpClient[] {
  const clients: McpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  return clients;
}

/**
 * Registers the hooks of a test file (its temporary folder removed after all, its clients closed
 * after each test) and returns the mock and connect helpers. `defaults` go to every `open`.
 */
export function recordedMocks(prefix: string, defaults: ClientOptions = {}): RecordedMocks {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const clients = closedAfterEach();
  let n = 0;
  const file = (stem: string) => path.join(dir, `${stem}-${++n}.jsonl`);
  const mock = (options: MockOptions = {}): RecordedMock => {
    const record = file('in');
    const recordSent = path.join(dir, `out-${n}.jsonl`);
    const env: Record<string, string> = { MOCK_RECORD: record };
    if (options.recordSent) env.MOCK_RECORD_SENT = recordSent;
    const args = [options.script ?? MODERN_SERVER];
    if (typeof options.scenario === 'string') args.push(options.scenario);
    else if (options.scenario !== undefined) env.MOCK_SCENARIO_JSON = JSON.stringify(options.scenario);
    return {
      config: { transport: 'stdio', id: options.id ?? 'modern', command: process.execPath, args, env },
      received: () => jsonLines(record),
      sent: () => jsonLines(recordSent),
    };
  };
  const open = async (config: StdioServerConfig, options: ClientOptions = {}): Promise<McpClient> => {
    const c = await connect(config, { timeoutMs: 15_000, ...defaults, ...options });
    clients.push(c);
    return c;
  };
  return { dir, file, mock, open, clients };
}
