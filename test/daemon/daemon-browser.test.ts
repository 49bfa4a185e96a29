/**
 * A real browser MCP server (Playwright MCP, the `@playwright/mcp` devDependency) driven step by
 * step through `mcpwire daemon`, with the built CLI (`npm run build` first) in a sandbox of its
 * own (temp HOME, XDG_RUNTIME_DIR, global config): one `call` navigates to a page served on
 * 127.0.0.1, the NEXT `call` (another process) reads the page's text from the browser — the
 * browser lived in the daemon between them — and `daemon stop` leaves no Chromium behind.
 *
 * The Chromium is the one test/support/chromium.ts finds (a system one on PATH, else the one
 * shipped in the `@sparticuz/chromium` devDependency), so `npm ci` alone is enough. Headless,
 * no sandbox, no background networking: only loopback is reached. Timeouts are generous: a
 * browser starting on two busy cores takes seconds.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { killAll, node, root, until, type CliRun } from '../support/cli-process.js';
import { resolveChromium } from '../support/chromium.js';

const PLAYWRIGHT_MCP = path.join(root, 'node_modules/@playwright/mcp/cli.js');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
const PAGE = '<!doctype html><html><head><title>Daemon page</title></head><body><h1>Kept alive by the daemon</h1><p id="n">forty-two</p></body></html>';
const CALL_MS = 180_000;

let dir: string;
let env: NodeJS.ProcessEnv;
let page: http.Server;
let pageUrl: string;
let hits = 0;
const pids: number[] = [];

/** Processes whose command line names `marker` (Linux: /proc), other than this one. */
function processesWith(marker: string): number[] {
  if (!fs.existsSync('/proc/self/cmdline')) return [];
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

const mcpwire = (args: string[]): Promise<CliRun> => runCliHere(args, { cwd: dir, env, timeoutMs: CALL_MS });

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-daemon-browser-')));
  const home = path.join(dir, 'home');
  const runtime = path.join(dir, 'run');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(runtime, { mode: 0o700 });
  const chromium = await resolveChromium();
  // The profile lives in the sandbox, so its path on a command line marks this test's Chromium.
  const profile = path.join(dir, 'profile');
  const pwConfig = path.join(dir, 'playwright-mcp.json');
  fs.writeFileSync(
    pwConfig,
    JSON.stringify({
      browser: { browserName: 'chromium', userDataDir: profile, launchOptions: { executablePath: chromium.executablePath, headless: true, chromiumSandbox: false, args: ARGS } },
      outputDir: path.join(dir, 'output'),
    }),
  );
  const config = path.join(dir, 'config.json');
  const browser = { transport: 'stdio', command: node, args: [PLAYWRIGHT_MCP, '--config', pwConfig], cwd: dir, request_timeout_ms: CALL_MS };
  fs.writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { browser } } }));
  env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'), MCPWIRE_CONFIG_PATH: config, MCPWIRE_TRACE: '', MCPWIRE_COLUMNS: '', MCPWIRE_NO_DAEMON: '', MCPWIRE_DAEMON_IDLE_MS: '' };
  page = http.createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/page.html`;
}, CALL_MS);

afterAll(async () => {
  await mcpwire(['daemon', 'stop']);
  killAll([...pids, ...processesWith(dir)]);
  await new Promise<void>((resolve) => page.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
}, CALL_MS);

describe('a browser MCP server step by step through the daemon', () => {
  it('navigate in one command, read the page in the next: the browser lives in the daemon; daemon stop reaps it', async () => {
    const start = await mcpwire(['daemon', 'start', 'browser']);
    expect(start.stderr).toBe('');
    expect(start.code).toBe(0);
    const status = JSON.parse((await mcpwire(['daemon', 'status', '--json'])).stdout) as { pid: number; servers: { id: string; state: string; pid?: number }[] };
    pids.push(status.pid, ...status.servers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
    expect(status.servers.map((s) => [s.id, s.state])).toEqual([['browser', 'ready']]);

    const nav = await mcpwire(['call', 'browser', 'browser_navigate', `url=${pageUrl}`]);
    expect(nav.stderr).toMatch(/^mcpwire \(via daemon, pid \d+; --no-daemon to bypass\)\n/);
    expect(nav.code).toBe(0);
    expect(nav.stdout).toContain(`Page URL: ${pageUrl}`);
    expect(hits).toBe(1);
    const browsers = processesWith(path.join(dir, 'profile'));
    expect(browsers.length).toBeGreaterThan(0);

    // Another process: it can only see the page if the browser stayed up in the daemon.
    const snap = await mcpwire(['call', 'browser', 'browser_snapshot']);
    expect(snap.code).toBe(0);
    expect(snap.stdout).toContain('Kept alive by the daemon');
    expect(snap.stdout).toContain('forty-two');
    expect(snap.stdout).toContain('Page Title: Daemon page');
    expect(hits).toBe(1); // read from the open page, not loaded again

    const stop = await mcpwire(['daemon', 'stop']);
    expect(stop.code).toBe(0);
    expect(await until(() => processesWith(path.join(dir, 'profile')).length === 0, 30_000)).toBe(true);
  }, 6 * CALL_MS);
});
