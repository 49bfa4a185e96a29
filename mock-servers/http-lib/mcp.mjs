// Minimal, transport-independent MCP server semantics for the HTTP mocks: initialize, ping,
// tools/list and a few tools/call tools. The HTTP layer (../http-server.mjs) gives each request
// a context with notify()/request() bound to the stream the answer goes out on.
//
// Tools:
//   echo {text}            → text
//   add {a, b}             → "a+b=<sum>"
//   slow {ms}              → waits, then "slept <ms>"
//   progress {steps, ms}   → notifications/progress per step (needs _meta.progressToken)
//   interleave             → sends `ping` and `roots/list` requests to the client, waits for both
//                            answers, then returns the roots it got
//   resumable {delayMs}    → (SSE) primes the stream, sends a notification, drops the connection, then after delayMs
//                            emits a notification and the result (the client must resume)
//   big {bytes}            → a text content of `bytes` characters
//   get_notify {text}      → pushes a notifications/message on the standalone GET stream
//   events {count, intervalMs, method, tag}
//                          → `count` notifications `method` (default notifications/tool_event)
//                            with {tag, seq} and a log message each (data {tag, seq}), on the
//                            request's own stream, `intervalMs` apart (as the stdio builtin)

export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const LATEST_VERSION = '2025-11-25';

export const TOOLS = [
  { name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'add', description: 'Adds a and b', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
  { name: 'slow', description: 'Waits ms', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
  { name: 'progress', description: 'Reports progress', inputSchema: { type: 'object', properties: { steps: { type: 'number' } } } },
  { name: 'interleave', description: 'Asks the client for ping and roots/list first', inputSchema: { type: 'object' } },
  { name: 'resumable', description: 'Drops the SSE connection before answering', inputSchema: { type: 'object' } },
  { name: 'big', description: 'Returns a big text', inputSchema: { type: 'object', properties: { bytes: { type: 'number' } } } },
  { name: 'get_notify', description: 'Notifies on the GET stream', inputSchema: { type: 'object' } },
  { name: 'events', description: 'Sends notifications and log messages during the call', inputSchema: { type: 'object' } },
];

export class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

/**
 * Answers one JSON-RPC request. `ctx`: { notify(method, params), request(method, params) →
 * Promise<result>, dropConnection(), notifyGet(method, params) → boolean, serverInfo }.
 * Returns the `result`, or throws RpcError.
 */
export async function handleRequest(msg, ctx) {
  const params = msg.params ?? {};
  switch (msg.method) {
    case 'initialize': {
      const asked = params.protocolVersion;
      const protocolVersion = SUPPORTED_VERSIONS.includes(asked) ? asked : LATEST_VERSION;
      return {
        protocolVersion,
        capabilities: { tools: { listChanged: false }, logging: {}, resources: { subscribe: true } },
        serverInfo: ctx.serverInfo ?? { name: 'mcpwire-http-mock', version: '1.0.0' },
      };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: TOOLS };
    case 'tools/call':
      return callTool(params, ctx);
    // Just enough of logging and resources for session-restore tests: the HTTP layer records
    // every request, so a test can see what a new session was told.
    case 'logging/setLevel':
      if (typeof params.level !== 'string') throw new RpcError(-32602, 'level is required');
      return {};
    case 'resources/list':
      return { resources: [{ uri: 'mem://one', name: 'one' }] };
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      if (typeof params.uri !== 'string') throw new RpcError(-32602, 'uri is required');
      return {};
    default:
      throw new RpcError(-32601, `Method not found: ${msg.method}`);
  }
}

async function callTool(params, ctx) {
  const args = params.arguments ?? {};
  switch (params.name) {
    case 'echo':
      return text(String(args.text ?? ''));
    case 'add':
      return text(`${args.a}+${args.b}=${Number(args.a) + Number(args.b)}`);
    case 'slow':
      await sleep(Number(args.ms ?? 100));
      return text(`slept ${args.ms ?? 100}`);
    case 'progress': {
      const token = params._meta?.progressToken;
      const steps = Number(args.steps ?? 3);
      for (let i = 1; i <= steps; i++) {
        if (token !== undefined) ctx.notify('notifications/progress', { progressToken: token, progress: i, total: steps });
        await sleep(Number(args.ms ?? 10));
      }
      return text(`done ${steps}`);
    }
    case 'interleave': {
      await ctx.request('ping', {});
      const roots = await ctx.request('roots/list', {});
      return text(`roots: ${JSON.stringify(roots.roots ?? [])}`);
    }
    case 'resumable': {
      ctx.notify('notifications/message', { level: 'info', data: 'before the drop' });
      ctx.dropConnection();
      await sleep(Number(args.delayMs ?? 50));
      ctx.notify('notifications/message', { level: 'info', data: 'while you were away' });
      return text('resumed ok');
    }
    case 'big':
      return text('x'.repeat(Number(args.bytes ?? 1024)));
    case 'events': {
      const count = Number(args.count ?? 2);
      const method = String(args.method ?? 'notifications/tool_event');
      for (let i = 1; i <= count; i++) {
        await sleep(Number(args.intervalMs ?? 10));
        ctx.notify(method, { tag: args.tag ?? null, seq: i });
        ctx.notify('notifications/message', { level: 'info', logger: 'events', data: { tag: args.tag ?? null, seq: i } });
      }
      return text(`sent ${count} ${method}`);
    }
    case 'get_notify': {
      const sent = ctx.notifyGet('notifications/message', { level: 'info', data: String(args.text ?? 'hello from GET') });
      return text(sent ? 'sent' : 'no GET stream');
    }
    default:
      return { content: [{ type: 'text', text: `unknown tool ${params.name}` }], isError: true };
  }
}
