/**
 * Result shapes per method (schema.json's *Result types). A malformed `result` from
 * a server is a typed ProtocolError (MCPWIRE_BAD_RESULT) naming the server, the method and a
 * bounded excerpt of the value — never a raw TypeError, never a `null` handed on as a result.
 * Sessions over an in-memory transport pair (src/transport/memory.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, McpClient, ProtocolError } from '../../src/index.js';
import { createMemoryPair } from '../../src/transport/memory.js';
import { checkResult, RESULT_SHAPES_2025_11_25 } from '../../src/mcp/result-shapes.js';
import { REVISIONS, resultShapes, SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/versions.js';

let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** A server over an in-memory pair that answers each method with the given result (as is). */
async function serve(results: Record<string, unknown>, protocolVersion = '2025-11-25'): Promise<McpClient> {
  const [mine, theirs] = createMemoryPair();
  theirs.onmessage = (m) => {
    const msg = m as { id?: number; method?: string };
    if (msg.id === undefined || msg.method === undefined) return;
    const result =
      msg.method === 'initialize'
        ? {
            protocolVersion,
            capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} },
            serverInfo: { name: 'shapes', version: '1' },
          }
        : msg.method in results
          ? results[msg.method]
          : {};
    void theirs.send({ jsonrpc: '2.0', id: msg.id, result } as never);
  };
  client = await connect({ transport: 'stdio', id: 'shapes', command: 'unused' }, { transport: mine, timeoutMs: 5_000 });
  return client;
}

const expectBadResult = async (p: Promise<unknown>, method: string): Promise<ProtocolError> => {
  const err = await p.then(
    (v) => {
      throw new Error(`resolved with ${JSON.stringify(v)} instead of rejecting`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  const e = err as ProtocolError;
  expect(e.code).toBe('MCPWIRE_BAD_RESULT');
  expect(e.serverId).toBe('shapes');
  expect(e.message).toContain(method);
  return e;
};

describe('malformed results are typed errors', () => {
  it('result null — listTools rejects with MCPWIRE_BAD_RESULT (not a TypeError), callTool does not resolve null', async () => {
    const c = await serve({ 'tools/list': null, 'tools/call': null });
    const e = await expectBadResult(c.listTools(), 'tools/list');
    expect(e.message).toMatch(/not an object/);
    expect(e.message).toContain('null');
    await expectBadResult(c.callTool('x', {}), 'tools/call');
    await expectBadResult(c.listToolsPage(), 'tools/list');
    expect(c.pendingCount).toBe(0);
  });

  const cases: [string, unknown, (c: McpClient) => Promise<unknown>][] = [
    ['tools/list', { tools: 'nope' }, (c) => c.listTools()],
    ['tools/list', [1, 2], (c) => c.listTools()],
    ['tools/call', { content: 'text' }, (c) => c.callTool('t')],
    ['tools/call', { content: [], isError: 'yes' }, (c) => c.callTool('t')],
    ['tools/call', 'a string', (c) => c.callTool('t')],
    ['resources/list', { resources: null }, (c) => c.listResources()],
    ['resources/list', 42, (c) => c.listResourcesPage()],
    ['resources/templates/list', {}, (c) => c.listResourceTemplates()],
    ['resources/read', { contents: {} }, (c) => c.readResource('mem://x')],
    ['prompts/list', { prompts: {} }, (c) => c.listPrompts()],
    ['prompts/get', { description: 'no messages' }, (c) => c.getPrompt('p')],
    ['completion/complete', { completion: { values: 'a' } }, (c) => c.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })],
    ['completion/complete', {}, (c) => c.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })],
    ['ping', 5, (c) => c.ping()],
    ['logging/setLevel', null, (c) => c.setLoggingLevel('info')],
    ['resources/subscribe', 'ok', (c) => c.subscribeResource('mem://x')],
    ['resources/unsubscribe', [], (c) => c.unsubscribeResource('mem://x')],
  ];
  for (const [method, bad, call] of cases) {
    it(`${method} answered with ${JSON.stringify(bad)} is MCPWIRE_BAD_RESULT`, async () => {
      const c = await serve({ [method]: bad });
      await expectBadResult(call(c), method);
    });
  }

  it('the offending value appears as a bounded, escaped excerpt', async () => {
    const c = await serve({ 'tools/call': { content: 'x'.repeat(100_000) + '\u001b[31m' } });
    const e = await expectBadResult(c.callTool('t'), 'tools/call');
    expect(e.message.length).toBeLessThan(600);
    expect(e.message).toMatch(/…/);
    const tail = await expectBadResult((await serve({ 'tools/call': { content: '\u001b[31mred' } })).callTool('t'), 'tools/call');
    expect(tail.message).not.toContain('\u001b');
    expect(tail.message).toContain('\\u001b');
  });

  it('well-formed results still pass (every typed method)', async () => {
    const c = await serve({
      'tools/list': { tools: [{ name: 't', inputSchema: { type: 'object' } }], nextCursor: undefined },
      'tools/call': { content: [{ type: 'text', text: 'ok' }], isError: false },
      'resources/list': { resources: [] },
      'resources/templates/list': { resourceTemplates: [] },
      'resources/read': { contents: [{ uri: 'mem://x', text: 'x' }] },
      'prompts/list': { prompts: [] },
      'prompts/get': { messages: [] },
      'completion/complete': { completion: { values: ['a'] } },
    });
    expect(await c.listTools()).toHaveLength(1);
    expect((await c.callTool('t')).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(await c.listResources()).toEqual([]);
    expect(await c.listResourceTemplates()).toEqual([]);
    expect((await c.readResource('mem://x')).contents).toHaveLength(1);
    expect(await c.listPrompts()).toEqual([]);
    expect((await c.getPrompt('p')).messages).toEqual([]);
    expect((await c.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).completion.values).toEqual(['a']);
    await c.ping();
    await c.setLoggingLevel('info');
    await c.subscribeResource('mem://x');
    await c.unsubscribeResource('mem://x');
  });

  it('every supported revision has a shape table (a new revision adds its own row)', () => {
    for (const v of SUPPORTED_PROTOCOL_VERSIONS) expect(REVISIONS[v]!.resultShapes['tools/call']).toBeTypeOf('function');
    expect(resultShapes(undefined)).toBe(REVISIONS['2025-11-25']!.resultShapes);
    expect(resultShapes('2024-11-05')).toBe(REVISIONS['2024-11-05']!.resultShapes);
    // A table is data: a revision's own check replaces the shared one.
    const custom = { ...RESULT_SHAPES_2025_11_25, 'tools/call': () => 'always wrong' };
    expect(() => checkResult(custom, 'tools/call', { content: [] }, 's')).toThrow(/always wrong/);
    expect(checkResult(RESULT_SHAPES_2025_11_25, 'tools/call', { content: [] }, 's')).toEqual({ content: [] });
  });
});
