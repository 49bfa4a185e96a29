#!/usr/bin/env node
/**
 * A mock OAuth 2.1 authorization server plus a protected MCP endpoint (one HTTP server on
 * 127.0.0.1), for tests of src/auth/. It auto-approves every authorization request (302 to the
 * redirect URI with code + state) and can misbehave the ways a compliant server never does:
 *
 *   prmResource        the PRM names another resource (the client must refuse)
 *   pkceMethods        code_challenge_methods_supported (null = omitted; ['plain'] = no S256)
 *   redirectIss        the `iss` put on the redirect (an issuer mix-up)
 *   stepUpForever      every tools/call is refused with 403 insufficient_scope
 *   callScope          the scope tools/call needs (403 insufficient_scope with it otherwise)
 *   clientPrefix       registered client ids are `<clientPrefix>-<n>` (default `client`)
 *   noRefresh          the authorization code grant issues no refresh token
 *   rotate             each refresh issues a new refresh token; a rotated-out one gets invalid_grant
 *   refreshError       the refresh grant fails with this OAuth error (e.g. invalid_grant, temporarily_unavailable)
 *   refreshDelayMs     the refresh grant waits this long before it is looked at; a client that
 *                      hangs up meanwhile (killed mid-refresh) leaves its refresh token live
 *   expiresIn          access token lifetime in seconds (default 3600)
 *   noExpiresIn        token responses carry no `expires_in` (it is only RECOMMENDED)
 *   dpop               DPoP (RFC 9449): the AS metadata lists dpop_signing_alg_values_supported
 *                      ['ES256']; a token request with a valid proof gets a DPoP-bound token
 *                      (token_type DPoP, bound to the proof key's thumbprint, refresh too), which
 *                      the MCP endpoint accepts only as `Authorization: DPoP` with a fresh proof
 *                      (htm, htu, ath, unique jti, same key)
 *   dpopRequired       the PRM says dpop_bound_access_tokens_required
 *   asNonce            the token endpoint wants proofs with the nonce `as-nonce` (use_dpop_nonce)
 *   rsNonce            the MCP endpoint wants proofs with the nonce `rs-nonce` (401 use_dpop_nonce)
 *   issuer             the `issuer` the AS metadata names, or a function of the mock's base URL
 *                      giving it (default: the base URL itself)
 *   authMethods        token_endpoint_auth_methods_supported (default ['client_secret_basic','none'])
 *   cimd               advertise client_id_metadata_document_supported
 *   noRegistration     no registration_endpoint
 *   scopesSupported    PRM scopes_supported
 *   challengeScope     scope="…" in the 401 challenge
 *   echoSecrets        the token endpoint's error_description echoes the code and verifier
 *   noPrm              no protected resource metadata (a 2025-03-26 server)
 *   noMetadata         no metadata at all (2025-03-26 default endpoints)
 *   bareChallenge      the 401 challenge names no resource_metadata, though the PRM is served at
 *                      its well-known URL (the client must find it there)
 *   asServers          the PRM's authorization_servers list (e.g. an http:// non-loopback AS)
 *   authorizationEndpoint  the AS metadata's authorization_endpoint
 *
 * Also: client_credentials (client secret or private_key_jwt), the jwt-bearer grant for
 * assertions starting `jag-`, and a toy IdP at /idp/token (RFC 8693 exchange of the ID token
 * `id-token-of-alice` for an ID-JAG, SEP-990).
 *
 * `migrateTo(other)` moves the MCP endpoint to another mock's AS (its PRM names it; only its tokens
 * are accepted from then on).
 *
 * `log` records every request as {path, method, params, authorization} (form bodies parsed) so
 * tests can check what the client sent. Run directly, it prints the MCP URL and serves forever.
 */
import http from 'node:http';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

