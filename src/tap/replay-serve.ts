/**
 * Serving a replay script: over stdio (one connection: the process's stdin/stdout) or over
 * Streamable HTTP (`--listen`; one replay session per MCP session, answers as JSON, or as an SSE
 * stream when the recording has server messages around the answer; no standalone GET stream).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpWireError } from '../errors.js';
import { parseListen } from './http.js';
import { LineSplitter } from './recorder.js';
import { ReplaySession, type MatchMode, type ReplayScript, type ReplaySummary } from './replay.js';

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
export async function serveReplayHttp(script: ReplayScript, options: ServeOptions & { listen: string }): Promise<ReplayServer> {
  const { host, port } = parseListen(options.listen);
  const sessions = new Map<string, ReplaySession>();
  const ended: ReplaySession[] = [];
  /** Requests without a session (a client that skipped initialize): one shared replay. */
  let sessionless: ReplaySession | undefined;

  const server = http.createServer((req, res) => {
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    if (req.method === 'DELETE') {
      const s = sessionId ? sessions.get(sessionId) : undefined;
      if (s) {
        sessions.delete(sessionId!);
        ended.push(s);
      }
      res.writeHead(s ? 200 : 404).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const batch = Array.isArray(body) ? body : [body];
      const isInit = batch.some((m) => (m as { method?: unknown } | null)?.method === 'initialize');
      let session: ReplaySession | undefined;
      let newId: string | undefined;
      if (sessionId) {
        session = sessions.get(sessionId);
        if (!session) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
          return;
        }
      }
      const requests = batch.filter((m) => {
        const o = m as { method?: unknown; id?: unknown } | null;
        return o !== null && typeof o === 'object' && typeof o.method === 'string' && o.id !== undefined;
      });
      // Messages go out through whichever response is open: JSON collects them, SSE streams them.
      let sse = false;
      const queue: unknown[] = [];
      const send = (msg: unknown) => {
        if (sse) res.write(`data: ${JSON.stringify(msg)}\n\n`);
        else queue.push(msg);
      };
      if (!session) {
        if (isInit) {
          newId = randomUUID();
          session = new ReplaySession(script, options.mode, () => {});
          sessions.set(newId, session);
        } else {
          sessionless ??= new ReplaySession(script, options.mode, () => {});
          session = sessionless;
        }
      }
      if (requests.length === 0) {
        for (const m of batch) void session.receive(m, () => {});
        res.writeHead(202).end();
        return;
      }
      // Server messages around an answer need a stream.
      const plans = requests.map((m) => session!.match(String((m as { method: string }).method), (m as { params?: unknown }).params));
      sse = plans.some((p) => 'exchange' in p && (p.exchange.before.length > 0 || p.exchange.after.length > 0));
      const headers: http.OutgoingHttpHeaders = { 'content-type': sse ? 'text/event-stream' : 'application/json' };
      if (newId) headers['mcp-session-id'] = newId;
      if (sse) {
        headers['cache-control'] = 'no-cache';
        res.writeHead(200, headers);
        res.flushHeaders();
      }
      // This POST's answers (and the server messages around them) go out on this POST's response.
      void Promise.all(batch.map((m) => session!.receive(m, send))).then(() => {
        if (sse) {
          res.end();
          return;
        }
        const answers = queue;
        res.writeHead(200, headers).end(JSON.stringify(Array.isArray(body) ? answers : answers.length === 1 ? answers[0] : answers));
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new McpWireError('MCPWIRE_LISTEN', `cannot listen on ${options.listen}: ${err.message}`, { phase: 'connect', cause: err })));
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const all = () => [...ended, ...sessions.values(), ...(sessionless ? [sessionless] : [])];
  return {
    url: `http://${shownHost}:${addr.port}/mcp`,
    port: addr.port,
    summary() {
      const parts = all().map((s) => s.summary());
      const unplayed = parts.length ? Math.min(...parts.map((p) => p.unplayed)) : script.exchanges.length;
      return { mode: options.mode, answered: parts.reduce((n, p) => n + p.answered, 0), mismatches: parts.flatMap((p) => p.mismatches), unplayed };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
