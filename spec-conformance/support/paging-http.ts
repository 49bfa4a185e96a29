/**
 * A small Streamable HTTP server (JSON responses, real socket on 127.0.0.1) whose list cursors
 * belong to the session that issued them, for pagination-across-sessions tests
 * (server.utilities.pagination#4: cursors are not persistent across sessions). Every paginated
 * list has two pages. `expireAfterFirstPage` makes the session expire right after it served a
 * first page, so the next POST carrying it gets 404 (basic.transports#44).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedPost {
  session: string | undefined;
  method?: string;
  params?: Record<string, unknown>;
  status: number;
}

export interface PagingServer {
  url: string;
  posts: RecordedPost[];
  /** Expire the session right after the next first page served (once). */
  expireAfterFirstPage: boolean;
  close(): Promise<void>;
}

const LISTS: Record<string, { key: string; items: (page: number) => unknown[] }> = {
  'tools/list': { key: 'tools', items: (p) => [{ name: `tool${p}`, inputSchema: { type: 'object' } }] },
  'resources/list': { key: 'resources', items: (p) => [{ uri: `mem://r${p}`, name: `r${p}` }] },
  'resources/templates/list': { key: 'resourceTemplates', items: (p) => [{ uriTemplate: `mem://t${p}/{x}`, name: `t${p}` }] },
  'prompts/list': { key: 'prompts', items: (p) => [{ name: `prompt${p}` }] },
};

export async function startPagingServer(): Promise<PagingServer> {
  const sessions = new Set<string>();
  let seq = 0;
  const state: PagingServer = { url: '', posts: [], expireAfterFirstPage: false, close: async () => {} };

  const answer = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, body === undefined ? headers : { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

  const handle = (msg: { id?: number | string; method?: string; params?: Record<string, unknown> }, session: string | undefined): unknown => {
    if (msg.method === 'initialize') {
      return {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {}, resources: {}, prompts: {} },
        serverInfo: { name: 'paging', version: '1.0.0' },
      };
    }
    if (msg.method === 'ping') return {};
    const list = LISTS[msg.method ?? ''];
    if (list === undefined) return { error: { code: -32601, message: 'Method not found' } };
    const cursor = msg.params?.cursor;
    if (cursor === undefined) {
      if (state.expireAfterFirstPage) {
        state.expireAfterFirstPage = false;
        sessions.delete(session!);
      }
      return { [list.key]: list.items(1), nextCursor: `${session}|page2` };
    }
    // server.utilities.pagination#5: a cursor this session did not issue is invalid.
    if (cursor !== `${session}|page2`) return { error: { code: -32602, message: `Invalid cursor ${String(cursor)}` } };
    return { [list.key]: list.items(2) };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET') return answer(res, 405, undefined, { allow: 'POST, DELETE' });
      if (req.method === 'DELETE') return answer(res, 200);
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      let session = req.headers['mcp-session-id'] as string | undefined;
      const headers: Record<string, string> = {};
      if (msg.method === 'initialize') {
        session = `S${++seq}`;
        sessions.add(session);
        headers['mcp-session-id'] = session;
      } else if (session === undefined || !sessions.has(session)) {
        state.posts.push({ session, method: msg.method, params: msg.params, status: 404 });
        return answer(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      }
      const status = msg.id === undefined ? 202 : 200;
      state.posts.push({ session, method: msg.method, params: msg.params, status });
      if (msg.id === undefined) return answer(res, 202);
      const out = handle(msg, session) as { error?: unknown };
      const body = out !== null && typeof out === 'object' && 'error' in out ? { jsonrpc: '2.0', id: msg.id, error: out.error } : { jsonrpc: '2.0', id: msg.id, result: out };
      answer(res, 200, body, headers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
