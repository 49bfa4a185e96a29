/**
 * `mcpwire app … --no-open` as a child process, and its page in headless Chromium (the Chromium of
 * test/support/chromium.ts, driven by playwright-core as the trace-html tests do).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { resolveChromium } from './chromium.js';
import { cli, node, root } from './cli-process.js';

export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Frame {
  url(): string;
  evaluate<T>(expression: string): Promise<T>;
}
export interface Page {
  on(event: 'console', cb: (m: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', cb: (e: Error) => void): void;
  goto(url: string): Promise<unknown>;
  frames(): Frame[];
  screenshot(o: { path: string; fullPage?: boolean }): Promise<unknown>;
  close(): Promise<void>;
  setDefaultTimeout(ms: number): void;
  setDefaultNavigationTimeout(ms: number): void;
}
export interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Launches headless Chromium; its pages wait up to 90 s for what playwright waits on. */
export async function launchBrowser(): Promise<Browser> {
  const exe = await resolveChromium();
  const mod = 'playwright-core';
  const { chromium } = (await import(mod)) as { chromium: { launch(o: object): Promise<Browser> } };
  const browser = await chromium.launch({ executablePath: exe.executablePath, headless: true, args: ARGS });
  return {
    // playwright's own waits (navigation, screenshots, evaluate) get 90 s, not its 30 s default: a loaded CI machine is slow
    async newPage() {
      const page = await browser.newPage();
      page.setDefaultTimeout(90_000);
      page.setDefaultNavigationTimeout(90_000);
      return page;
    },
    close: () => browser.close(),
  };
}

/** A running `mcpwire app`: its URL (first stdout line), its stderr so far, its exit. */
export interface AppRun {
  child: ChildProcess;
  url: Promise<string>;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves when stderr contains `text` (rejects after `ms`, default 60 s: a loaded CI machine starts servers and Chromium slowly). */
  waitErr(text: string | RegExp, ms?: number): Promise<void>;
}

export function runApp(args: string[], env: NodeJS.ProcessEnv = process.env): AppRun {
  const child = spawn(node, [cli, 'app', ...args, '--no-open'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // A test that fails or times out before the command ends must not leave it (and its server) running.
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let err = '';
  let out = '';
  const waiters: (() => void)[] = [];
  child.stderr!.on('data', (d) => {
    err += String(d);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(line.trim());
    });
    void exited.then((code) => reject(new Error(`mcpwire app exited (${code}) before printing a URL: ${err}`)));
  });
  url.catch(() => {});
  const waitErr = (text: string | RegExp, ms = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const has = () => (typeof text === 'string' ? err.includes(text) : text.test(err));
      const timer = setTimeout(() => reject(new Error(`no ${String(text)} on stderr within ${ms} ms:\n${err}`)), ms);
      const check = () => {
        if (has()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { child, url, stderr: () => err, exited, waitErr };
}

/** The view's frame (the srcdoc iframe inside the sandbox proxy). */
export function viewFrame(page: Page): Frame | undefined {
  return page.frames().find((f) => f.url() === 'about:srcdoc');
}

/**
 * The view's text once `done(text)` holds: the frame may not be listed yet (or may be navigating)
 * when the host reports the view initialized, so it is read again until then; bounded (`ms`),
 * with the last text in the error.
 */
export async function viewText(page: Page, done: (text: string) => boolean, ms = 60_000): Promise<string> {
  const end = Date.now() + ms;
  let text = '';
  for (;;) {
    text = (await viewFrame(page)?.evaluate<string>('document.body.innerText').catch(() => '')) ?? '';
    if (done(text)) return text;
    if (Date.now() > end) throw new Error(`the view's text never got there within ${ms} ms; last seen: ${JSON.stringify(text.slice(0, 300))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
