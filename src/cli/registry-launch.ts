/**
 * `mcpwire registry launch --url <url> [--legacy-sse] [--wait-ms N] -- <command> [args…]`: what an
 * entry built from a registry package that serves HTTP once started (`transport` streamable-http
 * or sse) runs. It starts the package's command, waits until the URL's port accepts connections,
 * then relays the host's stdio to that URL over mcpwire's HTTP transport, one JSON-RPC message a
 * line each way. The URL must be on this machine (loopback) and its port free before the start (a
 * port something else already holds would send the session elsewhere). The package's stdout goes
 * to stderr (stdout is the MCP channel); when stdin ends, or the package exits, both stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createTransport, loadHttpHeaders, type JSONRPCMessage, type SendOptions, type Transport } from '../index.js';

type HttpHeaders = Awaited<ReturnType<typeof loadHttpHeaders>>;
import { UsageError } from './args.js';

const MAX_LINE_BYTES = 64 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** Input schemas kept for `Mcp-Param-*` headers: the tools of the last listings, by name. */
const MAX_SCHEMAS = 4096;
const MAX_SCHEMA_BYTES = 8 * 1024 * 1024;

export interface LaunchOptions {
  url: string;
  legacySse: boolean;
  waitMs: number;
  command: string;
  args: string[];
}

/** Runs the bridge until stdin ends or the package exits; the exit code. */
export async function launchHttpPackage(o: LaunchOptions): Promise<number> {
  const u = checkedUrl(o.url);
  const port = Number(u.port || 80);
  const host = u.hostname === 'localhost' ? '127.0.0.1' : u.hostname.replace(/^\[|\]$/g, '');
  if (await accepts(host, port)) throw new UsageError(`${host}:${port} is already taken by another program: the package cannot serve there (give another port when adding it: mcp add … --set <KEY>=<VALUE>)`);
  const child = spawn(o.command, o.args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  child.stdout?.pipe(process.stderr);
  const exited = new Promise<number>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    child.once('error', (err) => {
      process.stderr.write(`mcpwire registry launch: cannot start ${o.command}: ${err.message}\n`);
      resolve(127);
    });
  });
  const ready = await Promise.race([waitForPort(host, port, o.waitMs).then(() => true), exited.then(() => false)]);
  if (!ready) return fail(`${o.command} exited before serving ${u.origin}`, child);
  let transport: Transport;
  try {
    transport = await createTransport({ transport: 'http', id: 'package', url: u.href, ...(o.legacySse ? { legacySse: true } : {}) });
    await transport.start();
  } catch (err) {
    return fail(`cannot connect to ${u.origin}${u.pathname}: ${(err as Error).message}`, child);
  }
  return relay(transport, child, exited, await loadHttpHeaders());
}

function checkedUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--url ${JSON.stringify(raw.slice(0, 200))} is not an absolute URL`);
  }
  if (u.protocol !== 'http:' || !LOOPBACK.has(u.hostname)) throw new UsageError(`--url must be an http URL on this machine (127.0.0.1, [::1] or localhost), not ${u.protocol}//${u.host}`);
  return u;
}

function fail(message: string, child: ChildProcess): number {
  process.stderr.write(`mcpwire registry launch: ${message}\n`);
  child.kill('SIGTERM');
  return 1;
}

/** Whether something accepts a TCP connection at host:port now. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

async function waitForPort(host: string, port: number, waitMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  while (!(await accepts(host, port))) {
    if (Date.now() > until) throw new Error(`nothing listens on ${host}:${port} after ${waitMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What the relay remembers between a request and its answer: the `initialize` requests (their
 * answer's version is the session's), the `tools/list` requests (their tools are screened and
 * their schemas kept), and the listed tools' input schemas, bounded in count and bytes.
 */
class RelayState {
  readonly initializeIds = new Set<unknown>();
  readonly toolsListIds = new Set<unknown>();
  private readonly schemas = new Map<string, { schema: unknown; bytes: number }>();
  private bytes = 0;

  schemaOf(name: string): unknown {
    return this.schemas.get(name)?.schema;
  }

  keep(name: string, schema: unknown): void {
    const bytes = schema === undefined ? 0 : JSON.stringify(schema).length;
    this.drop(name);
    if (bytes > MAX_SCHEMA_BYTES) return;
    this.schemas.set(name, { schema, bytes });
    this.bytes += bytes;
    // the oldest listed go first
    for (const [old] of this.schemas) {
      if (this.schemas.size <= MAX_SCHEMAS && this.bytes <= MAX_SCHEMA_BYTES) break;
      this.drop(old);
    }
  }

  private drop(name: string): void {
    const had = this.schemas.get(name);
    if (had === undefined) return;
    this.bytes -= had.bytes;
    this.schemas.delete(name);
  }
}

/**
 * A `tools/list` answer as a client on Streamable HTTP passes it on: tools with malformed
 * `x-mcp-header` annotations left out, each named on stderr (basic.transports.streamable_http#40–#42);
 * the kept tools' schemas remembered for their calls' `Mcp-Param-*` headers.
 */
