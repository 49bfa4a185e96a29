/**
 * `mcpwire app` and a view's `ui/open-link`: the link is shown on the terminal and opened only
 * when the person says yes. The built CLI runs on a pseudo-terminal (util-linux `script`), its
 * page in headless Chromium, and the scripted app server's probe view asks to open a link. The
 * browser opener is observed, not faked inside the CLI: a stand-in `xdg-open` first on PATH
 * writes the URL it was given to a file (the CLI starts the platform opener as it always does).
 * Yes: opened once, with that URL, and the view gets `{}`; no (Enter, the default): nothing
 * opened, the view gets `isError`; no terminal at all (pipes): never asked, never opened. And
 * without `--no-open` the same opener is started with the page's URL.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, runApp, viewText, type Browser, type Page } from '../support/app-browser.js';
import { cli, node, root } from '../support/cli-process.js';
import { hasScript, onPty, visible } from '../support/pty.js';
import { until } from '../support/until.js';
import { tempDirs } from '../support/temp-dirs.js';

const MOCK = join(root, 'mock-servers/apps/app-server.mjs');
const LINK = 'https://example.com/docs?from=probe';
const dir = tempDirs('mcpwire-apps-open-')();
const config = join(dir, 'config.json');
writeFileSync(config, JSON.stringify({ version: 1, mcp: { servers: { mock: { transport: 'stdio', command: node, args: [MOCK] } } } }));
const bin = join(dir, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nprintf \'%s\\n\' "$@" >> "$OPENED_FILE"\n');
chmodSync(join(bin, 'xdg-open'), 0o755);
const envFor = (opened: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, OPENED_FILE: opened, MCPWIRE_NO_DAEMON: '1', MCPWIRE_TRACE: '' };
  delete env.MCPWIRE_NO_BROWSER;
  return env;
};
const ARGS = ['app', 'mock.probe', 'action=open-link', '--no-open', '--config', config, '--init-timeout-ms', '90000'];

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** The probe's text once it finished its action (the view's frame may come late). */
const probeText = (page: Page) => viewText(page, (t) => t.includes('done open-link'));

/** `mcpwire app` on a pty: `answer` is typed at the `open it? [y/N]` question; ends with Ctrl-C once the view has its answer. */
async function onTerminal(answer: string, opened: string) {
  const child = spawn('script', ['-qec', onPty(ARGS, 200), '/dev/null'], { cwd: root, env: envFor(opened) });
  let out = '';
  let asked = false;
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 170_000);
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    if (!asked && /open it\? \[y\/N\] $/.test(visible(out))) {
      asked = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  const page = await browser.newPage();
  try {
    const url = await until('the page URL on the terminal', () => /(http:\/\/\S+\/h\/[\w-]+\/)/.exec(visible(out))?.[1], 60_000, 100);
    await page.goto(url);
    const text = await probeText(page);
    child.stdin.write('\u0003'); // Ctrl-C on the terminal
    const code = await exited;
    return { text, out: visible(out), code, asked };
  } finally {
    clearTimeout(killer);
    await page.close();
  }
}

describe('mcpwire app opens its page', () => {
  it('without --no-open the platform opener is started with the page URL (the one printed)', { timeout: 180_000 }, async () => {
    const opened = join(dir, 'opened-page.txt');
    const child = spawn(node, [cli, 'app', 'mock.probe', 'action=none', '--config', config], { cwd: root, env: envFor(opened), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await until('the page URL on stdout', () => (out.includes('\n') ? out.split('\n')[0] : undefined), 60_000, 100);
      await until('the opener to write its argument', () => existsSync(opened), 60_000);
      expect(readFileSync(opened, 'utf8')).toBe(`${url}\n`);
      expect(url).toMatch(/^http:\/\/localhost:\d+\/h\/[\w-]+\/$/);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(130);
  });
});

describe.skipIf(!hasScript)('mcpwire app: ui/open-link asks on the terminal', () => {
  it('yes: the link is shown, the opener is started once with it, the view hears it was opened', { timeout: 180_000 }, async () => {
    const opened = join(dir, 'opened-yes.txt');
    const r = await onTerminal('y', opened);
    expect(r.asked).toBe(true);
    expect(r.out).toContain(`the view asks to open ${LINK}`);
    await until('the opener to write its argument', () => existsSync(opened), 30_000);
    expect(readFileSync(opened, 'utf8')).toBe(`${LINK}\n`);
    expect(r.text).toMatch(/open-link: \{"jsonrpc":"2\.0","id":\d+,"result":\{\}\}/);
    expect(r.code, r.out).toBe(130);
  });

  it('no (Enter: the default is no): nothing is opened, the view hears it was not', { timeout: 180_000 }, async () => {
    const opened = join(dir, 'opened-no.txt');
    const r = await onTerminal('', opened);
    expect(r.asked).toBe(true);
    expect(r.out).toContain(`the view asks to open ${LINK}`);
    expect(r.text).toMatch(/open-link: \{"jsonrpc":"2\.0","id":\d+,"result":\{"isError":true\}\}/);
    expect(r.code, r.out).toBe(130);
    expect(existsSync(opened)).toBe(false);
  });

  it('no terminal (stdin and stderr are pipes): never asked, never opened', { timeout: 180_000 }, async () => {
    const opened = join(dir, 'opened-pipe.txt');
    const run = runApp(['mock.probe', 'action=open-link', '--config', config, '--init-timeout-ms', '90000'], envFor(opened));
    const page = await browser.newPage();
    try {
      await page.goto(await run.url);
      const text = await probeText(page);
      expect(text).toMatch(/open-link: \{"jsonrpc":"2\.0","id":\d+,"result":\{"isError":true\}\}/);
      expect(run.stderr()).toContain(`the view asks to open ${LINK}`);
      expect(run.stderr()).toContain('not opened (no terminal to confirm on)');
      expect(run.stderr()).not.toContain('open it?');
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(existsSync(opened)).toBe(false);
    } finally {
      await page.close();
    }
  });
});
