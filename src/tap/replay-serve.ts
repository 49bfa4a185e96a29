/**
 * Serving a replay script: over stdio (one connection: the process's stdin/stdout) or over
 * Streamable HTTP (`--listen`; one replay session per MCP session, answers as JSON, or as an SSE
 * stream when the recording has server messages around the answer; no standalone GET stream).
 * The HTTP listener takes requests for its own address only (`Host`, `Origin`: http-guard.ts).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { refusal } from './http-guard.js';
import { listenOn } from './http.js';
import { LineSplitter } from './recorder.js';
import { ReplaySession, type MatchMode, type ReplayScript, type ReplaySummary } from './replay.js';

/** The largest POST body `replay --listen` reads (as `mcpwire serve`): a client's requests are small. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface ServeOptions {
  mode: MatchMode;
}

/** Plays the script to one stdio client until its stdin ends. */
export async function serveReplayStdio(
  script: ReplayScript,
  options: ServeOptions & { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream },
): Promise<ReplaySummary> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let closed = false;
  stdout.on('error', () => {
    closed = true; // the client went away: nothing more to send
  });
  const session = new ReplaySession(script, options.mode, (msg) => {
    if (!closed) stdout.write(`${JSON.stringify(msg)}\n`);
  });
  const inflight = new Set<Promise<void>>();
  for (const a of session.preamble()) stdout.write(`${JSON.stringify(a.msg)}\n`);
  const lines = new LineSplitter((line) => {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      if (script.invalid.length) session.replayInvalid(line.trim());
      else stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })}\n`);
      return;
    }
    const p = session.receive(msg);
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  });
  await new Promise<void>((resolve) => {
    stdin.on('data', (c: Buffer) => lines.push(c));
    stdin.on('end', () => resolve());
    stdin.on('close', () => resolve());
    stdin.on('error', () => resolve());
  });
  lines.end();
  return session.summary();
}

export interface ReplayServer {
  url: string;
  port: number;
  summary(): ReplaySummary;
  close(): Promise<void>;
}

/** Serves the script over Streamable HTTP at `listen` (path: any; the printed URL uses `/mcp`). */
export async function serveReplayHttp(script: ReplayScript, options: ServeOptions & { listen: string; maxBodyBytes?: number }): Promise<ReplayServer> {
  const replay = new HttpReplay(script, options.mode, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const server = http.createServer((req, res) => replay.handle(req, res));
  const bound = await listenOn(server, options.listen);
  replay.hosts = bound.hosts;
  return {
    url: `http://${bound.host}:${bound.port}/mcp`,
    port: bound.port,
    summary: () => replay.summary(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const jsonError = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });

function isRequest(m: unknown): boolean {
  const o = m as { method?: unknown; id?: unknown } | null;
  return o !== null && typeof o === 'object' && typeof o.method === 'string' && o.id !== undefined;
}

/** One replay session per MCP session; POSTs answered as JSON, or as an SSE stream when the recording has server messages around the answer. */
class HttpReplay {
  /** `host:port` names of the listener (set once it listens): others are refused (http-guard.ts). */
  hosts = new Set<string>();
  private readonly sessions = new Map<string, ReplaySession>();
  private readonly ended: ReplaySession[] = [];
  /** Requests without a session (a client that skipped initialize): one shared replay. */
  private sessionless: ReplaySession | undefined;

  constructor(
    private readonly script: ReplayScript,
    private readonly mode: MatchMode,
    private readonly maxBodyBytes: number,
  ) {}

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const refused = refusal(req.url, req.headers, this.hosts);
    if (refused) {
      req.resume();
      res.writeHead(refused.status, { 'content-type': 'text/plain' }).end(`mcpwire replay: ${refused.reason}\n`);
      return;
    }
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    if (req.method === 'DELETE') return this.endSession(sessionId, res);
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    // A body past the bound is read to its end and dropped (never held), then refused with 413.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= this.maxBodyBytes) chunks.push(c);
      else chunks.length = 0;
    });
    req.on('end', () => {
      if (size > this.maxBodyBytes) {
        res.writeHead(413, { 'content-type': 'application/json' }).end(jsonError(-32600, `request body too large (over ${this.maxBodyBytes} bytes)`));
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(jsonError(-32700, 'Parse error'));
        return;
      }
      this.post(sessionId, body, res);
    });
  }

  summary(): ReplaySummary {
    const parts = [...this.ended, ...this.sessions.values(), ...(this.sessionless ? [this.sessionless] : [])].map((s) => s.summary());
    const unplayed = parts.length ? Math.min(...parts.map((p) => p.unplayed)) : this.script.exchanges.length;
    return { mode: this.mode, answered: parts.reduce((n, p) => n + p.answered, 0), mismatches: parts.flatMap((p) => p.mismatches), unplayed };
  }

  private endSession(sessionId: string | undefined, res: http.ServerResponse): void {
    const s = sessionId ? this.sessions.get(sessionId) : undefined;
    if (s) {
      this.sessions.delete(sessionId!);
      this.ended.push(s);
    }
    res.writeHead(s ? 200 : 404).end();
  }

  /** The session a POST belongs to: its `MCP-Session-Id`'s, a new one for initialize, else the shared one. */
  private sessionFor(sessionId: string | undefined, isInit: boolean): { session?: ReplaySession; newId?: string } {
    if (sessionId) return { session: this.sessions.get(sessionId) };
    if (isInit) {
      const newId = randomUUID();
      const session = new ReplaySession(this.script, this.mode, () => {});
      this.sessions.set(newId, session);
      return { session, newId };
    }
    this.sessionless ??= new ReplaySession(this.script, this.mode, () => {});
    return { session: this.sessionless };
  }

  private post(sessionId: string | undefined, body: unknown, res: http.ServerResponse): void {
    const batch = Array.isArray(body) ? body : [body];
    const isInit = batch.some((m) => (m as { method?: unknown } | null)?.method === 'initialize');
    const { session, newId } = this.sessionFor(sessionId, isInit);
    if (!session) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(jsonError(-32001, 'Session not found'));
      return;
    }
    const requests = batch.filter(isRequest);
    if (requests.length === 0) {
      for (const m of batch) void session.receive(m, () => {});
      res.writeHead(202).end();
      return;
    }
    // Server messages around an answer need a stream.
    const plans = requests.map((m) => session.match(String((m as { method: string }).method), (m as { params?: unknown }).params));
    const sse = plans.some((p) => 'exchange' in p && (p.exchange.before.length > 0 || p.exchange.after.length > 0));
    const headers: http.OutgoingHttpHeaders = { 'content-type': sse ? 'text/event-stream' : 'application/json' };
    if (newId) headers['mcp-session-id'] = newId;
    if (sse) {
      headers['cache-control'] = 'no-cache';
      res.writeHead(200, headers);
      res.flushHeaders();
    }
    // This POST's answers (and the server messages around them) go out on this POST's response:
    // streamed as they come, or collected into one JSON body.
    const queue: unknown[] = [];
    const send = (msg: unknown) => (sse ? res.write(`data: ${JSON.stringify(msg)}\n\n`) : queue.push(msg));
    void Promise.all(batch.map((m) => session.receive(m, send))).then(() => {
      if (sse) res.end();
      else res.writeHead(200, headers).end(JSON.stringify(Array.isArray(body) ? queue : queue.length === 1 ? queue[0] : queue));
    });
  }
}
