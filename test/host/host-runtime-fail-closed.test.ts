/**
 * Fail closed at the client level (src/mcp/client-features.ts): `onUnsupportedRequest` is
 * told of every request for a client feature the client does not handle, and the request is
 * refused with -32601 all the same — also when the observer throws; a handled feature never
 * reaches it. Against the real stdio mock (`ask` sends any request to the client).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type McpClient } from '../../src/mcp/client.js';
import type { UnsupportedRequest } from '../../src/mcp/client-features.js';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const config = { transport: 'stdio' as const, id: 'cf', command: process.execPath, args: [path.join(root, 'mock-servers/stdio-server.mjs'), 'client-features'] };

let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

const ask = async (c: McpClient, method: string, params: object) => {
  const r = await c.callTool('ask', { method, params });
  return { isError: r.isError === true, text: (r.content[0] as { text: string }).text };
};
const samplingParams = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };

describe('ClientFeatureOptions.onUnsupportedRequest', { timeout: 30_000 }, () => {
  it('told of sampling, elicitation and roots requests the client does not handle (with the server id); each still refused -32601', async () => {
    const seen: UnsupportedRequest[] = [];
    client = await connect(config, { onUnsupportedRequest: (i) => seen.push(i) });
    for (const [method, params] of [
      ['sampling/createMessage', samplingParams],
      ['elicitation/create', { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } }],
      ['roots/list', {}],
    ] as const) {
      const r = await ask(client, method, params);
      expect(r.isError).toBe(true);
      expect(JSON.parse(r.text).error).toMatchObject({ code: -32601, message: expect.stringContaining(method) });
    }
    expect(seen).toEqual([
      { method: 'sampling/createMessage', serverId: 'cf' },
      { method: 'elicitation/create', serverId: 'cf' },
      { method: 'roots/list', serverId: 'cf' },
    ]);
  });

  it('an observer that throws does not change the refusal; a handled feature never reaches the observer', async () => {
    const seen: string[] = [];
    client = await connect(config, {
      onUnsupportedRequest: (i) => {
        seen.push(i.method);
        throw new Error('observer bug');
      },
      roots: [{ uri: 'file:///tmp', name: 'tmp' }],
    });
    const refused = await ask(client, 'sampling/createMessage', samplingParams);
    expect(JSON.parse(refused.text).error.code).toBe(-32601);
    const roots = await ask(client, 'roots/list', {});
    expect(roots.isError).toBe(false);
    expect(JSON.parse(roots.text)).toEqual({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] });
    expect(seen).toEqual(['sampling/createMessage']);
  });

  it('without the option the connection answers unhandled features as before (-32601 "Method not found: <method>")', async () => {
    client = await connect(config);
    const r = await ask(client, 'sampling/createMessage', samplingParams);
    expect(JSON.parse(r.text).error).toEqual({ code: -32601, message: 'Method not found: sampling/createMessage' });
  });
});
