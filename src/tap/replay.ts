/**
 * `mcpwire replay t.jsonl`: a recorded trace served back as an MCP server, so a host's bug can be
 * reproduced without the original server.
 *
 * The script (replay-script.ts): every request the client sent (`dir: out`) with what answered it, and the server's
 * own messages (notifications, server→client requests) placed where they were recorded — while a
 * request was open (sent before its answer) or after it was answered (sent after the answer).
 *
 * Matching a live request to a recorded one: `strict` — the next recorded request, same method,
 * same params (ids, `_meta.progressToken`, redacted and truncated values aside); `loose` — a
 * recorded request with that method and that subject (the tool of `tools/call`, the prompt of
 * `prompts/get`, the URI of `resources/read`…: `requestSubject`) and the most similar other
 * params, unplayed ones and those right after the last one played first; a retry of a 2026-07-28
 * input_required round only one recorded with the same `requestState`. The answer is the
 * recorded one with the live id; progress notifications get the live progress token. A request
 * nothing matches gets a JSON-RPC error naming the closest recorded request, and is counted;
 * the summary lists them.
 */
import { normalizeParams, requestSubject, sameValue, similarity } from './match.js';
import { obj, progressTokenOf, type InvalidExchange, type RecordedExchange, type ReplayScript, type ServerAction } from './replay-script.js';

export { buildScript, ReplayScriptError } from './replay-script.js';
export type { RecordedExchange, ReplayScript, ServerAction } from './replay-script.js';

export type MatchMode = 'strict' | 'loose';

/** JSON-RPC error code of the answer to a request the trace does not hold. */
export const NOT_RECORDED = -32001;

export interface Mismatch {
  method: string;
  id: unknown;
  reason: string;
}

export interface ReplaySummary {
  mode: MatchMode;
  answered: number;
  mismatches: Mismatch[];
  /** Recorded requests never played. */
  unplayed: number;
}

/** What one live connection sees; `send` writes one message to the client. */
export class ReplaySession {
  private cursor = 0;
  private readonly played = new Set<number>();
  private nextServerId = 0;
  private readonly waiting = new Map<string, (msg: unknown) => void>();
  answered = 0;
  readonly mismatches: Mismatch[] = [];

  constructor(
    private readonly script: ReplayScript,
    private readonly mode: MatchMode,
    private readonly send: (msg: unknown) => void,
    /** How long to wait for the client's answer to a replayed server→client request. */
    private readonly answerTimeoutMs = 30_000,
  ) {}

  /** The recorded exchange a live request gets, or why none (naming the closest recorded request). */
  match(method: string, params: unknown): { exchange: RecordedExchange } | { reason: string } {
    const live = normalizeParams(params);
    if (this.mode === 'strict') return this.matchNext(method, live);
    const subject = requestSubject(method, params);
    const state = obj(params)?.requestState;
    let best: RecordedExchange | undefined;
    let bestScore = -1;
    for (const e of this.script.exchanges) {
      // Same method and same subject (tool, prompt, resource) or nothing: never another tool's answer.
      if (e.method !== method || !sameValue(requestSubject(e.method, e.params), subject)) continue;
      // A retry of an input_required round (2026-07-28) gets the answer recorded to the retry with
      // that very requestState (opaque: equal or not), never another round's.
      if (state !== undefined && !sameValue(obj(e.params)?.requestState, state)) continue;
      const recorded = normalizeParams(e.params);
      const exact = sameValue(recorded, live);
      const sim = exact ? 1 : similarity(recorded, live);
      const fresh = this.played.has(e.index) ? 0 : 1;
      const ahead = e.index >= this.cursor ? 1 / (1 + e.index - this.cursor) : 0;
      // Exact beats similar, unplayed beats played, nearer after the last one beats farther.
      const score = (exact ? 8 : 0) + sim * 4 + fresh * 2 + ahead;
      if (score > bestScore) {
        best = e;
        bestScore = score;
      }
    }
    if (best) return { exchange: best };
    return { reason: `no ${describe(method, params)} in the recording${this.closest(method, params)}` };
  }

  /** Strict: the next recorded request, same method and params. */
  private matchNext(method: string, live: unknown): { exchange: RecordedExchange } | { reason: string } {
    const ex = this.script.exchanges;
    const next = ex[this.cursor];
    if (!next) return { reason: `the recording has no more requests (${ex.length} recorded)${this.closest(method, live)}` };
    const n = this.cursor + 1;
    if (next.method !== method) return { reason: `request #${n} of the recording is ${describe(next.method, next.params)}, not ${describe(method, live)}` };
    if (!sameValue(normalizeParams(next.params), live)) return { reason: `request #${n} (${describe(method, next.params)}) was recorded with other params: ${short(next.params)}` };
    return { exchange: next };
  }

  /** `; closest recorded: #n method "subject" {params}` — the recorded request most like this one. */
  private closest(method: string, params: unknown): string {
    const live = { method, params: normalizeParams(params) };
    let best: RecordedExchange | undefined;
    let bestScore = -1;
    for (const e of this.script.exchanges) {
      const score = similarity({ method: e.method, params: normalizeParams(e.params) }, live);
      if (score > bestScore) {
        best = e;
        bestScore = score;
      }
    }
    return best ? `; closest recorded: #${best.index + 1} ${describe(best.method, best.params)} ${short(best.params)}` : '';
  }

