/**
 * `mcpwire/trace` — reading, rendering and redacting traces: `parseTrace`, `readTrace`,
 * `pairExchanges`, `renderShow`, `computeStats`/`formatStats`, `renderHtml`, `Redactor`/`redact`,
 * and the tracer itself. A separate entry point so that `import('mcpwire')` does not load the
 * trace readers, renderers and the redactor (docs/performance.md "Module load"); the root keeps
 * `createTracer`, `traceTarget`, `loadStrict` and `TRACE_FORMAT_VERSION`.
 *
 * ```ts
 * import { readTrace, renderShow } from 'mcpwire/trace';
 * const trace = await readTrace('session.jsonl');
 * console.log(renderShow(trace.records));
 * ```
 */
export * from './trace/index.js';
