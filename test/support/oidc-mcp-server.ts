/**
 * A protected MCP server (Streamable HTTP, JSON responses only) for the OAuth tests: it
 * publishes RFC 9728 protected resource metadata naming the test AS (basic.authorization#6,
 * #11), answers 401 with `WWW-Authenticate: Bearer resource_metadata=…, scope=…` without a valid
 * token (basic.authorization#55), and checks every bearer token by RFC 7662 introspection at the
 * AS: active and issued for this server as audience (basic.authorization#53, #95).
 *
 * With `dpop` (RFC 9449): the PRM says `dpop_bound_access_tokens_required`, a request carries
 * `Authorization: DPoP <token>` and a proof checked by `dpop-verify.ts` whose key's thumbprint
 * must be the token's `cnf.jkt` (from introspection); a bound token sent as Bearer is refused;
 * with `dpop.nonce` the first proof without the server's nonce gets `use_dpop_nonce` (§9).
 * `dpop` records what it accepted and refused (`dpopLog`) and every proof seen.
 *
 * Tools: `whoami` (answers the token's subject and scope). `expireTokens()` makes every token
 * seen so far invalid here (as if it expired) without telling the client.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkDpopProof } from './dpop-verify.js';

export interface TestMcpServer {
  /** The MCP endpoint (`…/mcp`), the canonical resource URI. */
  url: string;
  counts: { calls: number; unauthorized: number; introspections: number };
  /** Every bearer token presented (for leak checks). */
  tokensSeen: Set<string>;
  /** DPoP mode: every proof seen, and each decision (`accepted <jkt>` or `refused: <reason>`). */
  proofsSeen: Set<string>;
  dpopLog: string[];
  /** DPoP mode with nonces: the nonce required now, and how many `use_dpop_nonce` refusals were sent. */
  dpopNonce: string | undefined;
  nonceChallenges: number;
  expireTokens(): void;
  close(): Promise<void>;
}

export interface TestMcpServerOptions {
  issuer: string;
  introspector: { id: string; secret: string };
  scope: string;
  dpop?: { nonce: boolean };
}