  /** Handles one message from the client; what answers it goes to `send` (default: the session's). */
  async receive(msg: unknown, send: (msg: unknown) => void = this.send): Promise<void> {
    const m = obj(msg);
    if (!m || m.jsonrpc !== '2.0') {
      if (this.script.invalid.length) {
        this.replayInvalid(msg, send);
        return;
      }
      send({ jsonrpc: '2.0', id: m && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : null, error: { code: -32600, message: 'Invalid Request' } });
      return;
    }
    if (typeof m.method !== 'string') {
      // The client answering a replayed server→client request.
      const w = this.waiting.get(`${typeof m.id}:${String(m.id)}`);
      if (w) w(m);
      return;
    }
    if (m.id === undefined) return; // client notifications need no answer
    const outcome = this.match(m.method, m.params);
    if ('reason' in outcome && m.method === 'server/discover' && this.discoverUnrecorded(m.id as string | number, send)) return;
    if ('reason' in outcome) {
      if (this.mode === 'loose' && m.method === 'ping') {
        send({ jsonrpc: '2.0', id: m.id, result: {} });
        return;
      }
      this.mismatches.push({ method: m.method, id: m.id, reason: outcome.reason });
      send({ jsonrpc: '2.0', id: m.id, error: { code: NOT_RECORDED, message: `mcpwire replay: ${outcome.reason}` } });
      return;
    }
    await this.play(outcome.exchange, m.id as string | number, progressTokenOf(m.params), send);
  }

  /**
   * A `server/discover` the recording does not hold (replay-script.ts): a 2026-07-28 recording
   * answers with the DiscoverResult built from it; a handshake-era one with "method not found",
   * as a handshake-era server does, so a client probing the era falls back to `initialize`.
   * Neither is a mismatch. False when the recording's era is unknown.
   */
  private discoverUnrecorded(id: string | number, send: (msg: unknown) => void): boolean {
    if (this.script.discover) {
      send({ jsonrpc: '2.0', id, result: this.script.discover });
      this.answered++;
      return true;
    }
    if (this.script.era !== 'handshake') return false;
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    return true;
  }

  private readonly invalidPlayed = new Set<number>();

  /**
   * Input that is not a JSON-RPC message (unparseable text as a string, a batch array…): the
   * server's recorded replies to the recorded input most like it, unplayed ones first.
   */
  replayInvalid(input: unknown, send: (msg: unknown) => void = this.send): void {
    let best: InvalidExchange | undefined;
    let bestScore = -1;
    for (const e of this.script.invalid) {
      const exact = sameValue(e.input, input);
      const score = (exact ? 8 : 0) + similarity(e.input, input) * 4 + (this.invalidPlayed.has(e.index) ? 0 : 2);
      if (score > bestScore) {
        best = e;
        bestScore = score;
      }
    }
    if (!best) return;
    this.invalidPlayed.add(best.index);
    for (const r of best.replies) send(r);
  }

  /** Sends what the server sent for `ex`, in the recorded order, with the live ids. */
  async play(ex: RecordedExchange, id: string | number, liveToken: unknown, send: (msg: unknown) => void = this.send): Promise<void> {
    this.played.add(ex.index);
    this.cursor = ex.index + 1;
    for (const a of ex.before) await this.act(a, ex.progressToken, liveToken, send);
    if (ex.response) {
      send({ ...ex.response, id });
      this.answered++;
    }
    for (const a of ex.after) await this.act(a, ex.progressToken, liveToken, send);
  }

  /** Server messages recorded before the first request (rare: e.g. an early log message). */
  preamble(): ServerAction[] {
    return this.script.preamble;
  }

  private async act(a: ServerAction, recordedToken: unknown, liveToken: unknown, send: (msg: unknown) => void): Promise<void> {
    if (a.kind === 'notification') {
      let msg = a.msg;
      const p = obj(msg.params);
      if (msg.method === 'notifications/progress' && p && liveToken !== undefined && p.progressToken === recordedToken) {
        msg = { ...msg, params: { ...p, progressToken: liveToken } };
      }
      send(msg);
      return;
    }
    const id = `replay-${++this.nextServerId}`;
    const answered = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(`string:${id}`);
        resolve();
      }, this.answerTimeoutMs);
      timer.unref?.();
      this.waiting.set(`string:${id}`, () => {
        clearTimeout(timer);
        this.waiting.delete(`string:${id}`);
        resolve();
      });
    });
    send({ ...a.msg, id });
    await answered;
  }

  summary(): ReplaySummary {
    return { mode: this.mode, answered: this.answered, mismatches: this.mismatches, unplayed: this.script.exchanges.filter((e) => !this.played.has(e.index)).length };
  }
}

/** `tools/call "echo"`: the method and, where it has one, the request's subject. */
function describe(method: string, params: unknown): string {
  const subject = requestSubject(method, params);
  return subject === undefined ? method : `${method} ${short(subject)}`;
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'none';
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}

export function formatSummary(s: ReplaySummary): string {
  const lines = [`mcpwire replay: ${s.answered} request(s) answered from the recording, ${s.mismatches.length} not recorded (${s.mode} match), ${s.unplayed} recorded request(s) not played`];
  for (const m of s.mismatches.slice(0, 20)) lines.push(`  ${m.method} (id ${JSON.stringify(m.id)}): ${m.reason}`);
  if (s.mismatches.length > 20) lines.push(`  … and ${s.mismatches.length - 20} more`);
  return lines.join('\n');
}
