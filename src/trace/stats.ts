/**
 * `trace stats`: per server and method, how many requests/notifications, how many errors, and
 * latency percentiles (nearest-rank) over the answered requests.
 */
import { isMessageRecord, type TraceRecord } from './record.js';
import { eraText, pairExchanges, round3, sessionEras, type SessionEra } from './read.js';
import { safeText } from './text.js';

export interface MethodStats {
  server: string;
  /** `out` = the client sent the request/notification, `in` = the server did. */
  dir: 'in' | 'out';
  method: string;
  kind: 'request' | 'notification';
  count: number;
  /** Requests answered with a JSON-RPC error. */
  errors: number;
  /** Requests with no response in the trace. */
  unanswered: number;
  p50?: number;
  p95?: number;
  p99?: number;
  max?: number;
}

export interface TraceStats {
  messages: number;
  events: number;
  /** Number of `schema` events (strict-mode violations). */
  schemaViolations: number;
  /** The protocol era (and version) of each server and session, as far as the trace shows it. */
  eras: SessionEra[];
  methods: MethodStats[];
}

/** Nearest-rank percentile of an ascending-sorted list. */
export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export function computeStats(records: TraceRecord[]): TraceStats {
  const rows = new Map<string, MethodStats & { latencies: number[] }>();
  let messages = 0;
  let events = 0;
  let schemaViolations = 0;
  const row = (server: string, dir: 'in' | 'out', method: string, kind: 'request' | 'notification') => {
    const key = `${server}\u0000${dir}\u0000${kind}\u0000${method}`;
    let r = rows.get(key);
    if (!r) {
      r = { server, dir, method, kind, count: 0, errors: 0, unanswered: 0, latencies: [] };
      rows.set(key, r);
    }
    return r;
  };
  for (const r of records) {
    if (isMessageRecord(r)) {
      messages++;
      if (r.kind === 'notification') row(r.server, r.dir, String(r.method ?? '?'), 'notification').count++;
    } else {
      events++;
      if ((r as { event?: string }).event === 'schema') schemaViolations++;
    }
  }
  for (const ex of pairExchanges(records).exchanges) {
    const q = ex.request;
    const r = row(q.server, q.dir, String(q.method ?? '?'), 'request');
    r.count++;
    if (!ex.response) r.unanswered++;
    else if (ex.response.kind === 'error') r.errors++;
    if (ex.latencyMs !== undefined) r.latencies.push(ex.latencyMs);
  }
  const methods = [...rows.values()].map(({ latencies, ...rest }) => {
    latencies.sort((a, b) => a - b);
    const out: MethodStats = { ...rest };
    if (latencies.length) {
      out.p50 = round3(percentile(latencies, 50)!);
      out.p95 = round3(percentile(latencies, 95)!);
      out.p99 = round3(percentile(latencies, 99)!);
      out.max = round3(latencies[latencies.length - 1]);
    }
    return out;
  });
  methods.sort((a, b) => a.server.localeCompare(b.server) || b.count - a.count || a.method.localeCompare(b.method));
  return { messages, events, schemaViolations, eras: sessionEras(records), methods };
}

function ms(n: number | undefined): string {
  return n === undefined ? '-' : n.toFixed(n < 10 ? 3 : 1);
}

/** A plain-text table (no colors). */
export function formatStats(stats: TraceStats): string {
  const headers = ['server', 'dir', 'method', 'count', 'errors', 'no reply', 'p50 ms', 'p95 ms', 'p99 ms'];
  const rows = stats.methods.map((m) => [
    safeText(m.server, 40),
    m.dir === 'out' ? 'c→s' : 's→c',
    safeText(m.method, 60) + (m.kind === 'notification' ? ' (notif.)' : ''),
    String(m.count),
    m.kind === 'request' ? String(m.errors) : '-',
    m.kind === 'request' ? String(m.unanswered) : '-',
    ms(m.p50),
    ms(m.p95),
    ms(m.p99),
  ]);
  const numeric = new Set([3, 4, 5, 6, 7, 8]);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const lines = [fmt(headers), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)];
  lines.push('', `${stats.messages} messages, ${stats.events} events, ${stats.schemaViolations} schema violations`);
  // One line per server and era; a tap relaying many sessions says how many.
  const eras = new Map<string, number>();
  for (const e of stats.eras) {
    const line = `era: ${safeText(e.server, 40)} ${safeText(eraText(e), 40)}`;
    eras.set(line, (eras.get(line) ?? 0) + 1);
  }
  for (const [line, n] of eras) lines.push(n > 1 ? `${line} (${n} sessions)` : line);
  return lines.join('\n');
}
