/**
 * A small Streamable HTTP MCP server (JSON responses, sessions) over the stdio mock's scenario
 * engine, so a documentation example that names a remote server (`https://mcp.example.com/mcp`
 * with a `file:///guide.md` resource and a `summarize` prompt) has something local to talk to.
 * Bound to 127.0.0.1 on an ephemeral port.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createScenarioServer, type Scenario, type ScenarioServer } from '../../mock-servers/lib/mcp-scenario.mjs';

export interface DocsHttpServer {
  url: string;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function newSession(scenario: Scenario): ScenarioServer {
  return createScenarioServer(scenario, {
    send: () => {}, // server-initiated messages have no stream here (GET answers 405)
    sendRaw: () => {},
    exit: () => {},
    stderr: () => {},
  });
}

async function answer(sessions: Map<string, ScenarioServer>, scenario: Scenario, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === 'DELETE') {
    sessions.delete(String(req.headers['mcp-session-id']));
    res.writeHead(200).end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST, DELETE' }).end();
    return;
  }
  const message = JSON.parse(await readBody(req)) as { id?: unknown; method?: string };
  let sid = req.headers['mcp-session-id'] as string | undefined;
  let server = sid === undefined ? undefined : sessions.get(sid);
  if (message.method === 'initialize' && sid === undefined) {
    sid = randomUUID();
    server = newSession(scenario);
    sessions.set(sid, server);
  }
  if (server === undefined) {
    res.writeHead(sid === undefined ? 400 : 404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no session"}}');
    return;
  }
  if (message.id === undefined || message.method === undefined) {
    await server.handleMessage(message);
    res.writeHead(202, { 'mcp-session-id': sid! }).end();
    return;
  }
  let reply: unknown;
  await server.handleMessage(message, { send: (m) => (reply = m) });
  res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sid! }).end(JSON.stringify(reply));
}

export async function startDocsHttpServer(scenario: Scenario): Promise<DocsHttpServer> {
  const sessions = new Map<string, ScenarioServer>();
  const server = http.createServer((req, res) => {
    answer(sessions, scenario, req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err.message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
