/**
 * Streamable HTTP streams and DNS-rebinding defence, probed with raw requests (see http.ts):
 * the SSE priming event, the `retry` field before a server closes a stream early, resuming a
 * stream after the client lost it (`Last-Event-ID`), several POST streams at once (each
 * response on its own stream only), and the `Host` header validated on its own.
 */
import { excerpt } from '../../jsonrpc/types.js';
import type { HttpServerConfig } from '../../transport/create.js';
import { ctype, httpCheck, initBody, ping, raw, type RawResponse } from './http.js';
import { notApplicable, pass, violated } from '../core/types.js';

export interface SseEvent {
  id?: string;
  data: string;
  retry?: string;
}

/** The events of an SSE body (WHATWG "event stream" fields id, data, retry; comments skipped). */
export function sseEvents(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const ev: SseEvent = { data: '' };
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields++;
      if (name === 'id') ev.id = value;
      else if (name === 'data') data.push(value);
      else if (name === 'retry') ev.retry = value;
    }
    if (fields === 0) continue;
    ev.data = data.join('\n');
    out.push(ev);
  }
  return out;
}

const isResponse = (e: SseEvent, id: string): boolean => {
  try {
    const m = JSON.parse(e.data) as { id?: unknown; result?: unknown; error?: unknown };
    return m.id === id && ('result' in m || 'error' in m);
  } catch {
    return false;
  }
};

const isSse = (r: RawResponse) => ctype(r) === 'text/event-stream';

export const ssePriming = httpCheck(
  { id: 'http.sse-priming', title: 'an SSE response stream starts with a priming event (an event id, empty data)', clause: 'basic.transports#20', level: 'SHOULD' },
  async (ctx, s) => {
    const r = await raw(ctx, 'POST', s.headers, ping(52));
    if (!isSse(r)) return notApplicable(`the request was answered with ${ctype(r) || `HTTP ${r.status}`}, not an SSE stream`);
    const first = sseEvents(r.text)[0];
    if (first !== undefined && first.id !== undefined && first.id !== '' && first.data.trim() === '') return pass(`priming event id ${JSON.stringify(first.id)}`);
    return violated('a server that initiates an SSE stream SHOULD immediately send an event with an event id and an empty data field; the first event was not one', excerpt(r.text, 300));
  },
);

export const sseRetry = httpCheck(
  { id: 'http.sse-retry', title: 'a server closing an SSE connection before the response sends a retry field first', clause: 'basic.transports#22', level: 'SHOULD' },
  async (ctx, s) => {
    const id = 'mcpwire-check-50';
    // Read until the connection ends (a response does not stop the read: the whole body is wanted).
    const r = await raw(ctx, 'POST', s.headers, ping(50), { until: () => false });
    if (!isSse(r)) return notApplicable(`the request was answered with ${ctype(r) || `HTTP ${r.status}`}, not an SSE stream`);
    const events = sseEvents(r.text);
    if (events.some((e) => isResponse(e, id))) return notApplicable('the server answered on the stream; it closed no connection before its response');
    if (events.some((e) => e.retry !== undefined && /^\d+$/.test(e.retry))) return pass('retry sent before the connection closed');
    return violated('the server closed the connection before the response without a retry field (a standard SSE "retry:" line) telling the client when to reconnect', excerpt(r.text || '(empty stream)', 300));
  },
);