export async function startOAuthMock(options = {}) {
  const o = { expiresIn: 3600, authMethods: ['client_secret_basic', 'none'], ...options };
  const log = [];
  const codes = new Map(); // code → {challenge, clientId, redirectUri, scope, resource}
  const tokens = new Map(); // access → {scope, resource, expiresAt}
  const refreshes = new Map(); // refresh → {scope, resource, live}
  const clients = new Map(); // client_id → {secret, method}
  const counters = { authorize: 0, token: 0, refresh: 0, register: 0, mcp: 0, refreshAbandoned: 0, revokedRefresh: 0 };
  let base = '';

  const issue = (scope, resource, withRefresh = true, jkt = undefined) => {
    const access = `at-${b64url(randomBytes(18))}`;
    tokens.set(access, { scope, resource, expiresAt: Date.now() + o.expiresIn * 1000, jkt });
    const out = { access_token: access, token_type: jkt ? 'DPoP' : 'Bearer', ...(o.noExpiresIn ? {} : { expires_in: o.expiresIn }), ...(scope ? { scope } : {}) };
    if (withRefresh) {
      const refresh = `rt-${b64url(randomBytes(18))}`;
      refreshes.set(refresh, { scope, resource, live: true, jkt });
      out.refresh_token = refresh;
    }
    return out;
  };

  const json = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const jtis = new Set();
  /** Checks a DPoP proof (RFC 9449 §4.3); its key's thumbprint, or an error string. */
  const checkProof = (proof, htm, htu, accessToken) => {
    if (typeof proof !== 'string' || proof.split('.').length !== 3) return { error: 'missing or malformed DPoP proof' };
    const [h, p, sig] = proof.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || header.jwk === undefined || header.jwk.d !== undefined) return { error: 'bad proof header' };
    const key = createPublicKey({ key: header.jwk, format: 'jwk' });
    if (!verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))) return { error: 'bad proof signature' };
    if (claims.htm !== htm || claims.htu !== htu) return { error: `proof names ${claims.htm} ${claims.htu}` };
    if (typeof claims.jti !== 'string' || jtis.has(claims.jti)) return { error: 'proof jti missing or replayed' };
    if (typeof claims.iat !== 'number' || Math.abs(claims.iat - Date.now() / 1000) > 300) return { error: 'proof iat' };
    if (accessToken !== undefined && claims.ath !== b64url(createHash('sha256').update(accessToken).digest())) return { error: 'proof ath' };
    jtis.add(claims.jti);
    const { crv, kty, x, y } = header.jwk;
    const jkt = b64url(createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest());
    return { jkt, claims };
  };

  const asMetadata = () => ({
    issuer: typeof o.issuer === 'function' ? o.issuer(base) : (o.issuer ?? base),
    authorization_endpoint: o.authorizationEndpoint ?? `${base}/authorize`,
    token_endpoint: `${base}/token`,
    ...(o.noRegistration ? {} : { registration_endpoint: `${base}/register` }),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: o.authMethods,
    ...(o.pkceMethods === null ? {} : { code_challenge_methods_supported: o.pkceMethods ?? ['S256'] }),
    ...(o.cimd ? { client_id_metadata_document_supported: true } : {}),
    ...(o.issParameter ? { authorization_response_iss_parameter_supported: true } : {}),
    ...(o.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
  });

  const challenge = (extra = '') =>
    o.noPrm || o.bareChallenge ? `Bearer realm="mcp"${extra}` : `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"${o.challengeScope ? `, scope="${o.challengeScope}"` : ''}${extra}`;

  const clientAuthOk = (req, params) => {
    const h = req.headers.authorization;
    let id = params.client_id;
    let secret = params.client_secret;
    if (h?.startsWith('Basic ')) {
      const [u, p] = Buffer.from(h.slice(6), 'base64').toString().split(':');
      id = decodeURIComponent(u.replace(/\+/g, ' '));
      secret = decodeURIComponent((p ?? '').replace(/\+/g, ' '));
    }
    const c = clients.get(id);
    if (params.client_assertion !== undefined) {
      // private_key_jwt: the claims are recorded (tests verify the signature with the public key).
      const [, payload] = params.client_assertion.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      return claims.iss === claims.sub && claims.aud === base && clients.has(claims.iss);
    }
    if (c === undefined) return id !== undefined && id.startsWith('https://'); // CIMD client ids
    return c.secret === undefined || c.secret === secret;
  };

  const token = (req, res, params, delayed = false) => {
    if (o.refreshDelayMs > 0 && params.grant_type === 'refresh_token' && !delayed) {
      let gone = false;
      res.once('close', () => (gone = !res.writableFinished));
      setTimeout(() => {
        if (gone || res.destroyed || req.socket.destroyed) return void counters.refreshAbandoned++;
        token(req, res, params, true);
      }, o.refreshDelayMs);
      return;
    }
    counters.token++;
    if (!clientAuthOk(req, params)) return json(res, 401, { error: 'invalid_client' });
    let jkt;
    if (o.dpop && req.headers.dpop !== undefined) {
      const proof = checkProof(req.headers.dpop, 'POST', `${base}/token`);
      if (proof.error) return json(res, 400, { error: 'invalid_dpop_proof', error_description: proof.error });
      if (o.asNonce && proof.claims.nonce !== 'as-nonce') return json(res, 400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': 'as-nonce' });
      jkt = proof.jkt;
    }
    if (params.grant_type === 'authorization_code') {
      if (o.echoSecrets) return json(res, 400, { error: 'invalid_request', error_description: `bad verifier ${params.code_verifier} for code ${params.code}` });
      const c = codes.get(params.code);
      codes.delete(params.code);
      if (c === undefined) return json(res, 400, { error: 'invalid_grant' });
      if (b64url(createHash('sha256').update(params.code_verifier ?? '').digest()) !== c.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE' });
      return json(res, 200, issue(c.scope, params.resource, !o.noRefresh, jkt));
    }
    if (params.grant_type === 'refresh_token') {
      counters.refresh++;
      if (o.refreshError) return json(res, 400, { error: o.refreshError });
      const r = refreshes.get(params.refresh_token);
      if (r !== undefined && !r.live) counters.revokedRefresh++;
      if (r === undefined || !r.live) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token unknown or rotated out' });
      // RFC 9449 §5: a refresh token bound to a DPoP key is used only with a proof of that key.
      if (r.jkt !== undefined && r.jkt !== jkt) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token bound to another DPoP key' });
      if (o.rotate) r.live = false;
      const out = issue(r.scope, params.resource ?? r.resource, o.rotate === true, r.jkt);
      return json(res, 200, out);
    }
    if (params.grant_type === 'client_credentials') return json(res, 200, issue(params.scope, params.resource, false, jkt));
    if (params.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      if (!String(params.assertion ?? '').startsWith('jag-')) return json(res, 400, { error: 'invalid_grant' });
      return json(res, 200, issue(params.scope, params.resource, false));
    }
    return json(res, 400, { error: 'unsupported_grant_type' });
  };

  const mcp = (req, res, body) => {
    counters.mcp++;
    const auth = req.headers.authorization;
    const scheme = auth?.startsWith('Bearer ') ? 'bearer' : auth?.startsWith('DPoP ') ? 'dpop' : undefined;
    const presented = scheme === 'bearer' ? auth.slice(7) : scheme === 'dpop' ? auth.slice(5) : undefined;
    let t = presented !== undefined ? (o.acceptFrom ?? tokens).get(presented) : undefined;
    if (t?.jkt !== undefined) {
      // A DPoP-bound token: the DPoP scheme and a fresh proof of the same key (RFC 9449 §7).
      const proof = scheme === 'dpop' ? checkProof(req.headers.dpop, 'POST', `${base}/mcp`, presented) : { error: 'bound token sent as Bearer' };
      if (proof.error || proof.jkt !== t.jkt) {
        log.at(-1).dpopError = proof.error ?? 'proof of another key';
        return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `DPoP error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` });
      }
      if (o.rsNonce && proof.claims.nonce !== 'rs-nonce') {
        return json(res, 401, { error: 'use_dpop_nonce' }, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'rs-nonce' });
      }
    } else if (scheme === 'dpop') t = undefined;
    if (t === undefined || t.expiresAt < Date.now()) {
      return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': challenge(t ? ', error="invalid_token"' : '') });
    }
    let msg;
    try {
      msg = JSON.parse(body);
    } catch {
      return json(res, 400, { error: 'bad json' });
    }
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const scopes = (t.scope ?? '').split(' ');
    if (msg.method === 'tools/call' && (o.stepUpForever || (o.callScope && !o.callScope.split(' ').every((s) => scopes.includes(s))))) {
      const need = o.callScope ?? 'mcp:admin';
      return json(res, 403, { error: 'insufficient_scope' }, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${need}", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` });
    }
    const result =
      msg.method === 'initialize'
        ? { protocolVersion: msg.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'oauth-mock', version: '1.0.0' } }
        : msg.method === 'tools/list'
          ? { tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] }
          : msg.method === 'tools/call'
            ? { content: [{ type: 'text', text: `scope=${t.scope ?? ''}` }] }
            : {};
    json(res, 200, { jsonrpc: '2.0', id: msg.id, result });
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const url = new URL(req.url, base);
      const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const params = isForm ? Object.fromEntries(new URLSearchParams(body)) : Object.fromEntries(url.searchParams);
      log.push({ method: req.method, path: url.pathname, params, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), ...(req.headers.dpop ? { dpop: req.headers.dpop } : {}), ...(req.headers['content-type']?.startsWith('application/json') && req.method === 'POST' && url.pathname !== '/mcp' ? { json: JSON.parse(body || '{}') } : {}) });
      if (o.noPrm && url.pathname.startsWith('/.well-known/oauth-protected-resource')) return json(res, 404, { error: 'not_found' });
      if (o.noMetadata && url.pathname.startsWith('/.well-known/')) return json(res, 404, { error: 'not_found' });
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return json(res, 200, { resource: o.prmResource ?? `${base}/mcp`, authorization_servers: o.asServers ?? [base], ...(o.scopesSupported ? { scopes_supported: o.scopesSupported } : {}), ...(o.dpopRequired ? { dpop_bound_access_tokens_required: true } : {}) });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') return json(res, 200, asMetadata());
      if (url.pathname === '/authorize') {
        counters.authorize++;
        const p = url.searchParams;
        const code = `code-${b64url(randomBytes(12))}`;
        codes.set(code, { challenge: p.get('code_challenge'), scope: p.get('scope') ?? undefined, resource: p.get('resource') });
        const to = new URL(p.get('redirect_uri'));
        to.searchParams.set('code', code);
        if (p.get('state') !== null) to.searchParams.set('state', o.wrongState ?? p.get('state'));
        if (o.redirectIss !== undefined) to.searchParams.set('iss', o.redirectIss);
        res.writeHead(302, { location: to.href }).end();
        return;
      }
      if (url.pathname === '/register' && req.method === 'POST') {
        counters.register++;
        const meta = JSON.parse(body || '{}');
        const id = `${o.clientPrefix ?? 'client'}-${counters.register}`;
        const method = meta.token_endpoint_auth_method ?? 'client_secret_basic';
        const secret = method === 'none' ? undefined : `secret-${b64url(randomBytes(12))}`;
        clients.set(id, { secret, method });
        return json(res, 201, { client_id: id, ...(secret ? { client_secret: secret } : {}), token_endpoint_auth_method: method, redirect_uris: meta.redirect_uris ?? [] });
      }
      if (url.pathname === '/token' && req.method === 'POST') return token(req, res, params);
      if (url.pathname === '/idp/token' && req.method === 'POST') {
        // A toy enterprise IdP (SEP-990): ID token → ID-JAG for the audience/resource asked.
        if (params.grant_type !== 'urn:ietf:params:oauth:grant-type:token-exchange' || params.subject_token !== 'id-token-of-alice') return json(res, 400, { error: 'invalid_grant' });
        return json(res, 200, { access_token: `jag-${b64url(randomBytes(12))}`, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' });
      }
      if (url.pathname === '/mcp' && req.method === 'POST') return mcp(req, res, body);
      if (url.pathname === '/mcp') return json(res, 405, { error: 'method not allowed' });
      json(res, 404, { error: 'not_found' });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${base}/mcp`,
    base,
    log,
    counters,
    clients,
    refreshes,
    tokens,
    /**
     * The MCP server moves to the authorization server of mock `other`: its PRM names `other`,
     * and only `other`'s access tokens are accepted from now on.
     */
    migrateTo(other) {
      o.asServers = [other.base];
      o.acceptFrom = other.tokens;
    },
    /** Marks every access token expired (the next MCP request gets 401). */
    expireAll() {
      for (const t of tokens.values()) t.expiresAt = 0;
    },
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const m = await startOAuthMock(process.env.MOCK_OAUTH_JSON ? JSON.parse(process.env.MOCK_OAUTH_JSON) : {});
  process.stdout.write(`${m.url}\n`);
}
