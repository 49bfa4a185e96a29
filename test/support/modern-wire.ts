/**
 * Raw 2026-07-28 wire helpers for the tests of the modern-era mocks and the interop peers: a
 * child process spoken to in newline-delimited JSON-RPC, and single POSTs to a Streamable HTTP
 * endpoint whose answer (JSON or SSE) is parsed into messages. Nothing from src/: these tests
 * document the servers themselves. mcpwire's own client against the recorded stdio mock is
 * test/support/recorded-mock.ts.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export const MODERN = '2026-07-28';
export const WAIT = 15_000; // generous: CI is a loaded 2-core machine

export type Msg = Record<string, any>;

/** The per-request `_meta` keys of 2026-07-28 (basic/index.md, "Per-request protocol fields"). */
export const V = 'io.modelcontextprotocol/protocolVersion';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const INFO = 'io.modelcontextprotocol/clientInfo';
export const LEVEL = 'io.modelcontextprotocol/logLevel';

/** The per-request `_meta` a modern client sends. */
export function meta(extra: Record<string, unknown> = {}, caps: Record<string, unknown> = {}): Msg {
  return { [V]: MODERN, [CAPS]: caps, [INFO]: { name: 'mcpwire-test', version: '0.0.0' }, ...extra };
}

export interface LinePeer {
  child: ChildProcessWithoutNullStreams;
  messages: Msg[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  send: (m: unknown) => void;
  waitFor: (pred: (m: Msg) => boolean, ms?: number) => Promise<Msg>;
  /** Sends a request with a fresh id and resolves its response. */
  request: (method: string, params?: unknown, id?: string | number) => Promise<Msg>;
  nextId: () => number;
  close: () => Promise<void>;
}

let ids = 1000;

export function spawnLinePeer(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): LinePeer {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...opts.env }, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  let err = '';
  let buf = '';
  child.stderr.on('data', (d) => (err += d.toString('utf8')));
  child.stdout.on('data', (d) => {
    buf += d.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      let m: Msg;
      try {
        m = JSON.parse(line);
      } catch {
        m = { __raw: line };
      }
      messages.push(m);
      for (const w of [...waiters]) {
        if (w.pred(m)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const send = (m: unknown) => child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  const waitFor = (pred: (m: Msg) => boolean, ms = WAIT) => {
    const seen = messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; stderr: ${err.slice(-2000)}; got: ${JSON.stringify(messages).slice(-2000)}`)), ms);
      waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  };
  const nextId = () => ++ids;
  const request = (method: string, params?: unknown, id: string | number = nextId()) => {
    send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined));
  };
  const close = async () => {
    child.stdin.end();
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  return { child, messages, stderr: () => err, exited, send, waitFor, request, nextId, close };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  contentType: string;
  /** The raw body text. */
  text: string;
  /** JSON-RPC messages: the JSON body, or every SSE `data:` event. */
  messages: Msg[];
  /** The JSON-RPC response among them (the last message with an id and a result or error). */
  response: Msg | undefined;
}

/** Parses SSE text into the JSON of its data events (comment lines and empty data ignored). */
export function sseMessages(text: string): Msg[] {
  const out: Msg[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim()) out.push(JSON.parse(data));
  }
  return out;
}

/** The headers a conforming 2026-07-28 client sends with a request (Mcp-Name for the named methods). */
export function modernHeaders(body: Msg, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': body.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? MODERN,
    'mcp-method': body.method,
  };
  const name = body.method === 'resources/read' ? body.params?.uri : ['tools/call', 'prompts/get'].includes(body.method) ? body.params?.name : undefined;
  if (typeof name === 'string') h['mcp-name'] = name;
  return { ...h, ...extra };
}

export async function post(url: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpAnswer> {
  const res = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), signal: signal ?? AbortSignal.timeout(WAIT) });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let messages: Msg[] = [];
  if (contentType.includes('text/event-stream')) messages = sseMessages(text);
  else if (contentType.includes('json') && text.trim()) messages = [JSON.parse(text)];
  const response = [...messages].reverse().find((m) => m.id !== undefined && (m.result !== undefined || m.error !== undefined));
  return { status: res.status, headers: res.headers, contentType, text, messages, response };
}

/** POSTs a modern request with the right headers (override any of them with `extra`). */
export function postModern(url: string, body: Msg, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<HttpAnswer> {
  return post(url, body, modernHeaders(body, extra), signal);
}

/** Opens a POST whose SSE answer stays open (subscriptions/listen): messages arrive as they come. */
export async function openStream(url: string, body: Msg, extra: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { method: 'POST', headers: modernHeaders(body, extra), body: JSON.stringify(body), signal: controller.signal });
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  let ended = false;
  const done = (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        buf += dec.decode(value, { stream: true });
        let cut;
        while ((cut = buf.search(/\r?\n\r?\n/)) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut).replace(/^\r?\n\r?\n/, '');
          for (const m of sseMessages(`${block}\n\n`)) {
            messages.push(m);
            for (const w of [...waiters]) if (w.pred(m)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(m));
          }
        }
      }
    } catch {
      // aborted by close()
    }
    ended = true;
  })();
  const waitFor = (pred: (m: Msg) => boolean, ms = WAIT) => {
    const seen = messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(messages)}`)), ms);
      waiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  };
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    messages,
    waitFor,
    ended: () => ended,
    done,
    close: async () => {
      controller.abort();
      await done;
    },
  };
}

export interface HttpPeer {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  close: () => Promise<void>;
}

/** Spawns a server that prints "LISTEN <url>" on stdout, and resolves once it does. */
export function spawnHttpPeer(args: string[], ms = WAIT): Promise<HttpPeer> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`no LISTEN line; stderr: ${err}`));
    }, ms);
    child.stdout.on('data', (d) => {
      out += d.toString('utf8');
      const m = /LISTEN (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child, stderr: () => err, close });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before LISTEN; stderr: ${err}`)));
  });
}
