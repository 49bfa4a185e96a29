/**
 * The names `mcpwire serve` gives the servers' tools and prompts (`--names`, `mcp.serve_names`):
 * `as-is` (a name two servers share offered as `<server>__<name>` for each, never shadowed),
 * `prefixed` (`<server>__<name>`), `host` (`mcp_<server>_<tool>_<hash>`); the default is `as-is`
 * with one server, `prefixed` with more. `tools/call`, `prompts/get` and completion refs map back
 * to the server's own names. Tool names stay within server.tools#7/#9 (1–128 of [A-Za-z0-9_.-]).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/host/index.js';
import { serveHttp, type NamingMode } from '../../src/serve-api.js';
import { assignNames } from '../../src/serve/names.js';
import { root } from '../support/tap-helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-serve-names-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const server = (scenario: string) => ({ transport: 'stdio', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs'), scenario] });
const demo = path.join(root, 'mock-servers/scenarios/demo.json');
// gamma shares `echo` and the prompt `summarize` with the demo server, and names a tool as the gateway's own status tool.
const gammaScenario = path.join(dir, 'gamma.json');
fs.writeFileSync(
  gammaScenario,
  JSON.stringify({
    serverInfo: { name: 'gamma', version: '1.0.0' },
    tools: [
      { name: 'echo', description: "gamma's echo", inputSchema: { type: 'object' }, result: { content: [{ type: 'text', text: 'from gamma' }] } },
      { name: 'mcpwire_status', description: 'a server tool named like the gateway’s', inputSchema: { type: 'object' }, result: { content: [{ type: 'text', text: 'gamma status' }] } },
      { name: 'lookup', description: 'only gamma', inputSchema: { type: 'object' }, result: { content: [{ type: 'text', text: 'looked up' }] } },
    ],
    prompts: [
      { name: 'summarize', description: "gamma's", arguments: [{ name: 'text', required: true, completions: ['gamma-one', 'gamma-two'] }], messages: [{ role: 'user', content: { type: 'text', text: 'gamma summarizes {{text}}' } }] },
      { name: 'brief', description: 'only gamma', messages: [{ role: 'user', content: { type: 'text', text: 'be brief' } }] },
    ],
    resourceTemplates: [{ uriTemplate: 'mem://gamma/{id}', name: 'note', mimeType: 'text/plain', text: 'note {id}', completions: { id: ['n1', 'n2'] } }],
  }),
);

function configFile(name: string, servers: Record<string, unknown>, mcp: Record<string, unknown> = {}): string {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 1, mcp: { ...mcp, servers } }));
  return file;
}

const NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;

async function withGateway<T>(file: string, names: NamingMode | undefined, fn: (client: Client, logs: string[]) => Promise<T>): Promise<T> {
  const logs: string[] = [];
  const gw = await serveHttp(await loadConfig({ globalPath: file }), { log: (l) => logs.push(l), ...(names !== undefined ? { names } : {}) });
  const client = new Client({ name: 'names-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    return await fn(client, logs);
  } finally {
    await client.close();
    await gw.close();
  }
}

const text = (r: unknown) => ((r as { content: { text?: string }[] }).content[0]?.text ?? '') as string;
const promptText = (r: unknown) => ((r as { messages: { content: { text?: string } }[] }).messages[0]?.content.text ?? '') as string;

describe('mcpwire serve --names', { timeout: 60_000 }, () => {
  it('default with one server: its own names for tools and prompts, calls and completion refs by them', async () => {
    await withGateway(configFile('one', { alpha: server(demo) }), undefined, async (client) => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'weather', 'mcpwire_status']));
      expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['summarize']);
      expect(promptText(await client.getPrompt({ name: 'summarize', arguments: { text: 'x' } }))).toBe('Summarize: x');
    });
  });

  it('as-is with two servers: a shared name is offered as <server>__<name> for each (logged, naming both), the rest as the servers name them; the old name is unknown', async () => {
    await withGateway(configFile('as-is', { alpha: server(demo), gamma: server(gammaScenario) }), 'as-is', async (client, logs) => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['alpha__echo', 'gamma__echo', 'add', 'weather', 'lookup', 'gamma__mcpwire_status', 'mcpwire_status']));
      expect(names).not.toContain('echo');
      for (const n of names) expect(n).toMatch(NAME_RULE);
      expect(new Set(names).size).toBe(names.length);
      expect(text(await client.callTool({ name: 'alpha__echo', arguments: { text: 'hi' } }))).toBe('hi');
      expect(text(await client.callTool({ name: 'gamma__echo', arguments: {} }))).toBe('from gamma');
      expect(text(await client.callTool({ name: 'lookup', arguments: {} }))).toBe('looked up');
      expect(text(await client.callTool({ name: 'gamma__mcpwire_status', arguments: {} }))).toBe('gamma status');
      // the gateway's own status tool stays the gateway's
      expect(text(await client.callTool({ name: 'mcpwire_status', arguments: {} }))).toContain('"servers"');
      await expect(client.callTool({ name: 'echo', arguments: { text: 'hi' } })).rejects.toThrow(/unknown tool "echo".*as-is/);
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
      expect(prompts).toEqual(['alpha__summarize', 'brief', 'gamma__summarize']);
      expect(promptText(await client.getPrompt({ name: 'gamma__summarize', arguments: { text: 'x' } }))).toBe('gamma summarizes x');
      expect(promptText(await client.getPrompt({ name: 'brief' }))).toBe('be brief');
      const done = await client.complete({ ref: { type: 'ref/prompt', name: 'gamma__summarize' }, argument: { name: 'text', value: 'gamma' } });
      expect(done.completion.values).toEqual(['gamma-one', 'gamma-two']);
      expect(logs.some((l) => /tool "echo" is offered by alpha and gamma: alpha as "alpha__echo", gamma as "gamma__echo"/.test(l))).toBe(true);
      expect(logs.some((l) => /prompt "summarize" is offered by alpha and gamma/.test(l))).toBe(true);
    });
  });

  it('as-is: a resource template alone keeps its name; two servers offering one are kept apart by name (logged), each read and completed by the URI', async () => {
    await withGateway(configFile('as-is-templates', { gamma: server(gammaScenario), zeta: server(gammaScenario) }), 'as-is', async (client, logs) => {
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => [t.name, t.uriTemplate]);
      expect(templates).toEqual([['gamma__note', 'mem://gamma/{id}'], ['zeta__note', 'mem://gamma/{id}']]);
      expect(logs.some((l) => /template "note" is offered by gamma and zeta: gamma as "gamma__note", zeta as "zeta__note"/.test(l))).toBe(true);
      const read = await client.readResource({ uri: 'mem://gamma/7' });
      expect(read.contents[0]).toMatchObject({ uri: 'mem://gamma/7', text: 'note 7' });
      expect((await client.complete({ ref: { type: 'ref/resource', uri: 'mem://gamma/{id}' }, argument: { name: 'id', value: 'n2' } })).completion.values).toEqual(['n2']);
    });
    await withGateway(configFile('as-is-one-template', { alpha: server(demo), gamma: server(gammaScenario) }), 'as-is', async (client) => {
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(['note']);
    });
  });

  it('prefixed (the default with two servers): <server>__<name> for every tool and prompt', async () => {
    await withGateway(configFile('prefixed', { alpha: server(demo), gamma: server(gammaScenario) }), undefined, async (client) => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['alpha__echo', 'alpha__add', 'gamma__echo', 'gamma__lookup', 'gamma__mcpwire_status', 'mcpwire_status']));
      expect(names.filter((n) => !n.includes('__')).sort()).toEqual(['mcp_result_read', 'mcpwire_status']);
      expect(text(await client.callTool({ name: 'alpha__add', arguments: { a: 2, b: 3 } }))).toBe('5');
      await expect(client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).rejects.toThrow(/unknown tool "add"/);
      expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['alpha__summarize', 'gamma__brief', 'gamma__summarize']);
      expect(promptText(await client.getPrompt({ name: 'alpha__summarize', arguments: { text: 'y' } }))).toBe('Summarize: y');
      // resource templates: named as prompts are; the uriTemplate stays the server's (completion refs and reads use it)
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => [t.name, t.uriTemplate])).toEqual([['gamma__note', 'mem://gamma/{id}']]);
      expect((await client.complete({ ref: { type: 'ref/resource', uri: 'mem://gamma/{id}' }, argument: { name: 'id', value: 'n' } })).completion.values).toEqual(['n1', 'n2']);
    });
  });

  it('host (also from the config’s mcp.serve_names): the host’s stable names, two servers’ echo apart by server id and hash', async () => {
    await withGateway(configFile('host', { alpha: server(demo), gamma: server(gammaScenario) }, { serve_names: 'host' }), undefined, async (client) => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      const echo = names.filter((n) => /^mcp_(alpha|gamma)_echo_[0-9a-f]{8}$/.test(n));
      expect(echo).toHaveLength(2);
      expect(text(await client.callTool({ name: echo.find((n) => n.startsWith('mcp_gamma'))!, arguments: {} }))).toBe('from gamma');
      expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['mcp_alpha_summarize', 'mcp_gamma_brief', 'mcp_gamma_summarize']);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(['mcp_gamma_note']);
    });
  });

  it('a prefixed name outside the spec’s rule, or one that would still collide, is the host’s name', () => {
    const t = assignNames('prefixed', [
      { server: 'a', name: 'b__c', hostName: 'mcp_a_b_c_00000001' },
      { server: 'a__b', name: 'c', hostName: 'mcp_a_b_c_00000002' },
      { server: 'srv', name: 'has space', hostName: 'mcp_srv_has_space_00000003' },
      { server: 'srv', name: 'x'.repeat(130), hostName: 'mcp_srv_xxx_00000004' },
      { server: 'srv', name: 'ok.v2', hostName: 'mcp_srv_ok_v2_00000005' },
    ]);
    expect(t.items.map((n) => n.gateway)).toEqual(['mcp_a_b_c_00000001', 'mcp_a_b_c_00000002', 'mcp_srv_has_space_00000003', 'mcp_srv_xxx_00000004', 'srv__ok.v2']);
  });

  it('--names takes only as-is, prefixed or host (exit 2 before anything starts)', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'dist/cli/main.js'), 'serve', '--names', 'short', '--config', configFile('cli', { alpha: server(demo) })], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--names: one of as-is, prefixed, host \(got "short"\)/);
  });

  it('status and errors name both sides: mcpwire_status lists each renamed tool, prompt and template with its server and own name; the host\'s text about a call of a renamed tool names the server\'s tool and what the client called', async () => {
    await withGateway(configFile('sides', { alpha: server(demo), gamma: server(gammaScenario) }), 'prefixed', async (client) => {
      await client.listPrompts();
      await client.listResourceTemplates();
      const status = (await client.callTool({ name: 'mcpwire_status', arguments: {} })).structuredContent as { names: { mode: string; renamed: unknown[] } };
      expect(status.names.mode).toBe('prefixed');
      expect(status.names.renamed).toEqual(
        expect.arrayContaining([
          { kind: 'tool', client: 'alpha__add', server: 'alpha', name: 'add' },
          { kind: 'tool', client: 'gamma__echo', server: 'gamma', name: 'echo' },
          { kind: 'prompt', client: 'gamma__brief', server: 'gamma', name: 'brief' },
          { kind: 'template', client: 'gamma__note', server: 'gamma', name: 'note' },
        ]),
      );
      // refused by the host before anything is sent (its arguments do not match the schema)
      const refused = await client.callTool({ name: 'alpha__add', arguments: { a: 'two' } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/MCP tool alpha\/add\b.*\(called as "alpha__add"\)$/s);
      // a tool's own answer is left as it is
      expect(text(await client.callTool({ name: 'alpha__add', arguments: { a: 2, b: 3 } }))).toBe('5');
    });
  });
});

