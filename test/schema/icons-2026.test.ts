// clauses: 2026-07-28 (the ids in this file's titles are that revision's numbering; scripts/clause-coverage.mjs)
/**
 * Icons on the 2026-07-28 wire (src/mcp/icons.ts): the serverInfo of `server/discover` (and of
 * every result's `_meta`) and the listings keep only https and data: image icons. Against the
 * scripted modern stdio mock (mock-servers/modern/stdio-server.mjs) serving the same scenario
 * file as the handshake-era test (mock-servers/scenarios/icons.json), in a real child process.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpClient, type McpClientDiagnostic, type StdioServerConfig } from '../../src/index.js';
import { closedAfterEach, LEGACY_SERVER, MODERN_SERVER } from '../support/recorded-mock.js';

const SCENARIO = path.join(path.dirname(LEGACY_SERVER), 'scenarios', 'icons.json');
const config: StdioServerConfig = { transport: 'stdio', id: 'icons-modern', command: process.execPath, args: [MODERN_SERVER, SCENARIO] };

const clients = closedAfterEach();

describe('icons from a real 2026-07-28 server', () => {
  it('basic#58: icon URIs with unsafe schemes are rejected in serverInfo, listings and tool results; one diagnostic names the schemes only', async () => {
    const diagnostics: McpClientDiagnostic[] = [];
    const client = new McpClient(config, { timeoutMs: 15_000 });
    clients.push(client);
    client.on('diagnostic', (d: McpClientDiagnostic) => diagnostics.push(d));
    await client.connect();
    expect(client.era).toBe('modern');
    expect(client.serverInfo?.icons?.map((i) => i.src)).toEqual(['https://icons.example.test/server.png']);

    const page = await client.listToolsPage();
    const painted = page.tools.find((t) => t.name === 'painted')!;
    expect(painted.icons?.map((i) => i.src)).toEqual(['https://icons.example.test/tool.png', 'data:image/png;base64,iVBORw0KGgo=']);
    expect(page.tools.find((t) => t.name === 'bare')!).not.toHaveProperty('icons');
    // the serverInfo a modern result carries in `_meta` is screened as well
    expect(JSON.stringify(page._meta ?? {})).not.toContain('javascript:');
    expect((await client.listResources())[0]!.icons?.map((i) => i.src)).toEqual(['https://icons.example.test/r.png']);
    expect((await client.listResourceTemplates())[0]).not.toHaveProperty('icons');
    expect((await client.listPrompts())[0]!.icons?.map((i) => i.src)).toEqual(['data:image/svg+xml;base64,PHN2Zy8+']);
    const called = await client.callTool('painted');
    expect(called.content[0]).toMatchObject({ type: 'resource_link', icons: [{ src: 'https://icons.example.test/link.png' }] });

    const unsafe = diagnostics.filter((d) => d.code === 'MCPWIRE_UNSAFE_ICON');
    expect(unsafe).toHaveLength(1);
    expect(unsafe[0]!.message).toContain('javascript');
    expect(unsafe[0]!.message).not.toMatch(/alert|cookie|example\.test/);
  });
});
