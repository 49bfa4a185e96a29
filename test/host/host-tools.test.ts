/**
 * The tool adapter: public names (charset, length, stability, collisions), origin
 * descriptions, input schema checks with fallback and size cap, result bounding with markers,
 * and the four host tools for resources and prompts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '../../src/mcp/types.js';
import {
  adaptTools,
  assignToolNames,
  boundToolResult,
  FALLBACK_PARAMETERS,
  HOST_TOOL_NAMES,
  hostToolDefinitions,
  isHostToolName,
  MAX_TOOL_NAME_LENGTH,
  parseHostToolArgs,
  promptGetResult,
  promptsListResult,
  publicToolName,
  resourceReadResult,
  resourcesListResult,
  toolNameHash,
  toolParameters,
  toolSlug,
} from '../../src/host/tools.js';

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, inputSchema: { type: 'object' }, ...extra });
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

describe('public tool names', () => {
  it('is mcp_<server>_<slug>_<hash8> with hash8 = sha256(server \\0 name)[0..8]', () => {
    const h = createHash('sha256').update('fs\0read_file').digest('hex').slice(0, 8);
    expect(toolNameHash('fs', 'read_file')).toBe(h);
    expect(publicToolName('fs', 'read_file')).toBe(`mcp_fs_read_file_${h}`);
    // a fixed value: names must not change between releases or restarts
    expect(publicToolName('github', 'create_issue')).toBe(`mcp_github_create_issue_${createHash('sha256').update('github\0create_issue').digest('hex').slice(0, 8)}`);
  });

  it('slugs keep only [a-zA-Z0-9_-]', () => {
    expect(toolSlug('admin.tools.list')).toBe('admin_tools_list');
    expect(toolSlug('héllo wörld!!')).toBe('h_llo_w_rld');
    expect(toolSlug('...')).toBe('tool');
    for (const n of ['a b', 'x/y\\z', '日本語', '💥', '', 'a'.repeat(500), 'DATA_EXPORT_v2']) {
      expect(publicToolName('srv', n)).toMatch(NAME_RE);
    }
  });

  it('never exceeds 64 characters; truncates the slug (then the id), never the hash', () => {
    const longId = 'i'.repeat(64);
    const longTool = 't'.repeat(200);
    for (const [id, name] of [['s', longTool], [longId, 'x'], [longId, longTool], ['a'.repeat(30), 'b'.repeat(30)]] as const) {
      const n = publicToolName(id, name);
      expect(n.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
      expect(n).toMatch(NAME_RE);
      expect(n.endsWith(`_${toolNameHash(id, name)}`)).toBe(true);
    }
    expect(publicToolName('s', longTool)).toHaveLength(64);
    expect(publicToolName(longId, longTool)).toBe(`mcp_${'i'.repeat(34)}_${'t'.repeat(16)}_${toolNameHash(longId, longTool)}`);
  });

  it('tools whose slugs are equal still get different names', () => {
    expect(publicToolName('s', 'a.b')).not.toBe(publicToolName('s', 'a_b'));
    expect(publicToolName('s', 'x'.repeat(100) + '1')).not.toBe(publicToolName('s', 'x'.repeat(100) + '2'));
  });

  it('collisions are resolved deterministically, whatever the input order (forced with a colliding hash)', () => {
    // Every counter-0 input hashes to the same value: all base names of server "s" collide.
    const colliding = (input: string) => (input.split('\0').length === 2 ? '00000000' : createHash('sha256').update(input).digest('hex'));
    const reqs = [{ serverId: 's', toolName: 'b' }, { serverId: 's', toolName: 'a' }, { serverId: 's', toolName: 'a.' }];
    const one = assignToolNames(reqs, [], colliding);
    const two = assignToolNames([...reqs].reverse(), [], colliding);
    const names = (m: Map<{ serverId: string; toolName: string }, string>) =>
      Object.fromEntries([...m].map(([r, n]) => [r.toolName, n]));
    expect(names(one)).toEqual(names(two));
    expect(new Set(Object.values(names(one))).size).toBe(3);
    expect(names(one).a).toBe('mcp_s_a_00000000'); // first in (server, name) order keeps the base name
    expect(names(one)['a.']).toBe(`mcp_s_a_${toolNameHash('s', 'a.', 1)}`); // next one re-hashed with counter 1
    expect(names(one).b).toBe('mcp_s_b_00000000'); // different slug: no collision
  });

  it('a colliding catalog stays collision-free and reverse-resolvable', () => {
    const colliding = (input: string) => (input.split('\0').length === 2 ? 'deadbeef' : createHash('sha256').update(input).digest('hex'));
    const catalog = adaptTools([{ server: 's', tools: [tool('x.y'), tool('x_y'), tool('x-y')] }], { hash: colliding });
    // x.y and x_y share slug "x_y" and hash: the second is extended
    expect(new Set(catalog.tools.map((t) => t.name)).size).toBe(3);
    for (const t of catalog.tools) expect(catalog.byName.get(t.name)!.tool.name).toBe(t.tool);
  });

  it('stable across rebuilds and independent of list order', () => {
    const tools = [tool('b'), tool('a'), tool('c')];
    const one = adaptTools([{ server: 's1', tools }, { server: 's0', tools: [tool('z')] }]);
    const two = adaptTools([{ server: 's0', tools: [tool('z')] }, { server: 's1', tools: [...tools].reverse() }]);
    expect(one.tools.map((t) => t.name)).toEqual(two.tools.map((t) => t.name));
    expect(one.tools.map((t) => `${t.server}/${t.tool}`)).toEqual(['s0/z', 's1/a', 's1/b', 's1/c']);
  });

  it('never takes a host tool name or a reserved name', () => {
    const hash = (input: string) => (input.split('\0').length === 2 ? '0'.repeat(64) : createHash('sha256').update(input).digest('hex'));
    const catalog = adaptTools([{ server: 's', tools: [tool('t')] }], { hash, reservedNames: ['mcp_s_t_00000000'] });
    expect(catalog.tools[0].name).toBe(`mcp_s_t_${toolNameHash('s', 't', 1)}`);
    expect(Object.values(HOST_TOOL_NAMES).every((n) => isHostToolName(n))).toBe(true);
  });
});

describe('adaptTools', () => {
  it('builds name, origin description, parameters, reverse lookup', () => {
    const t = tool('read_file', { description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } });
    const { tools, byName, diagnostics } = adaptTools([{ server: 'fs', tools: [t] }]);
    expect(diagnostics).toEqual([]);
    expect(tools).toEqual([
      { name: publicToolName('fs', 'read_file'), description: 'MCP fs/read_file\nReads a file.', parameters: t.inputSchema, server: 'fs', tool: 'read_file' },
    ]);
    expect(byName.get(tools[0].name)).toEqual({ server: 'fs', tool: t });
    expect(tools[0].parameters).not.toBe(t.inputSchema); // a copy: the server's object is not shared
  });

  it('description: control characters and bidi overrides stripped, capped, title shown', () => {
    const t = tool('x', { title: 'Nice\u0007 Title', description: `ok\u0000\u001b[31mred\u202eevil\u200b\n\n\n\nmore ${'y'.repeat(5000)}` });
    const [a] = adaptTools([{ server: 's', tools: [t] }], { maxDescriptionChars: 100 }).tools;
    expect(a.description.startsWith('MCP s/x (Nice Title)\nok[31mredevil\n\nmore ')).toBe(true);
    expect(a.description).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e\u200b]/);
    expect(a.description.length).toBeLessThanOrEqual('MCP s/x (Nice Title)\n'.length + 100);
    expect(a.description.endsWith('…')).toBe(true);
  });

  it('annotations: only well-typed known fields are kept', () => {
    const t = tool('x', { annotations: { readOnlyHint: true, destructiveHint: 'yes' as unknown as boolean, title: 'T\u0000', evil: 1 } as never });
    expect(adaptTools([{ server: 's', tools: [t] }]).tools[0].annotations).toEqual({ readOnlyHint: true, title: 'T' });
  });

  it('duplicate tool names of one server: the first is exposed, with a diagnostic', () => {
    const { tools, diagnostics } = adaptTools([{ server: 's', tools: [tool('a', { description: 'first' }), tool('a', { description: 'second' }), { inputSchema: {} } as Tool] }]);
    expect(tools.map((t) => t.description)).toEqual(['MCP s/a\nfirst']);
    expect(diagnostics.map((d) => d.code)).toEqual(['duplicate_tool', 'invalid_tool']);
  });

  it('an invalid schema falls back to {type:object, additionalProperties:true} with a diagnostic', () => {
    const bad: unknown[] = [undefined, null, [], 'x', { type: 'string' }, { properties: {} }, { type: 'object', properties: { a: { type: 'strin' } } }, { type: 'object', properties: { a: { $ref: '#/nope' } } }];
    const tools = bad.map((s, i) => ({ name: `t${i}`, inputSchema: s }) as Tool);
    const catalog = adaptTools([{ server: 's', tools }]);
    expect(catalog.tools).toHaveLength(bad.length);
    for (const t of catalog.tools) expect(t.parameters).toEqual(FALLBACK_PARAMETERS);
    expect(catalog.diagnostics).toHaveLength(bad.length);
    expect(catalog.diagnostics.every((d) => d.code === 'schema_invalid' && d.exposed)).toBe(true);
  });

  it('an oversized schema: fallback by default, omitted with oversizedSchema: "omit"', () => {
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(250) }])) };
    expect(bytes(big)).toBeGreaterThan(64 * 1024);
    const tools = [tool('big', { inputSchema: big as Tool['inputSchema'] }), tool('small')];
    const dflt = adaptTools([{ server: 's', tools }]);
    expect(dflt.tools.find((t) => t.tool === 'big')!.parameters).toEqual(FALLBACK_PARAMETERS);
    expect(dflt.diagnostics).toEqual([expect.objectContaining({ code: 'schema_too_large', tool: 'big', exposed: true })]);
    const omit = adaptTools([{ server: 's', tools }], { oversizedSchema: 'omit' });
    expect(omit.tools.map((t) => t.tool)).toEqual(['small']);
    expect(omit.diagnostics).toEqual([expect.objectContaining({ code: 'schema_too_large', exposed: false })]);
    expect(adaptTools([{ server: 's', tools }], { maxSchemaBytes: 1024 * 1024 }).diagnostics).toEqual([]);
  });
});

describe('toolParameters', () => {
  it('accepts 2020-12 (default), 2019-09, draft-07 and draft-06 schemas', () => {
    const base = { type: 'object', properties: { a: { type: 'string' } } };
    for (const $schema of [undefined, 'https://json-schema.org/draft/2020-12/schema', 'https://json-schema.org/draft/2019-09/schema', 'http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-06/schema#']) {
      expect(toolParameters({ ...base, $schema }).status).toBe('ok');
    }
    expect(toolParameters({ ...base, $defs: { x: { type: 'string' } }, properties: { a: { $ref: '#/$defs/x' } } }).status).toBe('ok');
  });

  it('an unknown $schema is a warning and the schema is kept', () => {
    const r = toolParameters({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { a: { type: 'string' } } });
    expect(r.status).toBe('warning');
    expect(r.parameters.properties).toEqual({ a: { type: 'string' } });
  });

  it('schemas with the same $id compile again and again (no ajv registry clash)', () => {
    const s = { $id: 'https://example.com/s', type: 'object', properties: { a: { $id: 'https://example.com/a', type: 'string' } } };
    expect(toolParameters(s).status).toBe('ok');
    expect(toolParameters({ ...s, properties: { b: { type: 'number' } } }).status).toBe('ok');
    expect(toolParameters(structuredClone(s)).status).toBe('ok');
  });

  it('a schema with thousands of properties compiles (no stack overflow in ajv codegen)', () => {
    const s = { type: 'object', properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    expect(toolParameters(s, 1024 * 1024).status).toBe('ok');
  });

  it('the size cap is checked on the serialized schema', () => {
    const s = { type: 'object', description: 'x'.repeat(100) };
    expect(toolParameters(s, bytes(s)).status).toBe('ok');
    expect(toolParameters(s, bytes(s) - 1)).toMatchObject({ status: 'too_large', parameters: FALLBACK_PARAMETERS });
  });
});

describe('boundToolResult', () => {
  const text = (t: string) => ({ type: 'text' as const, text: t });

  it('passes small results through; isError becomes the tool error flag', () => {
    const r: CallToolResult = { content: [text('hi')], structuredContent: { a: 1 }, isError: true };
    expect(boundToolResult(r)).toEqual({ content: [text('hi')], structuredContent: { a: 1 }, isError: true });
    expect(boundToolResult({ content: [] })).toEqual({ content: [], isError: false });
  });

  it('cuts a long text block and appends a marker with omitted bytes and blocks', () => {
    const big = 'x'.repeat(10_000);
    const r = boundToolResult({ content: [text('head'), text(big), { type: 'image', data: 'A'.repeat(1000), mimeType: 'image/png' }, text('tail')] }, { maxBytes: 4096 });
    expect(bytes(r.content)).toBeLessThanOrEqual(4096);
    expect(r.content[0]).toEqual(text('head'));
    expect((r.content[1] as { text: string }).text).toMatch(/^x+$/);
    expect(r.content).toHaveLength(3);
    const marker = (r.content[2] as { text: string }).text;
    expect(r.truncated!.omittedBlocks).toBe(2);
    const kept = bytes(r.content[0]) + bytes(r.content[1]);
    const total = [text('head'), text(big), { type: 'image', data: 'A'.repeat(1000), mimeType: 'image/png' }, text('tail')].reduce((a, b) => a + bytes(b), 0);
    expect(r.truncated!.omittedBytes).toBe(total - kept);
    expect(marker).toContain(`${r.truncated!.omittedBytes} bytes omitted`);
    expect(marker).toContain('2 content block(s) omitted');
  });

  it('does not split a surrogate pair and counts UTF-8 bytes', () => {
    const r = boundToolResult({ content: [text('😀'.repeat(5000))] }, { maxBytes: 2000 });
    const kept = (r.content[0] as { text: string }).text;
    expect(kept.length % 2).toBe(0);
    expect([...kept].every((c) => c === '😀')).toBe(true);
    expect(bytes(r.content)).toBeLessThanOrEqual(2000);
  });

  it('a non-text block that does not fit is omitted whole; later blocks too', () => {
    const r = boundToolResult({ content: [{ type: 'image', data: 'A'.repeat(5000), mimeType: 'image/png' }, text('small')] }, { maxBytes: 1000 });
    expect(r.content).toHaveLength(1);
    expect(r.truncated).toEqual({ omittedBytes: bytes({ type: 'image', data: 'A'.repeat(5000), mimeType: 'image/png' }) + bytes(text('small')), omittedBlocks: 2 });
  });

  it('structuredContent over its cap is dropped whole and reported', () => {
    const sc = { rows: 'r'.repeat(3000) };
    const r = boundToolResult({ content: [text('ok')], structuredContent: sc }, { maxBytes: 10_000, maxStructuredBytes: 1000 });
    expect(r.structuredContent).toBeUndefined();
    expect(r.truncated).toEqual({ omittedBytes: bytes(sc), omittedBlocks: 0 });
    expect((r.content.at(-1) as { text: string }).text).toContain(`structuredContent (${bytes(sc)} bytes) omitted`);
    expect(boundToolResult({ content: [], structuredContent: sc }).structuredContent).toBe(sc);
  });

  it('default cap is 256 KiB', () => {
    const r = boundToolResult({ content: [text('x'.repeat(300 * 1024))] });
    expect(r.truncated).toBeDefined();
    expect(bytes(r.content)).toBeLessThanOrEqual(256 * 1024);
    expect(boundToolResult({ content: [text('x'.repeat(200 * 1024))] }).truncated).toBeUndefined();
  });
});

describe('host tools for resources and prompts', () => {
  it('defines the host tools (four for resources/prompts, mcp_result_read) with object JSON Schemas', () => {
    const defs = hostToolDefinitions();
    expect(defs.map((d) => d.name)).toEqual(['mcp_resources_list', 'mcp_resource_read', 'mcp_prompts_list', 'mcp_prompt_get', 'mcp_result_read']);
    for (const d of defs) {
      expect(d.parameters.type).toBe('object');
      expect(toolParameters(d.parameters).status).toBe('ok');
      expect(d.name).toMatch(NAME_RE);
    }
    expect(defs[1].parameters.required).toEqual(['server', 'uri']);
    expect(defs[3].parameters.required).toEqual(['server', 'name']);
    defs[0].description = 'changed';
    expect(hostToolDefinitions()[0].description).not.toBe('changed');
  });

  it('parses arguments, naming fields on error', () => {
    expect(parseHostToolArgs('mcp_resources_list', undefined)).toEqual({ ok: true, call: { tool: 'mcp_resources_list' } });
    expect(parseHostToolArgs('mcp_resource_read', { server: 's', uri: 'file:///a' })).toEqual({ ok: true, call: { tool: 'mcp_resource_read', server: 's', uri: 'file:///a' } });
    expect(parseHostToolArgs('mcp_prompt_get', { server: 's', name: 'p', arguments: { a: 'b' } })).toMatchObject({ ok: true });
    const bad = parseHostToolArgs('mcp_resource_read', { server: 's' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toContain('uri');
    expect(parseHostToolArgs('mcp_prompt_get', { server: 's', name: 'p', arguments: { a: 1 } }).ok).toBe(false);
    expect(parseHostToolArgs('mcp_prompts_list', { extra: 1 }).ok).toBe(false);
    expect(parseHostToolArgs('nope', {}).ok).toBe(false);
  });

  it('resources list: merged over servers, sanitized, paginated with a host cursor', () => {
    const resources = Array.from({ length: 5 }, (_, i) => ({ uri: `file:///r${i}`, name: `r${i}\u001b[2J`, description: 'd\u202e' }));
    const entries = [{ server: 'a', resources: resources.slice(0, 3), templates: [{ uriTemplate: 'file:///{p}', name: 't' }] }, { server: 'b', resources: resources.slice(3) }];
    const p1 = resourcesListResult(entries, { pageSize: 4 });
    const s1 = p1.structuredContent as { resources: Record<string, unknown>[]; nextCursor?: string };
    expect(s1.resources.map((r) => `${r.server}:${r.uri ?? r.uriTemplate}`)).toEqual(['a:file:///r0', 'a:file:///r1', 'a:file:///r2', 'a:file:///{p}']);
    expect(s1.resources[0]).toEqual({ server: 'a', uri: 'file:///r0', name: 'r0[2J', description: 'd' });
    expect(JSON.parse((p1.content[0] as { text: string }).text)).toEqual(s1);
    const p2 = resourcesListResult(entries, { pageSize: 4, cursor: s1.nextCursor });
    const s2 = p2.structuredContent as { resources: Record<string, unknown>[]; nextCursor?: string };
    expect(s2.resources.map((r) => r.uri)).toEqual(['file:///r3', 'file:///r4']);
    expect(s2.nextCursor).toBeUndefined();
    expect(resourcesListResult(entries, { cursor: 'garbage' }).isError).toBe(true);
  });

  it('resource read: text, image, audio and other blobs become content blocks', () => {
    const r = resourceReadResult('s', 'file:///x', {
      contents: [
        { uri: 'file:///x', mimeType: 'text/plain', text: 'hello' },
        { uri: 'file:///i', mimeType: 'image/png', blob: 'iVBO' },
        { uri: 'file:///a', mimeType: 'audio/wav', blob: 'UklG' },
        { uri: 'file:///b', blob: 'AAAA' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(r.content.map((c) => c.type)).toEqual(['text', 'text', 'image', 'audio', 'resource']);
    expect((r.content[0] as { text: string }).text).toContain('MCP resource file:///x from server "s"');
    expect(r.content[1]).toEqual({ type: 'text', text: 'hello' });
    expect(resourceReadResult('s', 'u', { contents: [{ uri: 'u', text: 'x'.repeat(5000) }] }, { maxBytes: 1000 }).truncated).toBeDefined();
  });

  it('prompts list and prompt get', () => {
    const list = promptsListResult([{ server: 's', prompts: [{ name: 'review', description: 'Review code', arguments: [{ name: 'code', required: true }, { name: 'style' }] }] }]);
    expect(list.structuredContent).toEqual({ prompts: [{ server: 's', name: 'review', description: 'Review code', arguments: [{ name: 'code', required: true }, { name: 'style' }] }] });
    const got = promptGetResult('s', 'review', {
      description: 'Review',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Please review' } },
        { role: 'assistant', content: { type: 'image', data: 'iVBO', mimeType: 'image/png' } },
      ],
    });
    expect(got.content).toEqual([
      { type: 'text', text: 'MCP prompt s/review: Review' },
      { type: 'text', text: 'user: Please review' },
      { type: 'text', text: 'assistant:' },
      { type: 'image', data: 'iVBO', mimeType: 'image/png' },
    ]);
  });
});