/** Starts the server on 127.0.0.1; `url` is known before the AS is (pass it to the AS as a resource). */
export async function startTestMcpServer(): Promise<TestMcpServer & { configure(o: TestMcpServerOptions): void }> {
  let opts: TestMcpServerOptions | undefined;
  const counts = { calls: 0, unauthorized: 0, introspections: 0 };
  const tokensSeen = new Set<string>();
  const expired = new Set<string>();
  const proofsSeen = new Set<string>();
  const dpopLog: string[] = [];
  const seenJti = new Set<string>();
  const state = { nonce: undefined as string | undefined, nonceChallenges: 0 };
  const server: Server = createServer((req, res) => void handle(req, res).catch((err: unknown) => send(res, 500, { error: String(err) })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${base}/mcp`;
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', base).pathname;
    if (req.method === 'GET' && (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource')) {
      const dpop = opts!.dpop ? { dpop_bound_access_tokens_required: true, dpop_signing_alg_values_supported: ['ES256'] } : {};
      return send(res, 200, { resource: url, authorization_servers: [opts!.issuer], scopes_supported: opts!.scope.split(' '), bearer_methods_supported: ['header'], ...dpop });
    }
    if (path !== '/mcp') return send(res, 404, { error: 'not found' });
    const body = await readBody(req);
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice(7) : opts!.dpop && auth?.startsWith('DPoP ') ? auth.slice(5) : undefined;
    if (token !== undefined) tokensSeen.add(token);
    if (opts!.dpop && token !== undefined && !(await dpopAccepts(req, res, token, auth!.startsWith('DPoP ')))) return;
    const info = token !== undefined && !expired.has(token) ? await introspect(token) : undefined;
    if (!info) {
      counts.unauthorized++;
      const error = token !== undefined ? ', error="invalid_token"' : '';
      res.setHeader('www-authenticate', `Bearer resource_metadata="${metadataUrl}", scope="${opts!.scope}"${error}`);
      return send(res, 401, { error: 'unauthorized' });
    }
    if (req.method === 'GET') return send(res, 405, { error: 'no SSE stream here' });
    if (req.method === 'DELETE') return send(res, 200, {});
    if (req.method !== 'POST') return send(res, 405, {});
    const msg = JSON.parse(body) as { id?: number | string; method: string; params?: { name?: string; protocolVersion?: string } };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const result = answer(msg, info);
    if (msg.method === 'initialize') res.setHeader('mcp-session-id', `s-${Math.random().toString(36).slice(2)}`);
    return send(res, 200, { jsonrpc: '2.0', id: msg.id, ...result });
  }

  function answer(msg: { method: string; params?: { name?: string; protocolVersion?: string } }, info: { sub?: string; scope?: string }): Record<string, unknown> {
    switch (msg.method) {
      case 'initialize':
        return { result: { protocolVersion: msg.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'oauth-test-server', version: '1.0.0' } } };
      case 'ping':
        return { result: {} };
      case 'tools/list':
        return { result: { tools: [{ name: 'whoami', description: 'who the token is for', inputSchema: { type: 'object', properties: {} } }] } };
      case 'tools/call':
        counts.calls++;
        return { result: { content: [{ type: 'text', text: `subject=${info.sub} scope=${info.scope}` }] } };
      default:
        return { error: { code: -32601, message: `unknown method ${msg.method}` } };
    }
  }

  /** RFC 9449 §7.1: the DPoP scheme with a valid proof whose key is the token's `cnf.jkt`; false when refused (answered). */
  async function dpopAccepts(req: IncomingMessage, res: ServerResponse, token: string, dpopScheme: boolean): Promise<boolean> {
    const refuse = (error: string, reason: string): false => {
      dpopLog.push(`refused: ${reason}`);
      counts.unauthorized++;
      if (error === 'use_dpop_nonce') {
        state.nonceChallenges++;
        res.setHeader('dpop-nonce', state.nonce!);
      }
      res.setHeader('www-authenticate', `DPoP error="${error}", algs="ES256"`);
      send(res, 401, { error });
      return false;
    };
    const proof = req.headers.dpop;
    if (typeof proof === 'string') proofsSeen.add(proof);
    if (!dpopScheme) {
      // A token bound to a key is worthless without a proof of that key (RFC 9449 §7.2).
      const j = await introspectRaw(token);
      return j.cnf?.jkt !== undefined ? refuse('invalid_token', 'a DPoP-bound token sent as Bearer') : true;
    }
    if (opts!.dpop!.nonce) state.nonce ??= `n-${Math.random().toString(36).slice(2)}`;
    const check = checkDpopProof(proof, { method: req.method ?? 'GET', url: new URL(req.url ?? '/', base).href, accessToken: token, seenJti, ...(state.nonce !== undefined ? { nonce: state.nonce } : {}) });
    if (!check.ok) return refuse(check.error, check.reason);
    if (expired.has(token)) return true; // refused below as an expired token
    const j = await introspectRaw(token);
    if (j.cnf?.jkt !== check.jkt) return refuse('invalid_token', 'the proof key is not the one the token is bound to');
    dpopLog.push(`accepted ${check.jkt}`);
    return true;
  }

  async function introspectRaw(token: string): Promise<{ active?: boolean; aud?: string | string[]; sub?: string; scope?: string; token_type?: string; cnf?: { jkt?: string } }> {
    const basic = Buffer.from(`${encodeURIComponent(opts!.introspector.id)}:${encodeURIComponent(opts!.introspector.secret)}`).toString('base64');
    const res = await fetch(`${opts!.issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    return (await res.json()) as { active?: boolean; cnf?: { jkt?: string } };
  }

  async function introspect(token: string): Promise<{ sub?: string; scope?: string } | undefined> {
    counts.introspections++;
    const j = await introspectRaw(token);
    if (!j.active || j.token_type === 'refresh_token') return undefined;
    const aud = Array.isArray(j.aud) ? j.aud : [j.aud];
    return aud.includes(url) ? j : undefined;
  }

  return {
    url,
    counts,
    tokensSeen,
    proofsSeen,
    dpopLog,
    get dpopNonce() {
      return state.nonce;
    },
    get nonceChallenges() {
      return state.nonceChallenges;
    },
    configure(o) {
      opts = o;
    },
    expireTokens() {
      for (const t of tokensSeen) expired.add(t);
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
