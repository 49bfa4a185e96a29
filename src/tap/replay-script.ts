/**
 * The replay script: a trace's messages for one server turned into what a replay plays — every
 * request the client sent (`dir: out`) with what answered it, and the server's own messages
 * (notifications, server→client requests) placed where they were recorded: while a request was
 * open (sent before its answer) or after it was answered (sent after the answer). Input that was
 * not JSON-RPC (unparseable text, a batch) is kept with the replies it got.
 *
 * The era of the recording (`sessionEras`) decides how a `server/discover` it does not hold is
 * answered (replay.ts): a 2026-07-28 recording made by a host that never sent one gets a
 * DiscoverResult built from what was recorded (`discoverOf`); a handshake-era one gets "method
 * not found", as a handshake-era server answers it.
 */
import { exchangeOf, metaVersion, sessionEras, Waiting, type EraName, type ExchangeKey } from '../trace/read.js';
import { isMessageRecord, type TraceMessageRecord, type TraceRecord } from '../trace/record.js';

export interface ServerAction {
  kind: 'notification' | 'request';
  msg: Record<string, unknown>;
}

export interface RecordedExchange {
  index: number;
  method: string;
  params: unknown;
  /** The recorded answer (`result` or `error`); absent when the server never answered. */
  response?: Record<string, unknown>;
  /** Server messages recorded while the request was open. */
  before: ServerAction[];
  /** Server messages recorded after the answer, before the client's next request. */
  after: ServerAction[];
  progressToken?: unknown;
}

/** Something the client sent that was not a JSON-RPC message (unparseable text, a batch array…) and what the server answered. */
export interface InvalidExchange {
  index: number;
  /** As recorded: the text (unparseable input) or the value. */
  input: unknown;
  replies: Record<string, unknown>[];
}

export interface ReplayScript {
  server: string;
  exchanges: RecordedExchange[];
  invalid: InvalidExchange[];
  /** Server messages recorded before the client's first request. */
  preamble: ServerAction[];
  /** The protocol era of the recording, when it shows. */
  era?: EraName;
  /** A 2026-07-28 recording without a `server/discover` result: the DiscoverResult a replay gives. */
  discover?: Record<string, unknown>;
}

export interface ScriptOptions {
  /** Which server of a multi-server trace (default: the only one; else an error lists them). */
  server?: string;
}

export class ReplayScriptError extends Error {}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function progressTokenOf(params: unknown): unknown {
  return obj(obj(params)?._meta)?.progressToken;
}

/** Builds the replay script from trace records (file order). */
export function buildScript(records: TraceRecord[], options: ScriptOptions = {}): ReplayScript {
  const messages = records.filter(isMessageRecord);
  const server = pickServer(messages, options.server);
  const builder = new ScriptBuilder();
  for (const r of messages) if (r.server === server) builder.add(r);
  const script: ReplayScript = { server, exchanges: builder.exchanges, invalid: builder.invalid, preamble: builder.preamble };
  const era = sessionEras(records.filter((r) => r.server === server))[0]?.era;
  if (era !== undefined) script.era = era;
  const discover = era === 'modern' ? discoverOf(builder.exchanges) : undefined;
  if (discover) script.discover = discover;
  return script;
}

/** The server's capability each recorded method needs (a result to it means the server has it). */
const CAPABILITY_OF: Record<string, string> = { tools: 'tools', resources: 'resources', prompts: 'prompts', logging: 'logging', completion: 'completions' };
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/**
 * What a 2026-07-28 server would have answered to `server/discover`, when the recording holds no
 * answer to one: the versions the recorded requests carried in `_meta`, the capabilities their
 * results show (a `tools/*` result: `tools`; `resources/subscribe`: `resources.subscribe`…), the
 * `serverInfo` a result's `_meta` names. Undefined when a discover result was recorded (it is
 * replayed as recorded) or no request carried a version.
 */
export function discoverOf(exchanges: RecordedExchange[]): Record<string, unknown> | undefined {
  if (exchanges.some((e) => e.method === 'server/discover' && obj(e.response)?.result !== undefined)) return undefined;
  const versions: string[] = [];
  const capabilities: Record<string, Record<string, unknown>> = {};
  let serverInfo: unknown;
  for (const e of exchanges) {
    const v = metaVersion({ params: e.params });
    if (v !== undefined && !versions.includes(v)) versions.push(v);
    const result = obj(obj(e.response)?.result);
    if (!result) continue;
    serverInfo ??= obj(result._meta)?.[META_SERVER_INFO];
    const cap = CAPABILITY_OF[e.method.split('/')[0]];
    if (cap) capabilities[cap] ??= {};
    if (e.method === 'resources/subscribe') capabilities.resources.subscribe = true;
  }
  if (versions.length === 0) return undefined;
  return {
    resultType: 'complete',
    supportedVersions: versions,
    capabilities,
    cacheScope: 'private',
    ttlMs: 0,
    ...(obj(serverInfo) ? { _meta: { [META_SERVER_INFO]: serverInfo } } : {}),
  };
}

