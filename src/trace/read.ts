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

/** Ids are unique per connection: per server and session (a tap gives each relayed connection its own). */
function pairKey(server: string, session: string | undefined, requestDir: string, id: unknown): string {
  return `${server}\u0000${session ?? ''}\u0000${requestDir}\u0000${typeof id}:${String(id)}`;
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
      open.set(pairKey(r.server, r.session, r.dir, r.id), ex);
    } else if (r.kind === 'result' || r.kind === 'error') {
      let key = pairKey(r.server, r.session, r.dir === 'in' ? 'out' : 'in', r.id);
      // The request that opened a session (initialize) was sent before the session was known.
      if (!open.has(key) && r.session !== undefined) key = pairKey(r.server, undefined, r.dir === 'in' ? 'out' : 'in', r.id);
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

export interface FollowOptions {
  /** Stop following when aborted. */
  signal?: AbortSignal;
  /** How often to look for new lines (ms). Default 150. */
  pollMs?: number;
}

/**
 * `trace show --follow`: calls `onRecords` with what the file holds, then with each batch of
 * complete lines appended later (a line still being written waits for its newline), until the
 * signal aborts. A file that does not exist yet is waited for; a file that shrank (rewritten)
 * is read again from its start. Unreadable lines are skipped (counted in `onBad`).
 */
export async function followTrace(file: string, onRecords: (records: TraceRecord[]) => void, options: FollowOptions = {}, onBad?: (line: string) => void): Promise<void> {
  const { open, stat } = await import('node:fs/promises');
  const pollMs = options.pollMs ?? 150;
  let pos = 0;
  let partial = '';
  const decoder = new TextDecoder('utf-8');
  const wait = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', done);
        resolve();
      }
      options.signal?.addEventListener('abort', done, { once: true });
    });
  while (!options.signal?.aborted) {
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch {
      await wait();
      continue;
    }
    if (size < pos) {
      pos = 0;
      partial = '';
    }
    if (size > pos) {
      const fh = await open(file, 'r');
      try {
        const buf = Buffer.allocUnsafe(Math.min(size - pos, 8 * 1024 * 1024));
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        pos += bytesRead;
        const text = partial + decoder.decode(buf.subarray(0, bytesRead), { stream: true });
        const nl = text.lastIndexOf('\n');
        partial = nl < 0 ? text : text.slice(nl + 1);
        if (nl >= 0) {
          const parsed = parseTrace(text.slice(0, nl + 1));
          if (onBad) for (const n of parsed.badLines) onBad(text.split('\n')[n - 1] ?? '');
          if (parsed.records.length) onRecords(parsed.records);
        }
      } finally {
        await fh.close();
      }
      if (pos < size) continue;
    }
    await wait();
  }
}
