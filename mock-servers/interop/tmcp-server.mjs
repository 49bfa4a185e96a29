#!/usr/bin/env node
// A real dual-era MCP server built on tmcp (with @tmcp/transport-stdio / @tmcp/transport-http
// and the zod adapter, devDependencies), written from the packages' own README and types, so
// mcpwire's 2026-07-28 client is tested against a second peer no one here wrote.
//
//   node mock-servers/interop/tmcp-server.mjs stdio
//   node mock-servers/interop/tmcp-server.mjs http [--port 0]   → prints "LISTEN http://127.0.0.1:<port>/mcp"
//
// Tools: echo {text}; progress {steps} (server.progress with the request's token);
// confirm {message} (server.elicitation: an MRTR input_required on a 2026-07-28 request).
// Resource mem://readme, prompt greet {name}.

import http from 'node:http';
import { z } from 'zod';
import { McpServer } from 'tmcp';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { StdioTransport } from '@tmcp/transport-stdio';
import { HttpTransport } from '@tmcp/transport-http';

const args = process.argv.slice(2);
const mode = args[0] ?? 'stdio';
const port = args.includes('--port') ? Number(args[args.indexOf('--port') + 1]) : 0;

const server = new McpServer(
  { name: 'interop-tmcp', version: '1.20.0', description: 'tmcp interop peer' },
  {
    adapter: new ZodJsonSchemaAdapter(),
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
  },
);

server.tool({ name: 'echo', description: 'Echoes text', schema: z.object({ text: z.string() }) }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.tool({ name: 'progress', description: 'Reports progress steps', schema: z.object({ steps: z.number().int().min(1).max(20) }) }, async ({ steps }) => {
  for (let i = 1; i <= steps; i++) server.progress(i, steps, `step ${i}`);
  return { content: [{ type: 'text', text: `done ${steps} steps` }] };
});
server.tool({ name: 'confirm', description: 'Asks for confirmation (elicitation)', schema: z.object({ message: z.string() }), replayable: true }, async ({ message }) => {
  const answer = await server.elicitation(message, z.object({ ok: z.boolean() }));
  return { content: [{ type: 'text', text: `${answer.action}: ${JSON.stringify(answer.content ?? null)}` }] };
});
server.resource({ name: 'readme', description: 'A readme', uri: 'mem://readme' }, async (uri) => ({
  contents: [{ uri, mimeType: 'text/plain', text: 'Hello from the tmcp peer.' }],
}));
server.prompt({ name: 'greet', description: 'Greets someone', schema: z.object({ name: z.string() }) }, async ({ name }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
}));

if (mode === 'stdio') {
  new StdioTransport(server).listen();
} else {
  const transport = new HttpTransport(server, { path: '/mcp', allowedOrigins: [] });
  const httpServer = http.createServer(async (req, res) => {
    try {
      const response = (await transport.respond(toRequest(req, res))) ?? new Response(null, { status: 404 });
      await writeResponse(response, res);
    } catch (err) {
      process.stderr.write(`tmcp peer: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  });
  httpServer.listen(port, '127.0.0.1', () => process.stdout.write(`LISTEN http://127.0.0.1:${httpServer.address().port}/mcp\n`));
  process.on('SIGTERM', () => process.exit(0));
}

/** node:http → fetch Request; closing the response aborts it (cancellation by closing the stream). */
function toRequest(req, res) {
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url}`, {
    method: req.method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: req, duplex: 'half' } : {}),
  });
}

async function writeResponse(response, res) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  res.on('close', () => reader.cancel().catch(() => {}));
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}
