/**
 * Tracing: the trace writer (a ProtocolObserver), redaction, strict schema checks, and the
 * readers behind `mcpwire trace show|stats|html`. The writer (tracer.ts, with pino) and the
 * strict checker (with ajv) are loaded when first used: `import('mcpwire')` does not load them.
 */
import type { Tracer, TracerOptions } from './tracer.js';

export { traceTarget } from './target.js';
export type { Tracer, TracerOptions, TraceWarning } from './tracer.js';

/**
 * Creates a tracer for one server connection (`tracer.ts`, loaded on the first call). Pass it as
 * the client's `observer`. Several tracers may share one file (lines never interleave mid-line).
 */
export async function createTracer(options: TracerOptions): Promise<Tracer> {
  const { createTracer: create } = await import('./tracer.js');
  return create(options);
}
export { Redactor, redact, REDACTED, DEFAULT_MAX_STRING_BYTES } from './redact.js';
export type { RedactOptions } from './redact.js';
export { TRACE_FORMAT_VERSION, isMessageRecord, isEventRecord } from './record.js';
export type { TraceRecord, TraceMessageRecord, TraceEventRecord, TraceRecordBase } from './record.js';
export { parseTrace, readTrace, pairExchanges } from './read.js';
export type { ParsedTrace, Exchange } from './read.js';
export { renderShow } from './show.js';
export type { ShowOptions } from './show.js';
export { computeStats, formatStats, percentile } from './stats.js';
export type { TraceStats, MethodStats } from './stats.js';
export { renderHtml } from './html.js';
export type { HtmlOptions } from './html.js';
export type { Violation, ValidateInfo } from './strict.js';

/** Loads the strict checker (and ajv) on demand: `(await loadStrict()).validateMessage(…)`. */
export function loadStrict(): Promise<typeof import('./strict.js')> {
  return import('./strict.js');
}