function screenedList(message: JSONRPCMessage, state: RelayState, { screenTools }: HttpHeaders): JSONRPCMessage {
  const m = message as { result?: { tools?: unknown } };
  if (!Array.isArray(m.result?.tools)) return message;
  const tools = (m.result.tools as unknown[]).filter((t): t is { name: string; inputSchema?: unknown } => t !== null && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string');
  const { kept, rejected } = screenTools(tools);
  for (const r of rejected) process.stderr.write(`mcpwire registry launch: tool ${JSON.stringify(r.name.slice(0, 128))} left out of tools/list: ${r.problems.map((p) => p.message).join('; ')}\n`);
  for (const t of kept) state.keep(t.name, t.inputSchema);
  return rejected.length === 0 ? message : ({ ...m, result: { ...m.result, tools: kept } } as unknown as JSONRPCMessage);
}

/** stdin lines → the transport; its messages → stdout lines. Ends when either side does. */
function relay(transport: Transport, child: ChildProcess, exited: Promise<number>, headers: HttpHeaders): Promise<number> {
  const state = new RelayState();
  transport.onmessage = (message) => {
    const m = message as { id?: unknown; result?: { protocolVersion?: unknown } };
    if (state.initializeIds.delete(m.id) && typeof m.result?.protocolVersion === 'string') transport.setProtocolVersion?.(m.result.protocolVersion);
    const out = m.id !== undefined && state.toolsListIds.delete(m.id) ? screenedList(message as JSONRPCMessage, state, headers) : message;
    process.stdout.write(`${JSON.stringify(out)}\n`);
  };
  return new Promise<number>((resolve) => {
    let done = false;
    const finish = async (code: number, why?: string) => {
      if (done) return;
      done = true;
      if (why) process.stderr.write(`mcpwire registry launch: ${why}\n`);
      await transport.close().catch(() => undefined);
      child.kill('SIGTERM');
      resolve(code);
    };
    transport.onclose = (err) => void finish(err ? 1 : 0, err ? `the connection to the package ended: ${err.message}` : undefined);
    void exited.then((code) => finish(code, `the package exited (code ${code})`));
    readLines(process.stdin, (line) => {
      let msg: JSONRPCMessage;
      try {
        msg = JSON.parse(line) as JSONRPCMessage;
      } catch {
        process.stderr.write('mcpwire registry launch: a line on stdin is not JSON; skipped\n');
        return;
      }
      transport.send(msg, sendOptions(msg, state, headers)).catch((err: Error) => answerFailure(msg, err));
    }, () => void finish(0));
  });
}

/** What the HTTP transport needs to know of a message it cannot read itself (it knows no method names). */
function sendOptions(msg: JSONRPCMessage, state: RelayState, { requestHeaders }: HttpHeaders): SendOptions {
  const m = msg as { id?: string | number; method?: string; params?: { name?: unknown; _meta?: Record<string, unknown> } };
  if (m.method === undefined) return m.id !== undefined ? { relatedRequestId: m.id } : {};
  if (m.method === 'initialize' && m.id !== undefined) {
    state.initializeIds.add(m.id);
    return { isInitialize: true };
  }
  if (m.method === 'tools/list' && m.id !== undefined) {
    // bounded: an id is forgotten when its answer comes, and a peer that never answers holds few
    if (state.toolsListIds.size >= MAX_SCHEMAS) state.toolsListIds.clear();
    state.toolsListIds.add(m.id);
  }
  if (typeof m.params?._meta?.[PROTOCOL_VERSION_META] !== 'string') return {};
  // A stateless (2026-07-28) request names its version, method, target and the called tool's
  // annotated arguments in headers too (basic.transports.streamable_http#9, #28, #30, #31).
  const schema = m.method === 'tools/call' && typeof m.params?.name === 'string' ? state.schemaOf(m.params.name) : undefined;
  return { headers: requestHeaders(m.method, m.params as Record<string, unknown>, schema) };
}

/** A request the transport could not deliver is answered with an error, so the host is not left waiting. */
function answerFailure(msg: JSONRPCMessage, err: Error): void {
  const m = msg as { id?: unknown; method?: string };
  process.stderr.write(`mcpwire registry launch: ${m.method ?? 'a message'} not delivered: ${err.message}\n`);
  if (m.method !== undefined && m.id !== undefined) {
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: `the package's HTTP server did not take the request: ${err.message}` } })}\n`);
  }
}

/** Calls `onLine` for each line of `input` (a line over the bound is skipped, said on stderr). */
function readLines(input: NodeJS.ReadableStream, onLine: (line: string) => void, onEnd: () => void): void {
  let held: Buffer[] = [];
  let size = 0;
  let skipping = false;
  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      if (!skipping) {
        const line = Buffer.concat([...held, part]).toString('utf8').trim();
        if (line) onLine(line);
      }
      held = [];
      size = 0;
      skipping = false;
      start = nl + 1;
    }
    if (start < chunk.length && !skipping) {
      size += chunk.length - start;
      if (size > MAX_LINE_BYTES) {
        process.stderr.write(`mcpwire registry launch: a line on stdin is over ${MAX_LINE_BYTES} bytes; skipped\n`);
        held = [];
        skipping = true;
      } else held.push(chunk.subarray(start));
    }
  });
  input.once('end', onEnd);
  input.once('close', onEnd);
}
