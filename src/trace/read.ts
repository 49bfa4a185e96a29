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
export function pairKey(server: string, session: string | undefined, requestDir: string, id: unknown): string {
  return `${server}\u0000${session ?? ''}\u0000${requestDir}\u0000${typeof id}:${String(id)}`;
}

/** An HTTP exchange as readers key it: the tap's tag and number (`tag/n`), or the number alone. */
export type ExchangeKey = string | number;

/**
 * The HTTP exchange a line belongs to (`exchange`: the HTTP tap numbers each request it relays
 * and the answer or stream that comes back), when the line has one. Each tap numbers from 1, so
 * with several taps appending to one file only the tap's tag (`tap`) with the number names one
 * exchange; a line without a tag (a trace written before taps had one) has its number alone.
 */
export function exchangeOf(r: object): ExchangeKey | undefined {
  const { exchange: e, tap } = r as { exchange?: unknown; tap?: unknown };
  if (typeof e !== 'number') return undefined;
  return typeof tap === 'string' ? `${tap}/${e}` : e;
}

/** Requests of one key waiting at once: more would be a client reusing ids without end. */
const MAX_WAITING_PER_KEY = 64;

/**
 * Requests waiting for their answers, by key (server, session, direction, id: ids are unique per
 * connection). Several may wait under one key when their HTTP exchanges differ: two clients of
 * the sessionless 2026-07-28 era through one tap, or two handshake-era clients both sending
 * `initialize` #0 before either has a session. An answer takes the request of its own exchange,
 * else the newest waiting (an answer that came another way: a legacy SSE stream, a client's POST
 * answering a server's request; a line without exchange, e.g. of stdio, where a reused id names
 * the request sent last).
 */
export class Waiting<T> {
  private readonly byKey = new Map<string, Array<{ exchange: ExchangeKey | undefined; value: T }>>();

  /** Keys with something waiting. */
  get size(): number {
    return this.byKey.size;
  }

  add(key: string, exchange: ExchangeKey | undefined, value: T): void {
    const list = this.byKey.get(key);
    if (!list) this.byKey.set(key, [{ exchange, value }]);
    else {
      if (list.length >= MAX_WAITING_PER_KEY) list.shift();
      list.push({ exchange, value });
    }
  }

  /**
   * What an answer of `exchange` answers, looked for under each of `keys` in turn: first a
   * request of the same exchange under any of them, then the newest under the first key that
   * has one. Taken out.
   */
  take(keys: string[], exchange: ExchangeKey | undefined): T | undefined {
    if (exchange !== undefined) {
      for (const key of keys) {
        const list = this.byKey.get(key);
        const i = list ? list.findIndex((w) => w.exchange === exchange) : -1;
        if (i >= 0) return this.remove(key, list!, i);
      }
    }
    for (const key of keys) {
      const list = this.byKey.get(key);
      if (list) return this.remove(key, list, list.length - 1);
    }
    return undefined;
  }

  /** Everything waiting, oldest key first. */
  *entries(): IterableIterator<{ key: string; exchange: ExchangeKey | undefined; value: T }> {
    for (const [key, list] of this.byKey) for (const w of list) yield { key, ...w };
  }

  /** Forgets the requests of the oldest key (a bound on what a reader keeps). */
  dropOldest(): void {
    const first = this.byKey.keys().next();
    if (!first.done) this.byKey.delete(first.value);
  }

  private remove(key: string, list: Array<{ exchange: ExchangeKey | undefined; value: T }>, i: number): T {
    const [w] = list.splice(i, 1);
    if (list.length === 0) this.byKey.delete(key);
    return w.value;
  }
}

/**
 * Pairs requests with their responses: by server, session, direction and id, and within those by
 * HTTP exchange when the lines carry one (`Waiting`). Returns the exchanges in request order and,
 * for each response record, the exchange it closes.
 */
export function pairExchanges(records: TraceRecord[]): { exchanges: Exchange[]; byResponse: Map<TraceRecord, Exchange> } {
  const open = new Waiting<Exchange>();
  const exchanges: Exchange[] = [];
  const byResponse = new Map<TraceRecord, Exchange>();
  for (const r of records) {
    if (!isMessageRecord(r)) continue;
    if (r.kind === 'request') {
      const ex: Exchange = { request: r };
      exchanges.push(ex);
      open.add(pairKey(r.server, r.session, r.dir, r.id), exchangeOf(r), ex);
    } else if (r.kind === 'result' || r.kind === 'error') {
      const requestDir = r.dir === 'in' ? 'out' : 'in';
      const keys = [pairKey(r.server, r.session, requestDir, r.id)];
      // The request that opened a session (initialize) was sent before the session was known.
      if (r.session !== undefined) keys.push(pairKey(r.server, undefined, requestDir, r.id));
      const ex = open.take(keys, exchangeOf(r));
      if (!ex) continue;
      ex.response = r;
      ex.latencyMs = typeof r.latency_ms === 'number' ? r.latency_ms : round3(r.t - ex.request.t);
      byResponse.set(r, ex);
    }
  }
  return { exchanges, byResponse };
}

/**
 * A record's wall-clock time as ISO 8601 UTC text, the form every writer uses
 * (`2026-07-28T10:00:00.123Z`, clock.ts); a `ts` written as epoch milliseconds is read too.
 * Empty when the record has neither.
 */
