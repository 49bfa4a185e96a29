/**
 * OpenTelemetry spans for MCP requests, following the semantic conventions for MCP
 * (opentelemetry.io/docs/specs/semconv/gen-ai/mcp, status: development):
 *
 * - one CLIENT span per request the client sends, named `{mcp.method.name} {target}` where the
 *   target is the tool or prompt name (`tools/call get_weather`), else just the method;
 * - attributes `mcp.method.name`, `mcp.protocol.version`, `mcp.session.id`, `jsonrpc.request.id`
 *   (not known here: the connection assigns ids; left out), `gen_ai.operation.name`
 *   (`execute_tool` for tools/call), `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
 *   `network.transport` (`pipe` for stdio, `tcp` for HTTP), `server.address`/`server.port`;
 * - on failure: status ERROR, `error.type` (the JSON-RPC error code, `tool_error` for a result
 *   with `isError`, else the error's stable code such as `MCPWIRE_TIMEOUT`) and
 *   `rpc.response.status_code` for JSON-RPC errors;
 * - W3C trace context (`traceparent`, `tracestate`) injected into the request's `params._meta`
 *   (the conventions' propagation for MCP), so a server that reads it joins the trace.
 *
 * `mcp.session.id` is not the HTTP session id (a bearer credential, never exported) but its
 * short hash, as in traces (`sessionTag`).
 *
 * `@opentelemetry/api` is an optional peer dependency, imported (lazily, at connect time) only
 * when an SDK has registered a global tracer provider before the client connects (or a tracer is
 * given): otherwise nothing here runs and nothing is loaded. A tracer whose spans do not record
 * (sampled out) costs one `startSpan` per request: no attribute is computed, nothing injected.
 */
import { sessionTag } from '../trace/session-tag.js';

type OtelApi = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;
type OtelTracer = import('@opentelemetry/api').Tracer;

/**
 * `ClientOptions.telemetry`: `'auto'` (default) uses @opentelemetry/api when installed; `false`
 * never; `{ tracer }` an OpenTelemetry `Tracer` of yours (typed loosely here so that the public
 * types do not need @opentelemetry/api installed).
 */
export type TelemetryOption = 'auto' | false | { tracer: { startSpan(name: string, ...rest: never[]): unknown } };

/** What a span needs to know about the connection at request time. */
export interface TelemetryTarget {
  transportKind(): string | undefined;
  url: string | undefined;
  protocolVersion(): string | undefined;
  sessionId(): string | undefined;
}

export interface RequestSpan {
  /** The params to send: with `_meta.traceparent` when the span is recording. */
  params: Record<string, unknown> | undefined;
  end(outcome: { result?: unknown; error?: unknown }): void;
}

const INSTRUMENTATION = 'mcpwire';
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');
let apiLoad: Promise<OtelApi | undefined> | undefined;

/** Loads @opentelemetry/api once per process; undefined when it is not installed. */
function loadApi(): Promise<OtelApi | undefined> {
  apiLoad ??= import('@opentelemetry/api').then(
    // The namespace (its `default` is the API object alone, without SpanKind and friends).
    (m) => m as OtelApi,
    () => undefined,
  );
  return apiLoad;
}

export class Telemetry {
  private constructor(
    private readonly api: OtelApi,
    private readonly tracer: OtelTracer,
    private readonly target: TelemetryTarget,
  ) {}

  /** The telemetry of one client, or undefined (off, or @opentelemetry/api not installed). */
  static async create(option: TelemetryOption | undefined, target: TelemetryTarget, version: string): Promise<Telemetry | undefined> {
    if (option === false) return undefined;
    // 'auto': only when an OpenTelemetry SDK has registered a tracer provider (the API keeps its
    // registrations on this global symbol, shared by every copy of @opentelemetry/api 1.x). Until
    // then nothing is imported: the API alone would only make non-recording spans.
    if ((option ?? 'auto') === 'auto' && (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_GLOBAL]?.trace === undefined) return undefined;
    const api = await loadApi();
    if (api === undefined) return undefined;
    const tracer = option !== undefined && option !== 'auto' ? (option.tracer as unknown as OtelTracer) : api.trace.getTracer(INSTRUMENTATION, version);
    return new Telemetry(api, tracer, target);
  }

  start(method: string, params: Record<string, unknown> | undefined): RequestSpan | undefined {
    const { api } = this;
    const name = typeof params?.name === 'string' && (method === 'tools/call' || method === 'prompts/get') ? `${method} ${params.name}` : method;
    const span = this.tracer.startSpan(name, { kind: api.SpanKind.CLIENT }, api.context.active());
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    span.setAttributes(this.attributes(method, params));
    const ctx = api.trace.setSpan(api.context.active(), span);
    const carrier: Record<string, string> = {};
    api.propagation.inject(ctx, carrier);
    const meta = params?._meta;
    const out =
      Object.keys(carrier).length === 0
        ? params
        : { ...(params ?? {}), _meta: { ...(meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {}), ...carrier } };
    return { params: out, end: (o) => this.finish(span, o) };
  }

  private attributes(method: string, params: Record<string, unknown> | undefined): Record<string, string | number> {
    const a: Record<string, string | number> = { 'mcp.method.name': method };
    const version = this.target.protocolVersion();
    if (version !== undefined) a['mcp.protocol.version'] = version;
    const session = this.target.sessionId();
    if (session !== undefined && session !== '') a['mcp.session.id'] = sessionTag(session);
    const kind = this.target.transportKind();
    if (kind !== undefined) a['network.transport'] = kind === 'stdio' ? 'pipe' : 'tcp';
    if (this.target.url !== undefined && kind !== 'stdio') {
      try {
        const u = new URL(this.target.url);
        a['server.address'] = u.hostname.replace(/^\[|\]$/g, '');
        a['server.port'] = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
      } catch {
        // not a URL: no address attributes
      }
    }
    const name = typeof params?.name === 'string' ? params.name : undefined;
    if (method === 'tools/call') {
      a['gen_ai.operation.name'] = 'execute_tool';
      if (name !== undefined) a['gen_ai.tool.name'] = name;
    } else if (method === 'prompts/get' && name !== undefined) {
      a['gen_ai.prompt.name'] = name;
    }
    if (typeof params?.uri === 'string' && method.startsWith('resources/')) a['mcp.resource.uri'] = params.uri;
    return a;
  }

  private finish(span: Span, o: { result?: unknown; error?: unknown }): void {
    const { api } = this;
    if (o.error !== undefined) {
      // The error's text stays out of the span (a server may echo anything into it): its type says what failed.
      const e = o.error as { code?: unknown; rpcCode?: unknown; name?: unknown };
      const rpc = typeof e?.rpcCode === 'number' ? e.rpcCode : undefined;
      const type = rpc !== undefined ? String(rpc) : typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : '_OTHER';
      span.setAttribute('error.type', type);
      if (rpc !== undefined) span.setAttribute('rpc.response.status_code', String(rpc));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    } else if ((o.result as { isError?: unknown } | undefined)?.isError === true) {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** Ends `span` when `p` settles, with its result or error; `p`'s outcome is unchanged. */
export function ended<T>(p: Promise<T>, span: RequestSpan): Promise<T> {
  return p.then(
    (result) => {
      span.end({ result });
      return result;
    },
    (error: unknown) => {
      span.end({ error });
      throw error;
    },
  );
}
