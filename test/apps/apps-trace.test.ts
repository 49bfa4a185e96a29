/**
 * The host<->view lane of an MCP App in a trace: every message in both directions, on a lane of
 * its own (server `<id>:view`, transport `app-view`), with the server's configured secrets and
 * credential-named values redacted as in server traffic; `trace show` and `trace html` show it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppBridgeHost, type ViewServerLink } from '../../src/apps/index.js';
import { createTracer } from '../../src/index.js';
import { runCli } from '../support/cli-process.js';

// a configured secret shaped like no credential: only the server's secret list catches it
const SECRET = 'orchid-lantern-velvet-harbour';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the view lane of a trace', () => {
  it('records both directions on its own lane, secrets redacted', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpwire-apps-trace-'));
    dirs.push(dir);
    const file = join(dir, 'view.jsonl');
    const tracer = await createTracer({ file, serverId: 'srv:view', transport: 'app-view', secrets: [SECRET] });
    let listener: ((m: unknown) => void) | undefined;
    const toView: unknown[] = [];
    const server: ViewServerLink = {
      server: 'srv',
      // the tool's answer carries the configured secret: the trace must not
      callTool: async () => ({ content: [{ type: 'text', text: `token is ${SECRET}` }], isError: false }),
      listTools: async () => [],
      readResource: async (uri) => ({ contents: [{ uri, text: 'x' }] }),
      listResources: async () => [],
      listResourceTemplates: async () => [],
      listPrompts: async () => [],
    };
    const b = new AppBridgeHost({
      channel: { post: (m) => toView.push(m), onMessage: (l) => ((listener = l), () => (listener = undefined)) },
      server,
      hostInfo: { name: 'mcpwire', version: '0' },
      on: { message: () => true },
      observer: tracer,
    }).start();
    listener!({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'v', version: '1' }, appCapabilities: {} } });
    listener!({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    await b.initialized;
    listener!({ jsonrpc: '2.0', id: 2, method: 'ui/message', params: { role: 'user', content: [{ type: 'text', text: `mine: ${SECRET}` }] } });
    listener!({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'login', arguments: { user: 'ann', password: 'hunter2-hunter2' } } });
    for (let i = 0; i < 20 && !toView.some((m) => (m as { id?: unknown }).id === 3); i++) await tick();
    expect(toView.some((m) => (m as { id?: unknown }).id === 3)).toBe(true);
    await b.teardown();
    await tracer.close();

    const text = readFileSync(file, 'utf8');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const messages = lines.filter((l) => l.dir !== undefined);
    expect(messages.length).toBeGreaterThanOrEqual(6);
    for (const l of messages) {
      expect(l.server).toBe('srv:view');
      expect(l.transport).toBe('app-view');
    }
    const methods = messages.map((l) => l.msg?.method).filter(Boolean);
    expect(methods).toEqual(expect.arrayContaining(['ui/initialize', 'ui/notifications/initialized', 'ui/message', 'tools/call']));
    expect(new Set(messages.map((l) => l.dir)).size).toBe(2); // both directions
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('hunter2-hunter2');
    expect(text).toContain('[redacted]');

    // `trace show` and `trace html` show the lane as its own server label, redacted
    const show = await runCli(['trace', 'show', file, '--no-color']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/srv:view\s+← request\s+ui\/initialize/);
    expect(show.stdout).toMatch(/srv:view\s+→ result\s+ui\/initialize/);
    expect(show.stdout).toMatch(/srv:view\s+← request\s+tools\/call/);
    const html = await runCli(['trace', 'html', file, '-o', '-']);
    expect(html.code, html.stderr).toBe(0);
    expect(html.stdout).toContain('srv:view');
    expect(html.stdout).toContain('ui/notifications/initialized');
    for (const out of [show.stdout, html.stdout]) {
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain('hunter2-hunter2');
    }
  });
});
