/**
 * A plain tool call settles where its request settles (tool-calls.ts plainCall, the request's
 * `mapResult`): the caller has the checked result in the job right after the response, with no
 * async frame in between, and every check of the result still applies (its shape, its
 * structuredContent against the tool's outputSchema, the icons it carries); the facts that
 * decide a call's mode are read once per negotiation.
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError, ValidationError } from '../../src/errors.js';
import { McpClient } from '../../src/mcp/client.js';
import { callTool, type ToolCallDeps } from '../../src/mcp/tool-calls.js';
import { ToolCatalog } from '../../src/mcp/tool-catalog.js';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import type { Transport } from '../../src/transport/types.js';

type Sent = { id?: number; method: string; params?: Record<string, unknown> };

/** A server answered by hand for tools/call; initialize and tools/list are answered at once. */
async function client(tools: unknown[] = []) {
  const sent: Sent[] = [];
  const transport: Transport = {
    kind: 'manual',
    start: async () => {},
    close: async () => {
      transport.onclose?.();
    },
    send: (m: JSONRPCMessage) => {
      const msg = m as Sent;
      sent.push(msg);
      if (msg.method === 'initialize') {
        queueMicrotask(() =>
          transport.onmessage?.({
            jsonrpc: '2.0',
            id: msg.id,
            result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'manual', version: '1' } },
          }),
        );
      } else if (msg.method === 'tools/list') {
        queueMicrotask(() => transport.onmessage?.({ jsonrpc: '2.0', id: msg.id, result: { tools } }));
      }
      return Promise.resolve();
    },
  };
  const c = new McpClient({ transport: 'stdio', command: 'manual', id: 'manual' }, { transport, telemetry: false });
  await c.connect();
  const answer = (result: unknown): void => {
    const call = sent.filter((m) => m.method === 'tools/call').at(-1)!;
    transport.onmessage?.({ jsonrpc: '2.0', id: call.id, result });
  };
  return { c, sent, answer };
}

describe('a plain tool call settles with its request', () => {
  it('the caller has the result in the job right after the response', async () => {
    const { c, answer } = await client();
    let got: unknown;
    void c.callTool('echo', { text: 'hi' }).then((r) => (got = r));
    answer({ content: [{ type: 'text', text: 'hi' }] });
    await null; // one job: with an async frame between the response and the caller, not yet
    expect(got).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    await c.close();
  });

  it('a malformed result still rejects with MCPWIRE_BAD_RESULT', async () => {
    const { c, answer } = await client();
    const p = c.callTool('echo', {}).catch((e: unknown) => e);
    answer({ content: 'not a list' });
    const err = await p;
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('MCPWIRE_BAD_RESULT');
    expect(c.pendingCount).toBe(0);
    await c.close();
  });

  it('structuredContent is still checked against the listed outputSchema (the check adopted by the request)', async () => {
    const outputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const { c, answer } = await client([{ name: 'count', inputSchema: { type: 'object' }, outputSchema }]);
    await c.listTools();
    const bad = c.callTool('count', {}).catch((e: unknown) => e);
    answer({ content: [], structuredContent: { n: 'three' } });
    expect(await bad).toBeInstanceOf(ValidationError);
    const good = c.callTool('count', {});
    answer({ content: [], structuredContent: { n: 3 } });
    await expect(good).resolves.toEqual({ content: [], structuredContent: { n: 3 } });
    await c.close();
  });

  it('an unsafe icon in a resource_link is still dropped (basic#28)', async () => {
    const { c, answer } = await client();
    const p = c.callTool('link', {});
    answer({ content: [{ type: 'resource_link', uri: 'file:///x', name: 'x', icons: [{ src: 'javascript:alert(1)' }] }] });
    const r = await p;
    expect((r.content[0] as { icons?: unknown }).icons).toBeUndefined();
    await c.close();
  });
});

describe('the facts of a call’s mode', () => {
  it('are read once per negotiation (the codec’s negotiated object), and again for a new one', async () => {
    let negotiated = { protocolVersion: '2025-11-25', capabilities: { tools: {} } };
    const reads: string[] = [];
    let problems = 0;
    const d = {
      serverId: 's',
      codec: {
        has: (f: string) => {
          reads.push(f);
          return false;
        },
        get negotiated() {
          return negotiated;
        },
        result: (_m: string, raw: unknown) => raw,
      },
      tasks: {
        toolsCallProblem: () => {
          problems++;
          return 'no tasks';
        },
      },
      catalog: new ToolCatalog(),
      request: async (_m: string, _p: unknown, _o: unknown, mapResult?: (r: unknown) => unknown) => (mapResult ?? ((r) => r))({ content: [] }),
      listTools: async () => false,
      validateStructuredContent: 'off',
      assertFormats: false,
      diagnostic: () => {},
    } as unknown as ToolCallDeps;
    for (let i = 0; i < 4; i++) await expect(callTool(d, 'echo', {}, {})).resolves.toEqual({ content: [] });
    expect(reads.sort()).toEqual(['taskHandles', 'tasks']);
    expect(problems).toBe(1);
    // a new negotiation with the same capabilities: read again, the problem kept
    negotiated = { protocolVersion: '2025-11-25', capabilities: negotiated.capabilities };
    await callTool(d, 'echo', {}, {});
    expect(reads).toHaveLength(4);
    expect(problems).toBe(1);
    // other capabilities: the problem is computed again
    negotiated = { protocolVersion: '2025-11-25', capabilities: { tools: {} } };
    await callTool(d, 'echo', {}, {});
    expect(reads).toHaveLength(6);
    expect(problems).toBe(2);
  });
});