export const resumeDelivers = httpCheck(
  {
    id: 'http.resume-delivers',
    title: 'after the client loses a stream, GET with Last-Event-ID delivers the response it missed',
    clause: 'basic.transports#24',
    level: 'SHOULD',
  },
  async (ctx, s) => {
    const id = 'mcpwire-check-51';
    // Drop the connection as soon as an event with an id arrived (a network failure, as seen by the server).
    const a = await raw(ctx, 'POST', s.headers, ping(51), { until: (t) => sseEvents(t).some((e) => e.id !== undefined && e.id !== '' && /\r?\n\r?\n/.test(t)) });
    if (!isSse(a)) return notApplicable(`the request was answered with ${ctype(a) || `HTTP ${a.status}`}, not an SSE stream`);
    const events = sseEvents(a.text);
    const last = events.filter((e) => e.id !== undefined && e.id !== '').at(-1);
    if (last === undefined) return notApplicable('the server sends no SSE event ids (no resumability)');
    if (events.some((e) => isResponse(e, id))) return notApplicable('the response came with the first event that had an id; nothing left to resume');
    const g = await raw(ctx, 'GET', { ...s.headers, accept: 'text/event-stream', 'last-event-id': String(last.id) }, undefined, {
      readMs: 3000,
      until: (t) => sseEvents(t).some((e) => isResponse(e, id)),
    });
    if (g.status === 405) return notApplicable('GET is not offered (405): no resumption');
    if (sseEvents(g.text).some((e) => isResponse(e, id))) return pass(`resumed after ${JSON.stringify(last.id)}, the response arrived`);
    return violated(
      `the stream SHOULD eventually include the response to the request; the client lost the stream of "${id}" after event ${JSON.stringify(last.id)} and resumed with Last-Event-ID, but the response never came (HTTP ${g.status})`,
      `GET Last-Event-ID: ${String(last.id)} → HTTP ${g.status} ${excerpt(g.text || '(empty)', 200)}`,
    );
  },
);

export const concurrentStreams = httpCheck(
  {
    id: 'http.concurrent-streams',
    title: 'several POST SSE streams at once: each is answered, each response on its own stream only',
    clause: 'basic.transports#34',
    level: 'MUST',
  },
  async (ctx, s) => {
    const ids = [60, 61, 62];
    const rs = await Promise.all(ids.map((n) => raw(ctx, 'POST', s.headers, ping(n), { until: (t) => sseEvents(t).some((e) => isResponse(e, `mcpwire-check-${n}`)) })));
    for (let i = 0; i < ids.length; i++) {
      const own = `mcpwire-check-${ids[i]}`;
      const r = rs[i];
      const msgs = isSse(r) ? sseEvents(r.text).map((e) => e.data) : [r.text];
      const foreign = ids.map((n) => `mcpwire-check-${n}`).find((other) => other !== own && msgs.some((d) => d.includes(`"${other}"`)));
      if (foreign !== undefined) {
        return violated(`the server MUST NOT broadcast a message across streams; the stream of "${own}" carried the response to "${foreign}"`, excerpt(r.text, 300));
      }
      if (!msgs.some((d) => d.includes(`"${own}"`))) {
        return violated(`three concurrent requests: "${own}" got no response on its stream (HTTP ${r.status})`, `HTTP ${r.status} ${excerpt(r.text || '(empty)', 200)}`, { level: 'SHOULD', clause: 'basic.transports#24' });
      }
    }
    return pass(`${ids.length} concurrent requests, each answered on its own stream`);
  },
);

export const hostHeader = httpCheck(
  {
    id: 'http.host-validated',
    title: 'a foreign Host header is refused even with a valid Origin; the server\'s own Host is accepted',
    clause: 'basic.transports#8',
    level: 'SHOULD',
  },
  async (ctx) => {
    const url = new URL((ctx.target as HttpServerConfig).url);
    const own = { origin: url.origin };
    const bad = await raw(ctx, 'POST', { ...own, host: `mcpwire-check.invalid${url.port ? `:${url.port}` : ''}` }, initBody(7));
    const good = await raw(ctx, 'POST', { ...own, host: url.host }, initBody(8));
    for (const r of [bad, good]) {
      const sid = r.headers['mcp-session-id'];
      if (typeof sid === 'string') await raw(ctx, 'DELETE', { 'mcp-session-id': sid }).catch(() => undefined);
    }
    if (good.status < 200 || good.status > 299) return notApplicable(`an initialize with the server's own Host (${url.host}) got HTTP ${good.status}`);
    if (bad.status >= 400 && bad.status < 500) return pass(`foreign Host: HTTP ${bad.status}; own Host: HTTP ${good.status}`);
    return violated(
      `servers validate requests against DNS rebinding; an initialize with Host "mcpwire-check.invalid" (and a valid Origin ${url.origin}) SHOULD get HTTP 4xx, it got HTTP ${bad.status}`,
      `HTTP ${bad.status} ${excerpt(bad.text, 200)}`,
    );
  },
);

export const httpStreamChecks = [ssePriming, sseRetry, resumeDelivers, concurrentStreams, hostHeader];
