/**
 * `trace show`: a readable timeline. One line per record; requests show how long their answer
 * took, answers name the request's method and latency; events are interleaved in time order.
 * All trace text is untrusted: control characters are stripped before it reaches a terminal.
 */
import { isMessageRecord, type TraceEventRecord, type TraceMessageRecord, type TraceRecord } from './record.js';
import { eraEvidence, eraText, exchangeOf, pairExchanges, pairKey, wallTime, Waiting, type Exchange } from './read.js';
import { preview, safeText } from './text.js';

export interface ShowOptions {
  /** ANSI colors. */
  color?: boolean;
}

const ANSI = { reset: '\x1b[0m', dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', magenta: '\x1b[35m', cyan: '\x1b[36m', bold: '\x1b[1m' };
type Paint = (style: keyof typeof ANSI, s: string) => string;

function idText(id: unknown): string {
  return id === undefined ? '' : ` #${safeText(typeof id === 'string' ? JSON.stringify(id) : String(id), 40)}`;
}

function ms(n: number): string {
  return `${n.toFixed(3)} ms`;
}

function params(msg: unknown): Record<string, unknown> | undefined {
  const p = (msg as { params?: unknown } | null)?.params;
  return p !== null && typeof p === 'object' ? (p as Record<string, unknown>) : undefined;
}

/**
 * A short, method-aware summary of a message's content; an `initialize` or `server/discover`
 * result names the era it opens (`era modern 2026-07-28`). `request`: what an answer answers.
 */
function summary(r: TraceMessageRecord, request?: TraceMessageRecord): string {
  const msg = r.msg as Record<string, unknown> | null;
  if (r.kind === 'error') {
    const e = (msg?.error ?? {}) as Record<string, unknown>;
    return `${safeText(e.code, 12)} ${safeText(e.message, 100)}`;
  }
  if (r.kind === 'result') {
    const method = r.method ?? request?.method;
    const era = method === 'initialize' || method === 'server/discover' ? eraEvidence(r.dir, r.kind, method, r.msg, request?.msg) : undefined;
    return era ? `era ${safeText(eraText(era), 40)}` : '';
  }
  if (r.kind === 'invalid') return preview(msg, 100);
  const p = params(msg);
  if (!p) return '';
  switch (r.method) {
    case 'tools/call':
    case 'prompts/get':
      return safeText(p.name, 60);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
    case 'notifications/resources/updated':
      return safeText(p.uri, 100);
    case 'notifications/progress':
      return `${safeText(p.progress, 20)}${p.total !== undefined ? `/${safeText(p.total, 20)}` : ''}${p.message !== undefined ? ` ${safeText(p.message, 60)}` : ''}`;
    case 'notifications/message':
      return `${safeText(p.level, 12)} ${preview(p.data, 80)}`;
    case 'notifications/cancelled':
      return `request${idText(p.requestId)}${p.reason !== undefined ? `: ${safeText(p.reason, 60)}` : ''}`;
    case 'initialize':
      return `${safeText(p.protocolVersion, 20)}`;
    default:
      return Object.keys(p).length ? preview(p, 60) : '';
  }
}

function fields(e: TraceEventRecord, skip: string[]): string {
  const base = new Set(['v', 't', 'ts', 'server', 'transport', 'tap', 'session', 'event', ...skip]);
  return Object.entries(e)
    .filter(([k, v]) => !base.has(k) && v !== undefined)
    .map(([k, v]) => `${safeText(k, 30)}=${typeof v === 'string' ? safeText(v, 80) : preview(v, 80)}`)
    .join(' ');
}

function eventText(e: TraceEventRecord): string {
  switch (e.event) {
    case 'lifecycle':
      return `${safeText(e.from, 30)} → ${safeText(e.to, 30)}`;
    case 'transport':
      return `${safeText(e.type, 30)} ${fields(e, ['type'])}`.trim();
    case 'timeout':
      return `${safeText(e.method, 60)}${idText(e.id)} after ${safeText(e.timeoutMs, 12)} ms`;
    case 'cancel':
      return `${safeText(e.method, 60)}${idText(e.id)}: ${safeText(e.reason, 100)}`;
    case 'diagnostic':
      return `${safeText(e.code, 40)}: ${safeText(e.message, 160)}`;
    case 'late-response':
      return `response${idText(e.id)} after cancel/timeout`;
    case 'era':
      return `${safeText(e.era, 12)}${e.version !== undefined ? ` ${safeText(e.version, 20)}` : ''}`;
    case 'schema':
      return `${e.dir === 'out' ? 'client' : 'server'} ${safeText(e.kind, 12)} ${safeText(e.method ?? '', 60)}${idText(e.id)} ${safeText(e.instancePath || '/', 80)}: ${safeText(e.message, 120)} (${safeText(e.schemaPath, 80)})`;
    default:
      return fields(e, []);
  }
}

function messageLine(r: TraceMessageRecord, ex: Exchange | undefined, answered: Map<TraceRecord, Exchange>, paint: Paint, live = false): string {
  const arrow = r.dir === 'out' ? paint('cyan', '→') : paint('green', '←');
  const kindColor = r.kind === 'error' || r.kind === 'invalid' ? 'red' : r.dir === 'out' ? 'cyan' : 'green';
  const head = `${arrow} ${paint(kindColor, r.kind.padEnd(13))} ${paint('bold', safeText(r.method ?? '?', 60))}${idText(r.id)}`;
  const parts = [head];
  const s = summary(r, answered.get(r)?.request);
  if (s) parts.push(s);
  if (r.kind === 'result' || r.kind === 'error') {
    const closing = answered.get(r);
    const lat = closing?.latencyMs ?? r.latency_ms;
    if (lat !== undefined) parts.push(paint('yellow', ms(lat)));
  } else if (r.kind === 'request' && !live) {
    parts.push(paint('dim', ex?.response ? `(answered in ${ms(ex.latencyMs ?? 0)})` : '(no response)'));
  }
  parts.push(paint('dim', `${r.bytes} B`));
  return parts.join('  ');
}

/**
 * Records in time order. One process writes its lines in order; several processes appending to
 * one file (e.g. a tap per server) interleave by batches, so a file with several `trace-start`
 * lines of different processes is ordered by wall-clock time (`ts`, stable for equal times).
 */
export function orderByTime(records: TraceRecord[]): TraceRecord[] {
  if (!isMultiProcess(records)) return records;
  const keyed = records.map((r, i) => ({ r, i, k: Date.parse(wallTime(r)) }));
  keyed.sort((x, y) => (Number.isNaN(x.k) || Number.isNaN(y.k) ? 0 : x.k - y.k) || x.i - y.i);
  return keyed.map((x) => x.r);
}

/** Whether lines of several processes share the file (their `t` clocks are not comparable). */
export function isMultiProcess(records: TraceRecord[]): boolean {
  const pids = new Set<unknown>();
  for (const r of records) if ((r as TraceEventRecord).event === 'trace-start') pids.add((r as TraceEventRecord).pid);
  return pids.size > 1;
}

/** Requests a live timeline keeps waiting for their answers (a long `--follow` stays bounded). */
const MAX_OPEN = 10_000;

/**
 * A timeline renderer that takes records as they come (`trace show --follow`): a request line
 * cannot know its answer yet, so answers carry the latency instead.
 */
export function createShowRenderer(options: ShowOptions & { serverWidth?: number; wallClock?: boolean } = {}): (r: TraceRecord) => string {
  const paint: Paint = options.color ? (style, s) => `${ANSI[style]}${s}${ANSI.reset}` : (_style, s) => s;
  const open = new Waiting<TraceMessageRecord>();
  const answered = new Map<TraceRecord, Exchange>();
  const width = options.serverWidth ?? 16;
  return (r) => {
    const t = paint('dim', options.wallClock ? safeText(wallTime(r), 30).slice(11, 23).padStart(12) : r.t.toFixed(3).padStart(11));
    const server = safeText(r.server, 24).padEnd(width);
    if (isMessageRecord(r)) {
      if (r.kind === 'request') {
        if (open.size >= MAX_OPEN) open.dropOldest();
        open.add(pairKey(r.server, r.session, r.dir, r.id), exchangeOf(r), r);
      } else if (r.kind === 'result' || r.kind === 'error') {
        const dir = r.dir === 'in' ? 'out' : 'in';
        const keys = [pairKey(r.server, r.session, dir, r.id)];
        if (r.session !== undefined) keys.push(pairKey(r.server, undefined, dir, r.id));
        const q = open.take(keys, exchangeOf(r));
        if (q) {
          answered.set(r, { request: q, response: r, latencyMs: typeof r.latency_ms === 'number' ? r.latency_ms : Math.round((r.t - q.t) * 1000) / 1000 });
        }
      }
      const line = `${t}  ${server}  ${messageLine(r, undefined, answered, paint, true)}`;
      answered.delete(r);
      return line;
    }
    const e = r as TraceEventRecord;
    const color = e.event === 'schema' ? 'magenta' : e.event === 'timeout' || e.event === 'diagnostic' ? 'red' : 'yellow';
    return `${t}  ${server}  ${paint(color, '•')} ${paint(color, safeText(e.event, 13).padEnd(13))} ${eventText(e)}`.trimEnd();
  };
}

/**
 * Renders the timeline; `records` in file order (a file several processes wrote is put in time
 * order first, and shows wall-clock times since their `t` clocks differ).
 */
export function renderShow(records: TraceRecord[], options: ShowOptions = {}): string {
  const wallClock = isMultiProcess(records);
  records = orderByTime(records);
  const paint: Paint = options.color ? (style, s) => `${ANSI[style]}${s}${ANSI.reset}` : (_style, s) => s;
  const { exchanges, byResponse } = pairExchanges(records);
  const byRequest = new Map<TraceRecord, Exchange>();
  for (const ex of exchanges) byRequest.set(ex.request, ex);
  const serverWidth = Math.min(24, Math.max(6, ...records.map((r) => safeText(r.server, 24).length)));
  const out: string[] = [];
  for (const r of records) {
    const t = paint('dim', wallClock ? safeText(wallTime(r), 30).slice(11, 23).padStart(12) : r.t.toFixed(3).padStart(11));
    const server = safeText(r.server, 24).padEnd(serverWidth);
    if (isMessageRecord(r)) {
      out.push(`${t}  ${server}  ${messageLine(r, byRequest.get(r), byResponse, paint)}`);
    } else {
      const e = r as TraceEventRecord;
      const color = e.event === 'schema' ? 'magenta' : e.event === 'timeout' || e.event === 'diagnostic' ? 'red' : 'yellow';
      out.push(`${t}  ${server}  ${paint(color, '•')} ${paint(color, safeText(e.event, 13).padEnd(13))} ${eventText(e)}`.trimEnd());
    }
  }
  return out.join('\n');
}
