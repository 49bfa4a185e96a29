/**
 * OpenTelemetry (src/mcp/telemetry.ts): with @opentelemetry/api installed and a
 * recording tracer registered, each request the client sends is a CLIENT span following the
 * semantic conventions for MCP, and its W3C trace context travels in `params._meta`. The SDK is
 * not a dependency: a minimal recording TracerProvider and W3C propagator stand in for it here.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as api from '@opentelemetry/api';
import { connect, type McpClient } from '../../src/index.js';
import { sessionTag } from '../../src/trace/session-tag.js';
// @ts-expect-error a plain .mjs mock without types
import { startHttpMock } from '../../mock-servers/http-server.mjs';

const root = path.resolve(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '..');
const MOCK = path.join(root, 'mock-servers/stdio-server.mjs');

interface Recorded {
  name: string;
  kind: api.SpanKind | undefined;
  attributes: Record<string, unknown>;
  status: api.SpanStatus;
  ctx: api.SpanContext;
  ended: boolean;
}

class RecordingSpan implements api.Span {
  constructor(readonly rec: Recorded) {}
  spanContext() {
    return this.rec.ctx;
  }
  setAttribute(k: string, v: api.AttributeValue) {
    this.rec.attributes[k] = v;
    return this;
  }
  setAttributes(a: api.Attributes) {
    Object.assign(this.rec.attributes, a);
    return this;
  }
  addEvent() {
    return this;
  }
  addLink() {
    return this;
  }
  addLinks() {
    return this;
  }
  setStatus(s: api.SpanStatus) {
    this.rec.status = s;
    return this;
  }
  updateName(n: string) {
    this.rec.name = n;
    return this;
  }
  end() {
    this.rec.ended = true;
  }
  isRecording() {
    return !this.rec.ended;
  }
  recordException() {}
}

const spans: Recorded[] = [];
const provider: api.TracerProvider = {
  getTracer: () => ({
    startSpan(name: string, options?: api.SpanOptions) {
      const rec: Recorded = {
        name,
        kind: options?.kind,
        attributes: { ...(options?.attributes ?? {}) },
        status: { code: api.SpanStatusCode.UNSET },
        ctx: { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: api.TraceFlags.SAMPLED },
        ended: false,
      };
      spans.push(rec);
      return new RecordingSpan(rec);
    },
    startActiveSpan: (() => {
      throw new Error('not used');
    }) as unknown as api.Tracer['startActiveSpan'],
  }),
};
/** W3C trace context (what @opentelemetry/core's W3CTraceContextPropagator writes). */
const w3c: api.TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const sc = api.trace.getSpanContext(ctx);
    if (sc === undefined || !api.isSpanContextValid(sc)) return;
    setter.set(carrier, 'traceparent', `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags.toString(16)}`);
  },
  extract: (ctx) => ctx,
  fields: () => ['traceparent', 'tracestate'],
};

const sent: Array<Record<string, unknown>> = [];
const observer = {
  message(dir: 'in' | 'out', msg: unknown) {
    if (dir === 'out') sent.push(msg as Record<string, unknown>);
  },
  event() {},
};
const clients: McpClient[] = [];
beforeEach(() => {
  spans.length = 0;
  sent.length = 0;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  api.trace.disable();
  api.propagation.disable();
});

async function open(options: Record<string, unknown> = {}): Promise<McpClient> {
  const c = await connect({ transport: 'stdio', command: process.execPath, args: [MOCK], id: 'mock' }, { observer, ...options });
  clients.push(c);
  return c;
}

const sentFor = (method: string) => sent.filter((m) => m.method === method);
const meta = (m: Record<string, unknown> | undefined) => (m?.params as { _meta?: Record<string, unknown> } | undefined)?._meta;

