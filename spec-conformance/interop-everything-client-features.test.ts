/**
 * Interop with `@modelcontextprotocol/server-everything` over stdio for the client features:
 * its sampling, form and URL elicitation (request path and -32042 error path) and roots tools,
 * answered by mcpwire's handlers with the spec checks in between.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connect,
  directoryRoot,
  isUrlElicitationRequiredError,
  requestedSchemaProblem,
  type CreateMessageRequestParams,
  type ElicitRequestParams,
  type McpClient,
  type TextContent,
} from '../src/index.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-everything-roots-'));
const projectA = path.join(tmp, 'project a');
const projectB = path.join(tmp, 'project #b');
fs.mkdirSync(projectA);
fs.mkdirSync(projectB);

const sampled: CreateMessageRequestParams[] = [];
const elicited: ElicitRequestParams[] = [];
const logs: unknown[] = [];
let client: McpClient;

beforeAll(async () => {
  client = await connect(
    { transport: 'stdio', id: 'everything', command: process.execPath, args: [everything, 'stdio'] },
    {
      timeoutMs: 20_000,
      roots: [directoryRoot(projectA, 'Project A')],
      onSampling: async (p) => (sampled.push(p), { role: 'assistant', content: { type: 'text', text: 'sampled by mcpwire' }, model: 'test-model', stopReason: 'endTurn' }),
      elicitationModes: ['form', 'url'],
      elicitationApplyDefaults: true,
      onElicitation: async (p) => {
        elicited.push(p);
        return p.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada Lovelace', email: 'ada@example.com' } };
      },
    },
  );
  client.on('log', (l) => logs.push(l));
});

afterAll(async () => {
  await client?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const textOf = (r: { content: unknown[] }) => (r.content as TextContent[]).map((c) => c.text).join('\n');

describe('interop: server-everything client features over stdio', () => {
  it('client.sampling#5: with sampling declared, trigger-sampling-request reaches the handler and the result goes back to the server', async () => {
    const r = await client.callTool('trigger-sampling-request', { prompt: 'Say hi', maxTokens: 20 });
    expect(sampled.at(-1)).toMatchObject({ maxTokens: 20, messages: [{ role: 'user', content: { type: 'text', text: expect.stringContaining('Say hi') } }] });
    expect(textOf(r)).toContain('sampled by mcpwire');
  });

  it('client.elicitation#9 / #52: its form elicitation uses only the restricted schema subset; the answer gets the schema defaults and is accepted by the server', async () => {
    const r = await client.callTool('trigger-elicitation-request', {});
    const req = elicited.at(-1)!;
    expect(req.mode).toBe('form');
    expect(requestedSchemaProblem(req.requestedSchema)).toBeUndefined();
    const out = textOf(r);
    expect(out).toMatch(/User provided the requested information/);
    expect(out).toContain('Ada Lovelace');
    // applyDefaults: the server's default for `firstLine` came back although the handler omitted it.
    expect(out).toContain('It was a dark and stormy night.');
  });

  it('client.elicitation#11 / #42: its URL elicitation (request path) is handed to the handler untouched and accepted', async () => {
    const url = 'https://example.com/connect?x=1';
    const r = await client.callTool('trigger-url-elicitation', { url, message: 'Connect your account' });
    expect(elicited.at(-1)).toMatchObject({ mode: 'url', url, message: 'Connect your account', elicitationId: expect.any(String) });
    expect(r.isError).not.toBe(true);
  });

  it('client.elicitation#18 / #19: its -32042 error path surfaces as a UrlElicitationRequiredError with URL elicitations; the retry succeeds', async () => {
    const args = { url: 'https://example.com/after', message: 'Open', errorPath: true };
    const err = await client.callTool('trigger-url-elicitation', args).catch((e: unknown) => e);
    expect(isUrlElicitationRequiredError(err)).toBe(true);
    const list = (err as { elicitations: { mode: string; elicitationId: string; url: string }[] }).elicitations;
    expect(list.length).toBeGreaterThan(0);
    for (const e of list) expect(e).toMatchObject({ mode: 'url', elicitationId: expect.any(String), url: expect.stringMatching(/^https:/) });
    const retry = await client.callTool('trigger-url-elicitation', args);
    expect(retry.isError).not.toBe(true);
  });

  it('client.roots#1 / #3 / #2: get-roots-list shows our file:// roots; after setRoots() the server re-fetches on list_changed', async () => {
    const first = textOf(await client.callTool('get-roots-list', {}));
    expect(first).toContain(directoryRoot(projectA).uri);
    expect(first).toContain('Project A');
    await client.setRoots([directoryRoot(projectA, 'Project A'), directoryRoot(projectB, 'Project B')]);
    await vi.waitFor(async () => {
      const now = textOf(await client.callTool('get-roots-list', {}));
      expect(now).toContain(directoryRoot(projectB).uri);
    }, { timeout: 15_000, interval: 200 });
    expect(directoryRoot(projectB).uri).toContain('project%20%23b');
  });
});
