/**
 * The gateway's Streamable HTTP session (src/serve/http-session.ts) as a transport, with
 * stand-in responses: which stream each message goes on. A progress notification follows the
 * request whose progressToken it names while that request is unanswered, and only then; what
 * the gateway sends on its own goes on the GET stream, else on the newest POST stream still
 * connected.
 */
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '../src/jsonrpc/types.js';
import { HttpSessionTransport } from '../src/serve/http-session.js';

/** A response that records what was written to it. */
function response() {
  const out = { text: '', ended: false };
  const res = {
    writableEnded: false,
    writeHead() {
      return res;
    },
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
    end() {
      out.ended = true;
      res.writableEnded = true;
      return res;
    },
    on() {
      return res;
    },
  };
  return { res: res as unknown as http.ServerResponse, out, messages: () => out.text.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>) };
}

const call = (id: number, progressToken?: string | number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {}, ...(progressToken !== undefined ? { _meta: { progressToken } } : {}) } });
const progress = (progressToken: string | number, n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: n } }) as unknown as JSONRPCMessage;
const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [] } }) as unknown as JSONRPCMessage;

describe('HttpSessionTransport: which stream a message goes on', () => {
  it("a progress notification goes on the stream of the request that named its token, until that request's response", async () => {
    const t = new HttpSessionTransport('s1');
    const a = response();
    const b = response();
    const get = response();
    t.acceptPost([call(1, 'tok-a')], a.res, {});
    t.acceptPost([call(2, 7)], b.res, {});
    expect(t.acceptGet(get.res, {}, undefined)).toBe(true);
    await t.send(progress('tok-a', 1));
    await t.send(progress(7, 1));
    expect(a.messages().map((m) => (m.params as { progressToken: unknown }).progressToken)).toEqual(['tok-a']);
    expect(b.messages().map((m) => (m.params as { progressToken: unknown }).progressToken)).toEqual([7]);
    await t.send(answer(1));
    expect(a.out.ended).toBe(true);
    // answered: a late progress naming its token is no longer that stream's, it goes on the GET stream
    await t.send(progress('tok-a', 2));
    expect(a.messages()).toHaveLength(2);
    expect(get.messages().map((m) => m.method)).toEqual(['notifications/progress']);
    // the token used again by a new request is the new request's
    const c = response();
    t.acceptPost([call(3, 'tok-a')], c.res, {});
    await t.send(progress('tok-a', 1));
    expect(c.messages()).toHaveLength(1);
    expect(get.messages()).toHaveLength(1);
  });

  it("a response to one of two requests naming the same token leaves the token to the other's stream", async () => {
    const t = new HttpSessionTransport('s2');
    const a = response();
    const b = response();
    const get = response();
    t.acceptPost([call(1, 'same')], a.res, {});
    t.acceptPost([call(2, 'same')], b.res, {});
    t.acceptGet(get.res, {}, undefined);
    await t.send(answer(1));
    await t.send(progress('same', 1));
    expect(b.messages().map((m) => m.method)).toEqual(['notifications/progress']);
    expect(get.messages()).toEqual([]);
  });

  it('without a GET stream, what the gateway sends on its own goes on the newest POST stream still connected', async () => {
    const t = new HttpSessionTransport('s3');
    const a = response();
    const b = response();
    t.acceptPost([call(1)], a.res, {});
    t.acceptPost([call(2)], b.res, {});
    const listChanged = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as unknown as JSONRPCMessage;
    await t.send(listChanged);
    expect(b.messages().map((m) => m.method)).toEqual(['notifications/tools/list_changed']);
    await t.send(answer(2));
    await t.send(listChanged);
    expect(a.messages().map((m) => m.method)).toEqual(['notifications/tools/list_changed']);
  });
});