describe('OpenTelemetry spans for MCP requests', () => {
  it('a recording tracer gets one CLIENT span per request, named and attributed as the MCP conventions say; traceparent in params._meta', async () => {
    api.trace.setGlobalTracerProvider(provider);
    api.propagation.setGlobalPropagator(w3c);
    const c = await open();
    await c.listTools();
    await c.callTool('echo', { text: 'hi' }, { _meta: { mine: 1 } });
    const toolError = await c.callTool('fail', {});
    expect(toolError.isError).toBe(true);
    await expect(c.request('no/such/method', {})).rejects.toMatchObject({ rpcCode: -32601 });

    // The era probe comes first: this handshake-only mock refuses server/discover, so the client
    // falls back to initialize — both are requests, each with its span.
    expect(spans.map((s) => s.name)).toEqual(['server/discover', 'initialize', 'tools/list', 'tools/call echo', 'tools/call fail', 'no/such/method']);
    expect(spans.every((s) => s.kind === api.SpanKind.CLIENT && s.ended)).toBe(true);
    const [probe, init, list, echo, fail, missing] = spans;
    expect(probe.attributes).toMatchObject({ 'mcp.method.name': 'server/discover', 'network.transport': 'pipe' });
    expect(init.attributes).toMatchObject({ 'mcp.method.name': 'initialize', 'network.transport': 'pipe' });
    expect(list.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2025-11-25', 'network.transport': 'pipe' });
    expect(echo.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo' });
    expect(echo.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(fail.attributes['error.type']).toBe('tool_error');
    expect(fail.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(missing.attributes).toMatchObject({ 'error.type': '-32601', 'rpc.response.status_code': '-32601' });
    expect(missing.status).toEqual({ code: api.SpanStatusCode.ERROR });

    // The span's own context went out with the request, beside the caller's own _meta.
    const echoSent = sentFor('tools/call')[0];
    expect(meta(echoSent)).toEqual({ mine: 1, traceparent: `00-${echo.ctx.traceId}-${echo.ctx.spanId}-01` });
    expect(meta(sentFor('initialize')[0])?.traceparent).toBe(`00-${init.ctx.traceId}-${init.ctx.spanId}-01`);
  });

  it('telemetry: false — no span, nothing added to the request', async () => {
    api.trace.setGlobalTracerProvider(provider);
    api.propagation.setGlobalPropagator(w3c);
    const c = await open({ telemetry: false });
    await c.callTool('echo', { text: 'hi' });
    expect(spans).toHaveLength(0);
    expect(meta(sentFor('tools/call')[0])).toBeUndefined();
  });

  it('no SDK registered (the API alone): nothing is recorded and the request is sent as given', async () => {
    const c = await open();
    await c.callTool('echo', { text: 'hi' });
    expect(spans).toHaveLength(0);
    expect(meta(sentFor('tools/call')[0])).toBeUndefined();
    expect(sentFor('initialize')[0].params).not.toHaveProperty('_meta');
  });

  it('an explicit tracer is used as given (no global registration needed)', async () => {
    api.propagation.setGlobalPropagator(w3c);
    const c = await open({ telemetry: { tracer: provider.getTracer('app') } });
    await c.listPrompts().catch(() => {});
    await c.readResource('mock://readme').catch(() => {});
    expect(spans.map((s) => s.name)).toContain('initialize');
    const read = spans.find((s) => s.name === 'resources/read');
    expect(read?.attributes['mcp.resource.uri']).toBe('mock://readme');
  });

  it('over HTTP: network.transport tcp, server.address/port, and the session as its hash, never the id', async () => {
    api.trace.setGlobalTracerProvider(provider);
    api.propagation.setGlobalPropagator(w3c);
    const m = (await startHttpMock({})) as { url: string; port: number; close(): Promise<void> };
    try {
      const c = await connect({ transport: 'http', url: m.url, id: 'http-mock' }, { observer });
      clients.push(c);
      await c.listTools();
      const list = spans.find((x) => x.name === 'tools/list')!;
      expect(c.sessionId).toBeTruthy();
      expect(list.attributes).toMatchObject({ 'network.transport': 'tcp', 'server.address': '127.0.0.1', 'server.port': m.port, 'mcp.session.id': sessionTag(c.sessionId!) });
      expect(JSON.stringify(spans)).not.toContain(c.sessionId!);
    } finally {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await m.close();
    }
  });
});
