/**
 * The demo server that ships with mcpwire (src/cli/demo-server): what `mcpwire demo` / `npm start`
 * connect to and what `mcpwire demo --server` serves. In process for the protocol, and as the
 * built CLI (dist/; `npm run build` first) for the command.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoServer } from '../../src/cli/demo-server/server.js';
import { connect } from '../../src/index.js';
import { cli, node, runCli } from '../support/cli-process.js';

function inProcess() {
  const sent: Array<Record<string, any>> = [];
  const server = createDemoServer((m) => sent.push(m as Record<string, any>));
  return { sent, handle: (m: object) => server.handle({ jsonrpc: '2.0', ...m }) };
}

async function initialized() {
  const s = inProcess();
  await s.handle({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await s.handle({ method: 'notifications/initialized' });
  s.sent.length = 0;
  return s;
}

describe('demo server', () => {
  it('negotiates the version asked for when it knows it, else offers 2025-11-25', async () => {
    const s = inProcess();
    const init = (id: number, protocolVersion: string) => s.handle({ id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await init(1, '2025-06-18');
    await init(2, '1999-01-01');
    expect(s.sent.map((m) => m.result.protocolVersion)).toEqual(['2025-06-18', '2025-11-25']);
    expect(s.sent[0].result.serverInfo.name).toBe('mcpwire-demo-server');
  });

  it('answers an unknown method with -32601, a request before initialize with -32600, an unknown tool or a cursor with -32602', async () => {
    const early = inProcess();
    await early.handle({ id: 1, method: 'server/discover' });
    await early.handle({ id: 2, method: 'tools/list' });
    await early.handle({ id: 3, method: 'ping' });
    expect(early.sent.map((m) => m.error?.code ?? 'ok')).toEqual([-32601, -32600, 'ok']);
    const s = await initialized();
    await s.handle({ id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    await s.handle({ id: 5, method: 'tools/list', params: { cursor: 'x' } });
    await s.handle({ id: 6, method: 'resources/read', params: {} });
    expect(s.sent.map((m) => m.error.code)).toEqual([-32602, -32602, -32602]);
  });

  it('sends progress with the request token, and a cancelled call gets no answer', async () => {
    const s = await initialized();
    await s.handle({ id: 1, method: 'tools/call', params: { name: 'progress', arguments: { steps: 2, intervalMs: 1 }, _meta: { progressToken: 'p1' } } });
    expect(s.sent.map((m) => m.method ?? m.result.content[0].text)).toEqual(['notifications/progress', 'notifications/progress', 'done 2 steps']);
    expect(s.sent[1].params).toEqual({ progressToken: 'p1', progress: 2, total: 2, message: 'step 2 of 2' });
    s.sent.length = 0;
    const call = s.handle({ id: 2, method: 'tools/call', params: { name: 'progress', arguments: { steps: 3, intervalMs: 60_000 } } });
    await s.handle({ method: 'notifications/cancelled', params: { requestId: 2 } });
    await call;
    expect(s.sent).toEqual([]);
  });

  it('serves tools, resources and prompts to the engine over stdio (its own process)', async () => {
    const client = await connect({ transport: 'stdio', id: 'demo', command: node, args: [path.join(path.dirname(cli), 'demo-server', 'main.js')] }, { timeoutMs: 20_000 });
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'add', 'progress', 'structured', 'weather']);
      expect((await client.callTool('structured', { text: 'ab' })).structuredContent).toEqual({ text: 'ab', length: 2, upper: 'AB' });
      expect((await client.readResource('mem://demo/readme')).contents[0]).toMatchObject({ text: 'This is the mcpwire demo server.' });
      const prompt = await client.getPrompt('summarize', { text: 'x' });
      expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Summarize: x' });
      const ac = new AbortController();
      const slow = client.callTool('progress', { steps: 2, intervalMs: 30_000 }, { signal: ac.signal });
      ac.abort();
      await expect(slow).rejects.toThrow();
      expect((await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('`mcpwire demo --server` is a server the CLI can call', async () => {
    const r = await runCli(['--stdio', `${node} ${cli} demo --server`, 'call', 'add', 'a=2', 'b=3']);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('5');
    expect(r.code).toBe(0);
  }, 30_000);

  it('`mcpwire check` finds no failure and no warning in it', async () => {
    const r = await runCli(['check', '--stdio', `${node} ${cli} demo --server`], { timeoutMs: 90_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\d+ passed, 0 failed, 0 warnings/m);
  }, 100_000);

  it('`mcpwire demo` runs against it: tools listed, a call with progress, exit 0', async () => {
    const r = await runCli(['demo']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^connected to mcpwire-demo-server 1\.0\.0 over stdio, protocol 2025-11-25/m);
    expect(r.stdout).toMatch(/^5 tools: echo, add, progress, structured, weather$/m);
    expect(r.stdout).toMatch(/^progress → done 5 steps \(\d+ progress updates/m);
  }, 30_000);
});
