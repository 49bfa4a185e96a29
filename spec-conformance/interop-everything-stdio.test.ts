/**
 * Interop with the reference server `@modelcontextprotocol/server-everything` over stdio
 * (a real child process): every tool listed, echo, a long-running tool's progress, a resource,
 * a prompt, and a clean shutdown with no process left behind.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type McpClient, type ProgressParams } from '../src/index.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let client: McpClient;
let pid: number | undefined;

beforeAll(async () => {
  client = await connect(
    { transport: 'stdio', id: 'everything', command: process.execPath, args: [everything, 'stdio'] },
    { timeoutMs: 20_000 },
  );
  pid = client.pid;
});

afterAll(async () => {
  await client?.close();
  expect(client.pendingCount).toBe(0);
  expect(pid).toBeTypeOf('number');
  expect(() => process.kill(pid!, 0)).toThrow();
});

describe('interop: server-everything over stdio', () => {
  it('basic.lifecycle#2/#4: initializes, negotiates 2025-11-25 and reaches ready', () => {
    expect(client.state).toBe('ready');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo?.name).toBeTruthy();
    expect(client.serverCapabilities?.tools).toBeDefined();
    expect(client.transportKind).toBe('stdio');
  });

  it('server.tools: lists every tool (following nextCursor) and calls echo', async () => {
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(new Set(names).size).toBe(names.length);
    for (const t of tools) expect(t.inputSchema?.type).toBe('object');
    const r = await client.callTool('echo', { message: 'interop' });
    expect(r.isError).toBeFalsy();
    expect(r.content[0]).toEqual({ type: 'text', text: 'Echo: interop' });
  });

  it('basic.utilities.progress#3: a long-running tool reports increasing progress', async () => {
    const seen: ProgressParams[] = [];
    const r = await client.callTool('trigger-long-running-operation', { duration: 1, steps: 3 }, { onProgress: (p) => seen.push(p) });
    expect(r.isError).toBeFalsy();
    expect(seen.length).toBe(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
    expect(seen[0].total).toBe(3);
  });

  it('server.tools#15: structured content is validated against the outputSchema', async () => {
    const tools = await client.listTools();
    const structured = tools.find((t) => t.outputSchema !== undefined);
    expect(structured).toBeDefined();
    const r = await client.callTool('get-structured-content', { location: 'New York' });
    expect(r.structuredContent).toBeDefined();
  });

  it('server.resources: lists resources and reads one', async () => {
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await client.readResource(resources[0].uri);
    expect(read.contents.length).toBeGreaterThan(0);
    expect(read.contents[0].uri).toBe(resources[0].uri);
    const templates = await client.listResourceTemplates();
    expect(Array.isArray(templates)).toBe(true);
  });

  it('server.prompts: lists prompts and gets one with arguments', async () => {
    const prompts = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('simple-prompt');
    const p = await client.getPrompt('simple-prompt');
    expect(p.messages.length).toBeGreaterThan(0);
    const withArgs = prompts.find((x) => x.name === 'args-prompt');
    if (withArgs) {
      const a = await client.getPrompt('args-prompt', { city: 'Tokyo', state: 'Kanto' });
      expect(JSON.stringify(a.messages)).toContain('Tokyo');
    }
  });

  it('basic.utilities.ping#1: ping gets an empty response', async () => {
    await expect(client.ping()).resolves.toBeUndefined();
  });
});
