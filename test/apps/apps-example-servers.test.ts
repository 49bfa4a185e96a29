/**
 * MCP Apps end to end: the extension's own example servers (npm, 2.0.3) rendered by `mcpwire app`
 * in headless Chromium through the double-iframe sandbox page (docs/apps.md's `mcpwire app` block: ran-by: test/apps/apps-example-servers.test.ts). Each view reaches
 * `ui/notifications/initialized` and receives its tool input and result; the views' own tool
 * calls (the time button, the system monitor's polling of its app-only tool) are answered through
 * the host; `ui/message` reaches the terminal; the host<->view lane is in the trace. Screenshots are
 * kept in the temporary directory printed on failure.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, runApp, viewFrame, viewText, type Browser, type Page } from '../support/app-browser.js';
import { node, root } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('mcpwire-apps-')();
const config = join(dir, 'config.json');
const example = (name: string) => ({ transport: 'stdio', command: node, args: [join(root, 'node_modules/@modelcontextprotocol', name, 'dist/index.js'), '--stdio'] });
writeFileSync(
  config,
  JSON.stringify({ version: 1, mcp: { servers: { vanilla: example('server-basic-vanillajs'), react: example('server-basic-react'), budget: example('server-budget-allocator'), sysmon: example('server-system-monitor') } } }),
);

interface Line {
  transport: string;
  dir?: string;
  kind?: string;
  method?: string;
  id?: unknown;
  msg?: { result?: Record<string, unknown>; error?: unknown; params?: Record<string, unknown> };
}
const viewLane = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.transport === 'app-view' && l.dir !== undefined);
// Bounded waits, generous for a loaded 2-core CI machine; nothing asserts how long anything took.
const until = async (what: () => Promise<boolean> | boolean, ms = 60_000, label = 'condition') => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error(`${label} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
};
/** The view's frame, once the page lists it. */
const frameOf = async (page: Page) => {
  await until(() => viewFrame(page) !== undefined, 60_000, 'the view frame listed');
  return viewFrame(page)!;
};

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** Runs `mcpwire app <target>`, opens the page, waits for initialized and the result. */
async function render(target: string) {
  const trace = join(dir, `${target}.jsonl`);
  // the view gets 90 s to initialize (the CLI's default is 30 s): React and the chart views load slowly on a busy machine
  const run = runApp([target, '--config', config, '--trace', trace, '--init-timeout-ms', '90000']);
  const page: Page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(await run.url);
  await run.waitErr('the view is initialized', 100_000);
  await run.waitErr('result sent to the view');
  await until(() => viewLane(trace).some((l) => l.method === 'ui/notifications/tool-result'), 60_000, 'tool-result in the trace');
  return { run, page, trace, errors };
}

async function finish(r: Awaited<ReturnType<typeof render>>, name: string) {
  const shot = join(dir, `${name}.png`);
  await r.page.screenshot({ path: shot });
  expect(statSync(shot).size).toBeGreaterThan(10_000); // a rendered view, not a blank page (also looked at by eye)
  r.run.child.kill('SIGINT');
  expect(await r.run.exited).toBe(130);
  await r.page.close();
  const lane = viewLane(r.trace);
  // The lifecycle in order; nothing sent to the view before it said initialized.
  const order = lane.map((l) => `${l.dir} ${l.kind === 'result' ? 'result of ' : ''}${l.method ?? ''}`);
  const initialized = order.indexOf('in ui/notifications/initialized');
  expect(initialized).toBeGreaterThan(order.indexOf('in ui/initialize'));
  expect(order.slice(0, initialized).filter((o) => o.startsWith('out ') && !o.startsWith('out result of ') && o !== 'out ui/notifications/sandbox-resource-ready')).toEqual([]);
  expect(order.indexOf('out ui/notifications/tool-input')).toBeGreaterThan(initialized);
  expect(order.indexOf('out ui/notifications/tool-result')).toBeGreaterThan(order.indexOf('out ui/notifications/tool-input'));
  expect(order).toContain('out ui/resource-teardown');
  return lane;
}

const answered = (lane: Line[], method: string, tool: string) => {
  const ids = lane.filter((l) => l.dir === 'in' && l.method === method && l.msg?.params?.name === tool).map((l) => l.id);
  return lane.filter((l) => l.dir === 'out' && l.kind === 'result' && ids.includes(l.id));
};

describe('mcpwire app renders the example app servers (headless Chromium)', () => {
  it('basic-vanillajs: input and result; its own get-time call answered through the host; ui/message on the terminal', { timeout: 300_000 }, async () => {
    const r = await render('vanilla.get-time');
    await viewText(r.page, (t) => /\d{4}-\d\d-\d\dT/.test(t));
    const frame = await frameOf(r.page);
    await frame.evaluate(`[...document.querySelectorAll('button')].find((b) => /server time/i.test(b.textContent)).click()`);
    await frame.evaluate(`[...document.querySelectorAll('button')].find((b) => /send message/i.test(b.textContent)).click()`);
    await r.run.waitErr('app message (user): This is message text.');
    await until(() => answered(viewLane(r.trace), 'tools/call', 'get-time').length > 0, 60_000, 'the answered get-time call');
    const lane = await finish(r, 'vanilla');
    expect(answered(lane, 'tools/call', 'get-time')[0].msg?.result?.structuredContent).toMatchObject({ time: expect.any(String) });
    // the ui/initialize answer: the host's context (tool info, theme, display mode, dimensions, locale, time zone, platform) and what it offers
    const initId = lane.find((l) => l.dir === 'in' && l.method === 'ui/initialize')?.id;
    const init = lane.find((l) => l.dir === 'out' && l.kind === 'result' && l.id === initId)?.msg?.result as Record<string, any>;
    expect(init.hostContext).toMatchObject({
      toolInfo: { tool: { name: 'get-time' } },
      theme: 'light',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      platform: 'web',
      locale: expect.any(String),
      timeZone: expect.any(String),
      containerDimensions: expect.any(Object),
    });
    expect(Object.keys(init.hostCapabilities).sort()).toEqual(['logging', 'message', 'openLinks', 'sandbox', 'serverResources', 'serverTools', 'updateModelContext']);
    expect(init.hostCapabilities.serverTools).toEqual({ listChanged: true });
    expect(r.errors).toEqual([]);
  });

  it('basic-react: initialized, input and result', { timeout: 300_000 }, async () => {
    const r = await render('react.get-time');
    await viewText(r.page, (t) => /\d{4}-\d\d-\d\dT/.test(t));
    await finish(r, 'react');
    expect(r.errors).toEqual([]);
  });

  it('budget-allocator: initialized, input and result (its chart drawn)', { timeout: 300_000 }, async () => {
    const r = await render('budget.get-budget-data');
    const frame = await frameOf(r.page);
    await until(async () => (await frame.evaluate<number>('document.querySelectorAll("canvas").length').catch(() => 0)) > 0, 60_000, 'the chart canvas');
    await finish(r, 'budget');
    expect(r.errors).toEqual([]);
  });

  it('system-monitor: its polling of the app-only poll-system-stats is answered through the host', { timeout: 300_000 }, async () => {
    const r = await render('sysmon.get-system-info');
    await frameOf(r.page); // it starts polling on its own
    await until(() => answered(viewLane(r.trace), 'tools/call', 'poll-system-stats').length >= 2, 60_000, 'two answered polls');
    const lane = await finish(r, 'sysmon');
    expect(answered(lane, 'tools/call', 'poll-system-stats')[0].msg?.result?.structuredContent).toMatchObject({ cpu: expect.anything() });
    expect(r.errors).toEqual([]);
  });
});