export function wallTime(r: { ts?: unknown }): string {
  if (typeof r.ts === 'string') return r.ts;
  if (typeof r.ts === 'number' && Number.isFinite(r.ts)) return new Date(r.ts).toISOString();
  return '';
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

// ---- protocol eras and input rounds ----------------------------------------------------------

/** `modern`: revision 2026-07-28 (stateless: `server/discover`, per-request `_meta`); `handshake`: `initialize` (≤ 2025-11-25). */
export type EraName = 'modern' | 'handshake';

export interface SessionEra {
  server: string;
  session?: string;
  era: EraName;
  /** The protocol version spoken, when the trace shows it. */
  version?: string;
}

/** The `_meta` key of the protocol version a 2026-07-28 request carries. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

function objectOf(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The version in a request's `_meta` (2026-07-28), if any. */
export function metaVersion(msg: unknown): string | undefined {
  const v = objectOf(objectOf(objectOf(msg)?.params)?._meta)?.[META_PROTOCOL_VERSION];
  return typeof v === 'string' ? v : undefined;
}

/**
 * The era one message proves, from the client's side of the wire: an `initialize` result (its
 * `protocolVersion`), a `server/discover` result (modern; the version the request carried,
 * else the server's first), or any other request carrying `_meta` protocolVersion (only the
 * stateless era has it). `request` is the message an answer answers, when known.
 */
export function eraEvidence(dir: string, kind: string, method: string | undefined, msg: unknown, request?: unknown): { era: EraName; version?: string } | undefined {
  if (dir === 'out' && kind === 'request' && method !== 'server/discover' && method !== 'initialize') {
    const version = metaVersion(msg);
    return version === undefined ? undefined : { era: 'modern', version };
  }
  if (dir !== 'in' || kind !== 'result') return undefined;
  const result = objectOf(objectOf(msg)?.result);
  if (!result) return undefined;
  if (method === 'initialize') return { era: 'handshake', ...(typeof result.protocolVersion === 'string' ? { version: result.protocolVersion } : {}) };
  if (method === 'server/discover') {
    const offered = Array.isArray(result.supportedVersions) ? result.supportedVersions.filter((v): v is string => typeof v === 'string') : [];
    const asked = metaVersion(request);
    const version = asked !== undefined && (offered.length === 0 || offered.includes(asked)) ? asked : offered[0];
    return { era: 'modern', ...(version !== undefined ? { version } : {}) };
  }
  return undefined;
}

/**
 * The era of each server (and session) of a trace, in order of first evidence: the tap's `era`
 * events, else what the messages prove (`eraEvidence`; traces written by `--trace`, or by a tap
 * before it noted eras). A later, different verdict for the same session replaces the first.
 */
export function sessionEras(records: TraceRecord[]): SessionEra[] {
  const out = new Map<string, SessionEra>();
  const note = (server: string, session: string | undefined, era: unknown, version: unknown) => {
    if (era !== 'modern' && era !== 'handshake') return;
    const key = `${server}\u0000${session ?? ''}`;
    const prev = out.get(key);
    if (prev && prev.era === era && (version === undefined || prev.version === version)) return;
    out.set(key, { server, ...(session !== undefined ? { session } : {}), era, ...(typeof version === 'string' ? { version } : {}) });
  };
  const { byResponse } = pairExchanges(records);
  for (const r of records) {
    if (!isMessageRecord(r)) {
      const e = r as TraceRecord & { event?: unknown; era?: unknown; version?: unknown };
      if (e.event === 'era') note(r.server, r.session, e.era, e.version);
      continue;
    }
    const request = byResponse.get(r)?.request;
    const ev = eraEvidence(r.dir, r.kind, r.method ?? request?.method, r.msg, request?.msg);
    if (ev) note(r.server, r.session, ev.era, ev.version);
  }
  return [...out.values()];
}

/** `modern 2026-07-28`, `handshake 2025-11-25`. */
export function eraText(e: { era: EraName; version?: string }): string {
  return e.version === undefined ? e.era : `${e.era} ${e.version}`;
}

/**
 * Multi round-trip requests (2026-07-28, basic/patterns/mrtr): the exchanges of one logical
 * request, the original first, then each retry. A retry is the next client request of the same
 * server, session and method whose `requestState` equals the one the `input_required` answer
 * gave (compared as opaque strings, never parsed), or, when that answer gave none, which carries
 * `inputResponses` for the same subject (`params.name` / `params.uri`). JSON-RPC ids play no part:
 * each retry has a new one. Requests answered at once form no chain.
 */
export function inputRounds(exchanges: Exchange[]): Exchange[][] {
  const chains: Exchange[][] = [];
  const taken = new Set<Exchange>();
  exchanges.forEach((ex, i) => {
    if (taken.has(ex) || ex.request.dir !== 'out') return;
    const chain = [ex];
    let last = ex;
    for (let j = i + 1; j < exchanges.length && isInputRequired(last); j++) {
      const next = exchanges[j];
      if (taken.has(next) || !isRetryOf(next, last)) continue;
      chain.push(next);
      taken.add(next);
      last = next;
    }
    if (chain.length > 1) chains.push(chain);
  });
  return chains;
}

function resultOf(ex: Exchange): Record<string, unknown> | undefined {
  return ex.response?.kind === 'result' ? objectOf(objectOf(ex.response.msg)?.result) : undefined;
}

function isInputRequired(ex: Exchange): boolean {
  return resultOf(ex)?.resultType === 'input_required';
}

function isRetryOf(next: Exchange, prev: Exchange): boolean {
  const q = next.request;
  const p = prev.request;
  if (q.dir !== 'out' || q.server !== p.server || q.session !== p.session || q.method !== p.method) return false;
  const params = objectOf(objectOf(q.msg)?.params);
  const state = resultOf(prev)?.requestState;
  if (typeof state === 'string') return params?.requestState === state;
  const before = objectOf(objectOf(p.msg)?.params);
  return params?.inputResponses !== undefined && params.name === before?.name && params.uri === before?.uri;
}
