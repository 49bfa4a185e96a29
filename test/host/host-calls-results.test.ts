/**
 * Typed host results: outcome/code/retryable
 * tell apart a tool error, a JSON-RPC error (code, message, data — redacted, bounded), a
 * transport failure, an unavailable server, a denial, a local refusal; `_meta` is kept
 * (redacted, bounded); content cut for size leaves a handle that mcp_result_read pages through;
 * the store of cut results is bounded by size, count and age (LRU). Real mock processes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHost } from '../../src/host/index.js';
import { ResultStore } from '../../src/host/result-pages.js';
import { mockServer, startHost, textOf, toolName } from '../support/host-calls.js';

const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('outcomes', () => {
  it('ok, tool_error, rpc_error (code, message, data redacted), transport, denied, unknown_tool, invalid_arguments', async () => {
    const scenario = {
      tools: [
        'echo',
        'fail',
        'crash',
        { name: 'broken', error: { code: -32050, message: `quota exceeded for ${SECRET}`, data: { retryAfter: 3, key: SECRET } } },
      ],
    };
    host = await startHost([mockServer('o', scenario, {}, { API_TOKEN: SECRET }), mockServer('gone', { tools: ['echo'] })], {
      permission: async (req) => (req.tool === 'fail' && req.arguments.deny === true ? 'deny' : 'allow'),
      backoff: { maxRetries: 0 },
    });
    expect(await host.callTool(toolName('o', 'echo'), { text: 'hi' })).toMatchObject({ outcome: 'ok', code: 'OK', retryable: false, attempts: 1, server: 'o', tool: 'echo' });
    expect(await host.callTool(toolName('o', 'fail'), { message: 'nope' })).toMatchObject({ outcome: 'tool_error', code: 'TOOL_ERROR', isError: true, content: [{ type: 'text', text: 'nope' }] });
    const rpc = await host.callTool(toolName('o', 'broken'), {});
    expect(rpc).toMatchObject({ outcome: 'rpc_error', code: 'MCPWIRE_JSONRPC_ERROR', isError: true, retryable: false, rpcError: { code: -32050, data: { retryAfter: 3 } } });
    expect(JSON.stringify(rpc)).not.toContain(SECRET);
    expect(rpc.rpcError!.message).toMatch(/^quota exceeded for /);
    expect((rpc.rpcError!.data as { key: string }).key).not.toBe(SECRET);
    const denied = await host.callTool(toolName('o', 'fail'), { deny: true });
    expect(denied).toMatchObject({ outcome: 'denied', code: 'MCPWIRE_PERMISSION_DENIED', attempts: 0, retryable: false });
    expect(await host.callTool('mcp_o_nothing_00000000', {})).toMatchObject({ outcome: 'unknown_tool', code: 'MCPWIRE_UNKNOWN_TOOL' });
    expect(await host.callTool(toolName('o', 'echo'), [1])).toMatchObject({ outcome: 'invalid_arguments', code: 'MCPWIRE_INVALID_ARGUMENTS' });
    const crashed = await host.callTool(toolName('gone', 'echo'), { text: 'x' });
    expect(crashed.outcome).toBe('ok');
    const dead = await host.callTool(toolName('o', 'crash'), { code: 3 });
    expect(dead).toMatchObject({ outcome: 'transport', code: 'MCPWIRE_CONNECTION_CLOSED', retryable: false, attempts: 1 });
    // the crashed server's tools have left the catalog; a caller holding the name learns the server is down
    expect(await host.callTool(toolName('o', 'echo'), { text: 'x' })).toMatchObject({ outcome: 'unavailable', code: 'MCPWIRE_SERVER_UNAVAILABLE', retryable: false });
  });

  it('a server that is not connected: outcome unavailable (not unknown_tool, though its tools left the catalog), retryable for an idempotent tool', async () => {
    host = await startHost([mockServer('d', { tools: [{ name: 'look', builtin: 'echo', annotations: { readOnlyHint: true } }, 'crash'] }, { trustAnnotations: true })], { backoff: { maxRetries: 0 } });
    const look = toolName('d', 'look');
    expect((await host.callTool(look, { text: 'x' })).outcome).toBe('ok');
    await host.callTool(toolName('d', 'crash'), {});
    expect(host.catalog.byName.has(look)).toBe(false);
    const r = await host.callTool(look, { text: 'x' });
    expect(r).toMatchObject({ outcome: 'unavailable', code: 'MCPWIRE_SERVER_UNAVAILABLE', retryable: true, attempts: 0, server: 'd', tool: 'look' });
    expect(textOf(r)).toMatch(/not connected \(error\)/);
  });

  it('_meta of the result is kept, redacted; one over the cap is dropped and its size reported', async () => {
    const scenario = {
      tools: [
        { name: 'meta', result: { content: [{ type: 'text', text: 'm' }], _meta: { 'example.com/trace': 't-1', auth: SECRET } } },
        { name: 'fat', result: { content: [{ type: 'text', text: 'f' }], _meta: { blob: 'y'.repeat(20_000) } } },
      ],
    };
    host = await startHost([mockServer('m', scenario, {}, { API_TOKEN: SECRET })]);
    const r = await host.callTool(toolName('m', 'meta'), {});
    expect(r._meta?.['example.com/trace']).toBe('t-1');
    expect(r._meta?.auth).not.toBe(SECRET);
    expect(JSON.stringify(r)).not.toContain(SECRET);
    const fat = await host.callTool(toolName('m', 'fat'), {});
    expect(fat._meta).toBeUndefined();
    expect(fat.metaDropped).toBeGreaterThan(20_000);
  });
});

describe('cut results and mcp_result_read', () => {
  it('a cut result leaves a resultId; mcp_result_read pages through the rest, which joins up to the whole', async () => {
    host = await startHost([mockServer('b', { tools: ['blob', 'structured'] })], { bound: { maxBytes: 1000 } });
    const r = await host.callTool(toolName('b', 'blob'), { bytes: 5000 });
    expect(r.outcome).toBe('ok');
    expect(r.truncated).toBeDefined();
    expect(r.resultId).toMatch(/^r_/);
    const marker = String((r.content.at(-1) as { text: string }).text);
    const m = /call mcp_result_read with (\{.*\})\]$/.exec(marker);
    expect(m).not.toBeNull();
    const first = JSON.parse(m![1]) as { resultId: string; cursor: string };
    expect(first.resultId).toBe(r.resultId);
    let text = String((r.content[0] as { text: string }).text);
    let cursor: string | undefined = first.cursor;
    let pages = 0;
    while (cursor !== undefined) {
      const page = await host.callTool('mcp_result_read', { resultId: first.resultId, cursor });
      expect(page).toMatchObject({ outcome: 'ok', server: 'b', tool: 'blob' });
      expect(Buffer.byteLength(JSON.stringify(page.content), 'utf8')).toBeLessThan(1300);
      text += String((page.content[0] as { text: string }).text);
      cursor = (page.structuredContent as { nextCursor?: string }).nextCursor;
      pages++;
    }
    expect(pages).toBeGreaterThan(3);
    expect(text).toBe('x'.repeat(5000));
    const again = await host.callTool('mcp_result_read', { resultId: first.resultId });
    expect(String((again.content[0] as { text: string }).text).startsWith('xxx')).toBe(true);
    expect(await host.callTool('mcp_result_read', { resultId: 'r_nope' })).toMatchObject({ outcome: 'invalid_arguments', isError: true });
    expect(await host.callTool('mcp_result_read', { resultId: first.resultId, cursor: 'garbage' })).toMatchObject({ isError: true });
    expect(host.toolDefinitions().some((d) => d.name === 'mcp_result_read')).toBe(true);
  });

  it('a structuredContent dropped for size is readable as the last page', async () => {
    host = await startHost([mockServer('s', { tools: ['structured'] })], { bound: { maxBytes: 2000, maxStructuredBytes: 50 } });
    const r = await host.callTool(toolName('s', 'structured'), { text: 'hello structured world' });
    expect(r.structuredContent).toBeUndefined();
    expect(r.resultId).toBeDefined();
    const page = await host.callTool('mcp_result_read', { resultId: r.resultId! });
    const all = page.content.map((b) => (b as { text?: string }).text ?? '').join('\n');
    expect(all).toContain('structuredContent: {"text":"hello structured world"');
  });

  it('the host keeps at most results.maxEntries cut results: the oldest is evicted and says so', async () => {
    host = await startHost([mockServer('e', { tools: ['blob'] })], { bound: { maxBytes: 500 }, results: { maxEntries: 1 } });
    const one = await host.callTool(toolName('e', 'blob'), { bytes: 3000 });
    const two = await host.callTool(toolName('e', 'blob'), { bytes: 3000 });
    expect(textOf(await host.callTool('mcp_result_read', { resultId: one.resultId! }))).toMatch(/evicted/);
    expect((await host.callTool('mcp_result_read', { resultId: two.resultId! })).outcome).toBe('ok');
  });
});

describe('ResultStore', () => {
  const text = (n: number) => [{ type: 'text' as const, text: 'z'.repeat(n) }];

  it('bounds total bytes with LRU eviction: a read makes an entry the newest', () => {
    const store = new ResultStore({ maxBytes: 3000, maxEntries: 10 });
    const a = store.put('s', 't', text(900))!;
    const b = store.put('s', 't', text(900))!;
    const c = store.put('s', 't', text(900))!;
    expect(store.stats.entries).toBe(3);
    expect('error' in store.read(a, undefined, 10_000)).toBe(false); // a is now the newest
    const d = store.put('s', 't', text(900))!; // needs room: b (least recently used) goes
    expect(store.has(b)).toBe(false);
    expect([a, c, d].every((id) => store.has(id))).toBe(true);
    expect(store.stats.bytes).toBeLessThanOrEqual(3000);
    expect(store.read(b, undefined, 1000)).toEqual({ error: expect.stringMatching(/evicted/) });
    expect(store.put('s', 't', text(5000))).toBeUndefined(); // larger than the whole store: not kept
  });

  it('expires entries ttlMs after they were stored or last read (injected clock)', () => {
    let now = 0;
    const store = new ResultStore({ ttlMs: 1000, now: () => now });
    const a = store.put('s', 't', text(10))!;
    now = 900;
    store.read(a, undefined, 1000); // extends its life to 1900
    now = 1800;
    expect(store.has(a)).toBe(true);
    now = 1900;
    expect(store.has(a)).toBe(false);
    expect(store.read(a, undefined, 1000)).toEqual({ error: expect.stringMatching(/unknown or expired/) });
    expect(store.stats).toEqual({ entries: 0, bytes: 0 });
  });

  it('a non-text block larger than a page is skipped with a note; text is cut across pages', () => {
    const store = new ResultStore();
    const id = store.put('s', 't', [{ type: 'text', text: 'a'.repeat(1500) }, { type: 'image', data: 'B'.repeat(5000), mimeType: 'image/png' }, { type: 'text', text: 'end' }])!;
    const p1 = store.read(id, undefined, 1000);
    if ('error' in p1) throw new Error(p1.error);
    expect(p1.nextCursor).toBeDefined();
    let cursor = p1.nextCursor;
    const seen: string[] = [String((p1.content[0] as { text: string }).text)];
    for (let i = 0; cursor !== undefined && i < 10; i++) {
      const p = store.read(id, cursor, 1000);
      if ('error' in p) throw new Error(p.error);
      for (const b of p.content) seen.push(b.type === 'text' ? b.text : `<${b.type}>`);
      cursor = p.nextCursor;
    }
    expect(seen.filter((s) => /^a+$/.test(s)).join('')).toBe('a'.repeat(1500));
    expect(seen.some((s) => /content block 1 \(image, \d+ bytes\) is larger than a page/.test(s))).toBe(true);
    expect(seen.at(-1)).toBe('end');
  });
});