/** The server the script is for: the one asked for, or the only one. */
function pickServer(messages: TraceMessageRecord[], wanted: string | undefined): string {
  const servers = [...new Set(messages.map((r) => r.server))];
  if (servers.length === 0) throw new ReplayScriptError('the trace holds no messages');
  if (wanted === undefined) {
    if (servers.length > 1) throw new ReplayScriptError(`the trace holds several servers (${servers.join(', ')}): choose one with --server`);
    return servers[0];
  }
  if (!servers.includes(wanted)) throw new ReplayScriptError(`no server "${wanted}" in the trace (it holds ${servers.join(', ')})`);
  return wanted;
}

const idKey = (session: string, id: unknown) => `${session}\u0000${typeof id}:${String(id)}`;

/**
 * Pairs the recording's requests with their answers by session and id, and within those by the
 * HTTP exchange the tap numbered (`Waiting`): two sessionless 2026-07-28 clients that used the
 * same id at once each keep their own answer and the notifications of their own stream.
 */
class ScriptBuilder {
  readonly exchanges: RecordedExchange[] = [];
  readonly invalid: InvalidExchange[] = [];
  readonly preamble: ServerAction[] = [];
  /** Requests not answered yet, by session and id (and exchange). */
  private readonly open = new Waiting<RecordedExchange>();
  /** The newest request of each session. */
  private readonly last = new Map<string, RecordedExchange>();
  /** The client's latest non-JSON-RPC input, until its next message: errors answering no request go with it. */
  private lastInvalid: InvalidExchange | undefined;

  add(r: TraceMessageRecord): void {
    const s = r.session ?? '';
    if (r.dir === 'out' && r.kind === 'invalid') {
      this.lastInvalid = { index: this.invalid.length, input: r.msg, replies: [] };
      this.invalid.push(this.lastInvalid);
      return;
    }
    if (r.dir === 'out') this.lastInvalid = undefined;
    const msg = obj(r.msg);
    if (!msg) return;
    const exchange = exchangeOf(r);
    if (r.dir === 'out' && r.kind === 'request') this.request(s, exchange, msg);
    else if (r.dir === 'in' && (r.kind === 'result' || r.kind === 'error')) this.answer(s, exchange, msg);
    else if (r.dir === 'in' && (r.kind === 'notification' || r.kind === 'request')) this.serverMessage(s, exchange, { kind: r.kind, msg });
  }

  private request(s: string, exchange: ExchangeKey | undefined, msg: Record<string, unknown>): void {
    const params = msg.params;
    const ex: RecordedExchange = { index: this.exchanges.length, method: String(msg.method), params, before: [], after: [], progressToken: progressTokenOf(params) };
    this.exchanges.push(ex);
    this.open.add(idKey(s, msg.id), exchange, ex);
    this.last.set(s, ex);
  }

  private answer(s: string, exchange: ExchangeKey | undefined, msg: Record<string, unknown>): void {
    // initialize was sent before the session existed
    const ex = this.open.take([idKey(s, msg.id), idKey('', msg.id)], exchange);
    if (ex && !ex.response) ex.response = msg;
    else if (this.lastInvalid) this.lastInvalid.replies.push(msg);
  }

  /**
   * Progress goes with the request that asked for it; anything else with the newest open request
   * of the session; a request of the message's own HTTP exchange first.
   */
  private serverMessage(s: string, exchange: ExchangeKey | undefined, action: ServerAction): void {
    const token = action.msg.method === 'notifications/progress' ? obj(action.msg.params)?.progressToken : undefined;
    let target: RecordedExchange | undefined;
    let best = 0;
    for (const w of this.open.entries()) {
      if (!w.key.startsWith(`${s}\u0000`)) continue;
      if (token !== undefined && w.value.progressToken !== token) continue;
      const score = exchange !== undefined && w.exchange === exchange ? 2 : 1;
      // Ties: the first with the token, the newest without.
      if (score > best || (score === best && token === undefined)) {
        target = w.value;
        best = score;
      }
    }
    if (target) target.before.push(action);
    else if (this.last.get(s)) this.last.get(s)!.after.push(action);
    else this.preamble.push(action);
  }
}
