/**
 * A 2026-07-28 request's text is written with the codec's constant `_meta` spliced in as text
 * (eras/modern.ts `requestText`): the bytes must parse to exactly the message `requestParams`
 * made (basic#44/#47: the required `_meta` fields on every request), and any params the codec did
 * not just make (a progress token added, the caller's own `_meta`) fall back to serialization.
 * The client gives the connection that hook in the 2026-07-28 era only: a handshake-era request
 * takes the connection's plain path, with nothing asked per request (protocol/connection.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModernCodec } from '../../src/mcp/eras/modern.js';
import { EraSelector } from '../../src/mcp/eras/select.js';
import { LEGACY_SERVER, MODERN_SERVER, recordedMocks } from '../support/recorded-mock.js';

const { mock, open } = recordedMocks('era-request-text-');

const codec = () =>
  new ModernCodec({ serverId: 's', protocolVersion: '2026-07-28', capabilities: { roots: { listChanged: true } }, clientInfo: { name: 'c "quoted"', version: '1.0' } });

const message = (id: number | string, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0' as const, id, method } : { jsonrpc: '2.0' as const, id, method, params };

describe('a 2026-07-28 request written with its _meta spliced in as text', () => {
  it('basic#44: the text parses to the very message, with params, without params, with empty params', () => {
    const c = codec();
    for (const [id, method, params] of [
      [1, 'tools/call', { name: 'echo', arguments: { text: 'a "b"\n\u2028', n: [1, null, true] } }],
      ['x-7', 'tools/list', undefined],
      [3, 'resources/list', {}],
    ] as const) {
      const m = message(id, method, c.requestParams(method, params as Record<string, unknown> | undefined));
      const text = c.requestText(m);
      expect(text).toBeDefined();
      expect(JSON.parse(text!)).toEqual(JSON.parse(JSON.stringify(m)));
      expect(JSON.parse(text!).params._meta).toEqual({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } },
        'io.modelcontextprotocol/clientInfo': { name: 'c "quoted"', version: '1.0' },
      });
    }
  });

  it('basic#44: the method and the id of each request, whatever the request before wrote (its method part is kept from one request to the next)', () => {
    const c = codec();
    // methods alternating and repeating; ids an int32, a string, past int32, negative, zero
    const sent: Array<[number | string, string, Record<string, unknown> | undefined]> = [
      [1, 'tools/call', { name: 'a' }],
      [2, 'tools/call', { name: 'b', arguments: {} }],
      ['x-7', 'tools/list', undefined],
      [2 ** 31, 'tools/list', { cursor: 'c' }],
      [2 ** 53 - 1, 'tools/call', { name: 'c' }],
      [-5, 'resources/read', { uri: 'file:///x' }],
      [0, 'tools/call', {}],
      ['', 'prompts/get', { name: 'p' }],
    ];
    for (const [id, method, params] of sent) {
      const m = message(id, method, c.requestParams(method, params));
      const text = c.requestText(m);
      expect(text).toBe(JSON.stringify(m));
    }
  });

  it('follows the log level set later (it travels in _meta)', () => {
    const c = codec();
    c.setLogLevel('warning');
    const m = message(2, 'tools/call', c.requestParams('tools/call', { name: 'echo' }));
    expect(JSON.parse(c.requestText(m)!)).toEqual(JSON.parse(JSON.stringify(m)));
    expect(JSON.parse(c.requestText(m)!).params._meta['io.modelcontextprotocol/logLevel']).toBe('warning');
  });

  it('params it did not just make are not its to write: a copy with a progress token, an older request, the caller\'s own _meta', () => {
    const c = codec();
    const first = c.requestParams('tools/call', { name: 'a' })!;
    const withToken = { ...first, _meta: { ...(first._meta as object), progressToken: 'p1' } };
    expect(c.requestText(message(1, 'tools/call', withToken))).toBeUndefined();
    c.requestParams('tools/call', { name: 'b' });
    expect(c.requestText(message(1, 'tools/call', first))).toBeUndefined();
    const own = c.requestParams('tools/call', { name: 'c', _meta: { progressToken: 7 } })!;
    expect(c.requestText(message(1, 'tools/call', own))).toBeUndefined();
  });
});

describe('fresh params (callTool\'s, made for one request) given _meta in place', () => {
  it('basic#44: the text is the very message, whatever the params, and the params object is the one sent', () => {
    const c = codec();
    for (const [id, method, params] of [
      [1, 'tools/call', { name: 'echo', arguments: { text: 'a "b"\n\u2028', n: [1, null, true] } }],
      [2, 'tools/call', { name: 'e', arguments: {} }],
      [3, 'resources/list', {}],
      ['x', 'prompts/get', { name: 'p', arguments: { a: '1' } }],
    ] as const) {
      const given = structuredClone(params) as Record<string, unknown>;
      const sent = c.requestParams(method, given, undefined, true)!;
      expect(sent).toBe(given);
      const m = message(id, method, sent);
      expect(c.requestText(m)).toBe(JSON.stringify(m));
      expect(JSON.parse(c.requestText(m)!).params).toEqual({ ...params, _meta: JSON.parse(JSON.stringify(m)).params._meta });
    }
  });

  it('its text is never used for other params: a later request\'s, a copy with a progress token, params changed after', () => {
    const c = codec();
    const first = c.requestParams('tools/call', { name: 'a' }, undefined, true)!;
    const second = c.requestParams('tools/call', { name: 'b' }, undefined, true)!;
    expect(c.requestText(message(1, 'tools/call', first))).toBeUndefined();
    const withToken = { ...second, _meta: { ...(second._meta as object), progressToken: 'p1' } };
    expect(c.requestText(message(1, 'tools/call', withToken))).toBeUndefined();
    // a copy made after fresh params must not write the fresh ones' text
    const copied = c.requestParams('tools/call', { name: 'c', arguments: { x: 1 } })!;
    const m = message(3, 'tools/call', copied);
    expect(c.requestText(m)).toBe(JSON.stringify(m));
  });

  it('a caller\'s own params are copied, never changed; fresh params with their own _meta or not JSON are copied too', () => {
    const c = codec();
    const callers = { name: 'a', arguments: { k: 1 } };
    const sent = c.requestParams('tools/call', callers)!;
    expect(sent).not.toBe(callers);
    expect(callers).toEqual({ name: 'a', arguments: { k: 1 } });
    const own = { name: 'b', _meta: { progressToken: 7 } };
    const ownSent = c.requestParams('tools/call', own, undefined, true)!;
    expect(ownSent).not.toBe(own);
    expect(own._meta).toEqual({ progressToken: 7 });
    const big = { name: 'c', arguments: { n: 1n } };
    const bigSent = c.requestParams('tools/call', big, undefined, true)!;
    expect(bigSent).not.toBe(big);
    expect('_meta' in big).toBe(false);
  });
});

describe('the request text hook, by era', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a 2026-07-28 client writes its requests\' text through the codec; a handshake-era client asks it nothing per request', async () => {
    // the connection calls the modern codec's own hook (EraSelector.textHook), not the selector, per request
    const asked = vi.spyOn(ModernCodec.prototype, 'requestText');
    const viaSelector = vi.spyOn(EraSelector.prototype, 'requestText');
    const modern = await open(mock({ script: MODERN_SERVER, id: 'modern' }).config);
    expect(modern.era).toBe('modern');
    await modern.callTool('echo', { text: 'spliced' });
    expect(asked.mock.results.some((r) => typeof r.value === 'string' && r.value.includes('"spliced"'))).toBe(true);
    expect(viaSelector).not.toHaveBeenCalled();
    asked.mockClear();
    const legacy = await open(mock({ script: LEGACY_SERVER, id: 'legacy' }).config);
    expect(legacy.era).toBe('handshake');
    expect((await legacy.listTools()).length).toBeGreaterThan(0);
    expect(asked).not.toHaveBeenCalled();
  });
});
