/**
 * Reading traces: parses trace lines (format in `record.ts`). A truncated last line (a process
 * killed mid-write) is tolerated and reported; other unreadable lines are counted and skipped.
 * Everything read is untrusted data: consumers must escape it before display.
 */
import { readFile } from 'node:fs/promises';
import { isMessageRecord, type TraceMessageRecord, type TraceRecord } from './record.js';

export interface ParsedTrace {
  records: TraceRecord[];
  /** Lines that were not trace records (1-based line numbers), excluding a truncated last line. */
  badLines: number[];
  /** True when the last line was cut off mid-record. */
  truncated: boolean;
}

function isRecord(v: unknown): v is TraceRecord {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return typeof r.t === 'number' && (typeof r.event === 'string' || r.dir === 'in' || r.dir === 'out');
}

/** Parses the text of a trace file. */
export function parseTrace(text: string): ParsedTrace {
  const lines = text.split('\n');
  const records: TraceRecord[] = [];
  const badLines: number[] = [];
  let truncated = false;
  const lastIndex = text.endsWith('\n') ? lines.length - 2 : lines.length - 1;
  for (let i = 0; i <= lastIndex; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lastIndex && !text.endsWith('\n')) truncated = true;
      else badLines.push(i + 1);
      continue;
    }
    if (isRecord(value)) records.push(value);
    else badLines.push(i + 1);
  }
  return { records, badLines, truncated };
}

/** Reads and parses a trace file. */
export async function readTrace(file: string): Promise<ParsedTrace> {
  return parseTrace(await readFile(file, 'utf8'));
}

/** A request and what answered it (if anything), matched by server, direction and id. */
export interface Exchange {
  request: TraceMessageRecord;
  response?: TraceMessageRecord;
  /** The response's `latency_ms`, or the difference of the two `t`s. */
  latencyMs?: number;
}

function pairKey(server: string, requestDir: string, id: unknown): string {
  return `${server}\u0000${requestDir}\u0000${typeof id}:${String(id)}`;
}

/**
 * Pairs requests with their responses. Returns the exchanges in request order and, for each
 * response record, the exchange it closes.
 */
export function pairExchanges(records: TraceRecord[]): { exchanges: Exchange[]; byResponse: Map<TraceRecord, Exchange> } {
  const open = new Map<string, Exchange>();
  const exchanges: Exchange[] = [];
  const byResponse = new Map<TraceRecord, Exchange>();
  for (const r of records) {
    if (!isMessageRecord(r)) continue;
    if (r.kind === 'request') {
      const ex: Exchange = { request: r };
      exchanges.push(ex);
      open.set(pairKey(r.server, r.dir, r.id), ex);
    } else if (r.kind === 'result' || r.kind === 'error') {
      const key = pairKey(r.server, r.dir === 'in' ? 'out' : 'in', r.id);
      const ex = open.get(key);
      if (!ex) continue;
      open.delete(key);
      ex.response = r;
      ex.latencyMs = typeof r.latency_ms === 'number' ? r.latency_ms : round3(r.t - ex.request.t);
      byResponse.set(r, ex);
    }
  }
  return { exchanges, byResponse };
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
