/**
 * Debugging other hosts' sessions: `mcpwire tap` (a relay that traces what passes, stdio or
 * HTTP), `mcpwire replay` (a trace served back as an MCP server) and `mcpwire trace diff`
 * (two sessions compared at the protocol level). Loaded on demand through `loadTap()`.
 */
export { runStdioTap, secretEnvValues, defaultServerName } from './stdio.js';
export type { StdioTapOptions, TapExit } from './stdio.js';
export { startHttpTap, parseListen } from './http.js';
export type { HttpTapOptions, HttpTap } from './http.js';
export { Recorder, LineSplitter } from './recorder.js';
export { buildScript, ReplaySession, ReplayScriptError, formatSummary, NOT_RECORDED } from './replay.js';
export type { ReplayScript, RecordedExchange, ReplaySummary, Mismatch, MatchMode, ServerAction } from './replay.js';
export { serveReplayStdio, serveReplayHttp } from './replay-serve.js';
export type { ReplayServer } from './replay-serve.js';
export { normalizeParams, sameValue, similarity } from './match.js';
export { diffTraces, formatDiff, firstDifference } from './diff.js';
export type { TraceDiff, DiffOptions, CatalogDiff, ValueChange, LatencyRow, Divergence } from './diff.js';
// Trace readers the CLI's `trace show --follow` uses (live tail of a growing trace, e.g. a tap's).
export { followTrace } from '../trace/read.js';
export { createShowRenderer, isMultiProcess, orderByTime } from '../trace/show.js';
export { safeText } from '../trace/text.js';
