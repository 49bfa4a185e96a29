/**
 * The demo MCP server that ships with mcpwire (`mcpwire demo --server`, and what `mcpwire demo` /
 * `npm start` connect to): newline-delimited JSON-RPC over stdio, revision 2025-11-25 (and the
 * older ones it negotiates down to), tools / resources / prompts from catalog.ts, progress and
 * cancellation. It runs from an installed package: no npm dependency; the versions it accepts
 * are the client's own table (the public API's SUPPORTED_PROTOCOL_VERSIONS).
 */
import type { Readable, Writable } from 'node:stream';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../index.js';
import { PROMPTS, RESOURCES, TOOLS, type CallResult } from './catalog.js';

const SERVER_INFO = { name: 'mcpwire-demo-server', title: 'mcpwire demo server', version: '1.0.0' };
const INSTRUCTIONS = 'Demo server bundled with mcpwire: try echo, add and progress.';

type Id = string | number;
interface Message {
  jsonrpc?: unknown;
  id?: Id | null;
  method?: unknown;
  params?: Record<string, unknown>;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by a tool call the client cancelled: it gets no answer (basic.utilities.cancellation#4). */
const CANCELLED = new Error('cancelled');

const params = (p: unknown): Record<string, unknown> => (p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {});

function getPrompt(p: Record<string, unknown>) {
  const prompt = PROMPTS.find((x) => x.name === p.name);
  if (!prompt) throw new RpcError(-32602, `Unknown prompt: ${String(p.name)}`);
  const args = params(p.arguments) as Record<string, string>;
  const missing = prompt.arguments.filter((a) => a.required && typeof args[a.name] !== 'string');
  if (missing.length) throw new RpcError(-32602, `Missing argument: ${missing.map((a) => a.name).join(', ')}`);
  return { description: prompt.description, messages: prompt.render(args) };
}

function readResource(p: Record<string, unknown>) {
  if (typeof p.uri !== 'string') throw new RpcError(-32602, 'resources/read needs a uri');
  const r = RESOURCES.find((x) => x.uri === p.uri);
  if (!r) throw new RpcError(-32002, `Resource not found: ${String(p.uri)}`);
  return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: r.text }] };
}

/** Every list fits one page: any cursor is one this server never gave (server.utilities.pagination#5). */
const onePage = <T>(p: Record<string, unknown>, list: () => T): T => {
  if (p.cursor !== undefined) throw new RpcError(-32602, 'Invalid cursor');
  return list();
};

export interface DemoServer {
  /** Handles one decoded message; resolves when its answer (if any) is written. */
  handle(msg: unknown): Promise<void>;
}

export function createDemoServer(send: (msg: object) => void): DemoServer {
  const running = new Map<Id, AbortController>();
  let initialized = false;

  function initialize(p: Record<string, unknown>) {
    initialized = true;
    const asked = typeof p.protocolVersion === 'string' ? p.protocolVersion : '';
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
      capabilities: { tools: {}, resources: {}, prompts: {} },
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  }

  async function callTool(id: Id, p: Record<string, unknown>): Promise<CallResult> {
    const tool = TOOLS.find((t) => t.name === p.name);
    if (!tool) throw new RpcError(-32602, `Unknown tool: ${String(p.name)}`);
    const token = params(p._meta).progressToken;
    const ac = new AbortController();
    running.set(id, ac);
    try {
      return await tool.run(params(p.arguments), {
        signal: ac.signal,
        progress: (progress, total, message) => {
          if ((typeof token === 'string' || typeof token === 'number') && !ac.signal.aborted) send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, total, message } });
        },
      });
    } catch (err) {
      throw ac.signal.aborted ? CANCELLED : err;
    } finally {
      running.delete(id);
    }
  }

  const methods: Record<string, (p: Record<string, unknown>, id: Id) => unknown> = {
    initialize,
    ping: () => ({}),
    'tools/list': (p) => onePage(p, () => ({ tools: TOOLS.map(({ run: _run, ...def }) => def) })),
    'tools/call': (p, id) => callTool(id, p),
    'resources/list': (p) => onePage(p, () => ({ resources: RESOURCES.map(({ text: _text, ...def }) => def) })),
    'resources/templates/list': (p) => onePage(p, () => ({ resourceTemplates: [] })),
    'resources/read': readResource,
    'prompts/list': (p) => onePage(p, () => ({ prompts: PROMPTS.map(({ render: _render, ...def }) => def) })),
    'prompts/get': getPrompt,
  };

  function notification(method: string, p: Record<string, unknown>): void {
    if (method === 'notifications/cancelled') running.get(p.requestId as Id)?.abort();
  }

  async function handle(raw: unknown): Promise<void> {
    const msg = raw as Message;
    if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0') {
      return send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    }
    if (typeof msg.method !== 'string') return; // a response: this server sends no requests
    if (msg.id === undefined || msg.id === null) return notification(msg.method, params(msg.params));
    const id = msg.id;
    const method = Object.hasOwn(methods, msg.method) ? methods[msg.method] : undefined;
    try {
      if (!method) throw new RpcError(-32601, `Method not found: ${msg.method}`);
      if (!initialized && msg.method !== 'initialize' && msg.method !== 'ping') throw new RpcError(-32600, 'Server not initialized');
      const result = await method(params(msg.params), id);
      send({ jsonrpc: '2.0', id, result });
    } catch (err) {
      if (err === CANCELLED) return;
      const code = err instanceof RpcError ? err.code : -32603;
      send({ jsonrpc: '2.0', id, error: { code, message: err instanceof Error ? err.message : String(err) } });
    }
  }

  return { handle };
}

/** Serves the demo over a pair of streams until the input ends. */
export function serveDemo(input: Readable, output: Writable): Promise<void> {
  const server = createDemoServer((msg) => output.write(`${JSON.stringify(msg)}\n`));
  let pending = '';
  const onLine = (line: string) => {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      output.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })}\n`);
      return;
    }
    void server.handle(msg);
  };
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      onLine(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  });
  return new Promise((resolve) => {
    input.on('end', () => {
      onLine(pending);
      resolve();
    });
  });
}
