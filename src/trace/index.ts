/**
 * Tracing: the trace writer (a ProtocolObserver), redaction, strict schema checks, and the
 * readers behind `mcpwire trace show|stats|html`. The writer and the strict checker load pino
 * and ajv lazily; importing this module costs nothing more than its own code.
 */
export { createTracer, traceTarget } from './tracer.js';
export type { Tracer, TracerOptions, TraceWarning } from './tracer.js';
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
