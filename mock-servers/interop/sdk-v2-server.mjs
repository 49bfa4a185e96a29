#!/usr/bin/env node
// A real MCP server built on the official TypeScript SDK v2 (@modelcontextprotocol/server,
// a devDependency), written the way its own docs and types say, so mcpwire's 2026-07-28 client
// is tested against a peer no one here wrote. Not a mock: no scripted misbehaviour.
//
//   node mock-servers/interop/sdk-v2-server.mjs stdio [--legacy reject|serve]
//   node mock-servers/interop/sdk-v2-server.mjs http  [--legacy reject|stateless] [--port 0]
//     → prints "LISTEN http://127.0.0.1:<port>/mcp"
//
// Tools: echo {text}; progress {steps} (notifications/progress with the request's token);
// confirm {message} (an MRTR elicitation: input_required, then the retry's answer). Resource
// mem://readme, prompt greet {name}. `--legacy reject` is a modern-only server; the default
// (serve / stateless) is dual-era.

import http from 'node:http';
import { z } from 'zod';
import { McpServer, createMcpHandler, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';

const args = process.argv.slice(2);
const transport = args[0] ?? 'stdio';
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);

function factory() {
  const server = new McpServer(
    { name: 'interop-sdk-v2', version: '2.4.0' },
    { instructions: 'SDK v2 interop peer', cacheHints: { 'tools/list': { ttlMs: 30_000, cacheScope: 'public' } } },
  );
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'progress',
    { description: 'Reports progress steps', inputSchema: z.object({ steps: z.number().int().min(1).max(20) }) },
    async ({ steps }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
      }
      return { content: [{ type: 'text', text: `done ${steps} steps` }] };
    },
  );
  server.registerTool('confirm', { description: 'Asks for confirmation (MRTR)', inputSchema: z.object({ message: z.string() }) }, async ({ message }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    if (answer.kind === 'elicit') return { content: [{ type: 'text', text: `${answer.action}: ${JSON.stringify(answer.content ?? null)}` }] };
    return inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }),
      },
    });
  });
  server.registerResource('readme', 'mem://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from the SDK v2 peer.' }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
  }));
  return server;
}

if (transport === 'stdio') {
  serveStdio(factory, { legacy: opt('legacy', 'serve'), onerror: (e) => process.stderr.write(`sdk-v2 peer: ${e.message}\n`) });
} else {
  const handler = createMcpHandler(factory, { legacy: opt('legacy', 'stateless'), keepAliveMs: 0 });
  const node = toNodeHandler(handler);
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    node(req, res).catch(() => res.destroy());
  });
  server.listen(Number(opt('port', '0')), '127.0.0.1', () => {
    process.stdout.write(`LISTEN http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  const stop = () => handler.close().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
