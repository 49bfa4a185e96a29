/**
 * Icons a server lists reach the embedder only when safe (src/mcp/icons.ts): `https:` or a
 * `data:` image; anything else is dropped and reported once per server. Against the scripted
 * stdio mock (mock-servers/stdio-server.mjs, scenario icons.json) in a real child process,
 * on the handshake era (2025-11-25).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSafeIconUri, McpClient, safeIcons, type McpClientDiagnostic, type StdioServerConfig } from '../../src/index.js';
import { closedAfterEach, LEGACY_SERVER } from '../support/recorded-mock.js';

const SCENARIO = path.join(path.dirname(LEGACY_SERVER), 'scenarios', 'icons.json');
const config: StdioServerConfig = { transport: 'stdio', id: 'icons', command: process.execPath, args: [LEGACY_SERVER, SCENARIO] };

const clients = closedAfterEach();

async function open(): Promise<{ client: McpClient; diagnostics: McpClientDiagnostic[] }> {
  const diagnostics: McpClientDiagnostic[] = [];
  const client = new McpClient(config, { timeoutMs: 15_000, protocolVersion: '2025-11-25' });
  clients.push(client);
  client.on('diagnostic', (d: McpClientDiagnostic) => diagnostics.push(d));
  await client.connect();
  return { client, diagnostics };
}

describe('isSafeIconUri', () => {
  it('basic#28: https and data: images are safe; javascript:, file:, ftp:, ws:, app schemes, http and credentials in the URL are not', () => {
    for (const ok of ['https://a.example/i.png', 'HTTPS://a.example/i.svg', 'data:image/png;base64,AAAA', 'data:image/svg+xml,<svg/>', 'data:IMAGE/WEBP;base64,AA']) expect(isSafeIconUri(ok), ok).toBe(true);
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'file:///etc/passwd',
      'ftp://a.example/i.png',
      'ws://a.example/s',
      'wss://a.example/s',
      'vscode://file/x.png',
      'http://a.example/i.png',
      'https://user:pw@a.example/i.png',
      'https:///nohost',
      'data:text/html;base64,PHNjcmlwdD4=',
      'data:image/png',
      '//a.example/i.png',
      'i.png',
      '',
      42,
      undefined,
    ]) expect(isSafeIconUri(bad), String(bad)).toBe(false);
  });

  it('basic#28: safeIcons keeps the safe ones in order and names only the schemes of the rest', () => {
    const r = safeIcons([{ src: 'file:///x' }, { src: 'https://a.example/1.png' }, 'https://a.example/2.png', { src: 'data:image/png;base64,AA' }, null]);
    expect(r.kept.map((i) => i.src)).toEqual(['https://a.example/1.png', 'data:image/png;base64,AA']);
    expect(r.dropped).toEqual(['file', '(no src)', '(no src)']);
  });
});

describe('icons from a real server (2025-11-25)', () => {
  it('basic#28: unsafe icon URIs of tools, resources, templates, prompts and serverInfo never reach the caller', async () => {
    const { client, diagnostics } = await open();
    expect(client.serverInfo?.icons?.map((i) => i.src)).toEqual(['https://icons.example.test/server.png']);
    const tools = await client.listTools();
    const painted = tools.find((t) => t.name === 'painted')!;
    expect(painted.icons?.map((i) => i.src)).toEqual(['https://icons.example.test/tool.png', 'data:image/png;base64,iVBORw0KGgo=']);
    expect(painted.icons?.[0]).toEqual({ src: 'https://icons.example.test/tool.png', mimeType: 'image/png', sizes: ['48x48'] });
    // a tool whose every icon is unsafe has none
    expect(tools.find((t) => t.name === 'bare')!).not.toHaveProperty('icons');
    expect((await client.listResources())[0]!.icons?.map((i) => i.src)).toEqual(['https://icons.example.test/r.png']);
    expect((await client.listResourceTemplates())[0]).not.toHaveProperty('icons');
    expect((await client.listPrompts())[0]!.icons?.map((i) => i.src)).toEqual(['data:image/svg+xml;base64,PHN2Zy8+']);
    // a resource_link in a tool's result is a Resource, icons included
    const called = await client.callTool('painted');
    expect(called.content[0]).toMatchObject({ type: 'resource_link', icons: [{ src: 'https://icons.example.test/link.png' }] });
    expect(JSON.stringify(called)).not.toContain('file:');

    // reported once per server, by scheme: never a URI (nor what one carries)
    const unsafe = diagnostics.filter((d) => d.code === 'MCPWIRE_UNSAFE_ICON');
    expect(unsafe).toHaveLength(1);
    expect(unsafe[0]!.serverId).toBe('icons');
    expect(unsafe[0]!.message).toContain('serverInfo');
    expect(unsafe[0]!.message).toContain('javascript');
    expect(unsafe[0]!.message).not.toMatch(/alert|cookie|secret-in-url|passwd|example\.test/);
  });
});
