/**
 * Config mistakes in `permissions` and denied tools: an unknown field inside
 * `permissions` (e.g. `denied` for `deny`) is an error that disables the server, since a typo
 * there would silently allow calls; tools denied by config are hidden from the host's catalog
 * (and so from `mcpwire tools`), not only refused on call.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult, ServerCapabilities, Tool } from '../../../src/mcp/types.js';
import { adaptTools, createHost, publicToolName, type ConnectFn, type HostClient, type McpHost, type ResolvedServer } from '../../../src/host/index.js';
import { emptyNormalizedConfig } from '../../../src/host/config/types.js';
import { addServer, loadConfig, validateServerEntry } from '../../../src/host/config/index.js';

const tool = (name: string): Tool => ({ name, description: `${name} tool`, inputSchema: { type: 'object' } });

describe('unknown fields inside permissions are errors', () => {
  it('"denied" for "deny" makes the entry invalid, naming the field and the fix', () => {
    const v = validateServerEntry({ transport: 'stdio', command: 'x', permissions: { denied: ['rm'] } });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.issues).toEqual([{ field: 'permissions.denied', message: 'unknown field (did you mean "deny"?); "permissions" takes only "allow" and "deny"' }]);
    const w = validateServerEntry({ transport: 'stdio', command: 'x', permissions: { allowed: ['read'], other: 1 } });
    expect(!w.ok && w.issues.map((i) => i.field)).toEqual(['permissions.allowed', 'permissions.other']);
    expect(!w.ok && w.issues[0].message).toContain('did you mean "allow"?');
    expect(validateServerEntry({ transport: 'stdio', command: 'x', permissions: { allow: ['a'], deny: ['b'] } }).ok).toBe(true);
  });

  it('loading disables that server with an error diagnostic; mcp add refuses it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-perm-'));
    try {
      const file = path.join(dir, 'c.json');
      fs.writeFileSync(file, JSON.stringify({ mcp: { servers: { a: { transport: 'stdio', command: 'x', permissions: { denied: ['rm'] } }, b: { transport: 'stdio', command: 'y' } } } }));
      const { servers, diagnostics } = await loadConfig({ cwd: dir, homedir: dir, env: {}, globalPath: file, projectPath: path.join(dir, 'none.json') });
      expect(servers.find((s) => s.id === 'a')).toMatchObject({ enabled: false, error: expect.stringContaining('field "permissions.denied"') });
      expect(servers.find((s) => s.id === 'b')).toMatchObject({ enabled: true });
      expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', serverId: 'a', field: 'permissions.denied' })]);
      await expect(addServer(path.join(dir, 'w.json'), 'a', { transport: 'stdio', command: 'x', permissions: { denied: ['rm'] } })).rejects.toThrow(/permissions\.denied/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('denied tools are hidden from listings', () => {
  it('adaptTools leaves denied tools (globs too) out of tools but keeps their names for a refused call', () => {
    const tools = [tool('read'), tool('rm_all'), tool('rm_one'), tool('write')];
    const open = adaptTools([{ server: 'a', tools }]);
    const closed = adaptTools([{ server: 'a', tools, deny: ['rm_*'] }]);
    expect(closed.tools.map((t) => t.tool)).toEqual(['read', 'write']);
    // The remaining tools keep the names they have without the deny list.
    expect(closed.tools.map((t) => t.name)).toEqual(open.tools.filter((t) => !t.tool.startsWith('rm_')).map((t) => t.name));
    expect(closed.byName.get(publicToolName('a', 'rm_all'))?.tool.name).toBe('rm_all');
    expect(closed.diagnostics).toEqual([]);
  });

  class FakeClient extends EventEmitter implements HostClient {
    calls: string[] = [];
    serverInfo = { name: 'fake', version: '1.0.0' };
    instructions = '';
    transportKind = 'stdio';
    serverCapabilities: ServerCapabilities = { tools: {} };
    constructor(public tools: Tool[]) {
      super();
    }
    async listTools() {
      return this.tools;
    }
    async callTool(name: string): Promise<CallToolResult> {
      this.calls.push(name);
      return { content: [{ type: 'text', text: name }] };
    }
    async listResources() {
      return [];
    }
    async listResourceTemplates() {
      return [];
    }
    async readResource(uri: string) {
      return { contents: [{ uri, text: '' }] };
    }
    async listPrompts() {
      return [];
    }
    async getPrompt() {
      return { messages: [] };
    }
    async close() {}
  }

  let host: McpHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  it('the host lists and counts only allowed tools; a call to a denied tool by name is refused as config-deny', async () => {
    const client = new FakeClient([tool('read'), tool('delete_repo'), tool('write')]);
    const connect: ConnectFn = async () => client as never;
    const server: ResolvedServer = {
      id: 'a',
      source: 'global',
      file: '/g/config.json',
      enabled: true,
      transport: 'stdio',
      config: { ...emptyNormalizedConfig(), command: 'node', permissions: { allow: [], deny: ['delete_*'] } },
    };
    host = createHost([server], { connect, permission: 'allow' });
    await host.start();
    expect(host.tools().map((t) => t.tool)).toEqual(['read', 'write']);
    expect(host.status()[0].tools).toBe(2);
    const r = await host.callTool(publicToolName('a', 'delete_repo'), {});
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('config-deny');
    expect(client.calls).toEqual([]);
  });
});
