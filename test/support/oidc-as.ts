/**
 * A real authorization server for the OAuth tests: oidc-provider (a certified OpenID provider)
 * in this process on 127.0.0.1, with Dynamic Client Registration, PKCE (S256, required for
 * public clients), resource indicators (RFC 8707: opaque access tokens bound to the MCP server),
 * refresh-token rotation, revocation (RFC 7009) and introspection (RFC 7662, for the protected
 * MCP server). The login/consent interaction is approved programmatically: a "browser"
 * (`approve`) follows the authorization URL with a cookie jar and the interaction route grants
 * what was asked for user `alice`.
 *
 * Counters: `refreshes` (refresh_token grants that succeeded), `refreshFailures`,
 * `codeGrants`, `revocations`, `registrations`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';

export interface TestAs {
  issuer: string;
  provider: Provider;
  /** The confidential client the MCP server introspects with. */
  introspector: { id: string; secret: string };
  counts: { refreshes: number; refreshFailures: number; codeGrants: number; revocations: number; registrations: number };
  /** Method and URL (path + query) of every request. */
  requests: string[];
  /** A pre-registered confidential native client (any loopback port). */
  preRegistered: { id: string; secret: string };
  /** Acts as the user's browser: follows `authorizationUrl` to the redirect and returns that URL (not fetched). */
  approve(authorizationUrl: string | URL): Promise<URL>;
  close(): Promise<void>;
}

export interface TestAsOptions {
  /** Access token lifetime in seconds (default 300). */
  accessTokenTtl?: number;
  /** Resource servers this AS issues tokens for (their canonical URIs), with their scope. */
  resources: Record<string, string>;
  /** RFC 9449: oidc-provider's `features.dPoP` (a proof at the token endpoint binds the tokens to its key). */
  dpop?: boolean;
}

export async function startTestAs(options: TestAsOptions): Promise<TestAs> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const introspector = { id: 'mcp-resource-server', secret: 'introspector-secret-0b7c1d2e3f4a5b6c7d8e9f' };
  const counts = { refreshes: 0, refreshFailures: 0, codeGrants: 0, revocations: 0, registrations: 0 };
  const requests: string[] = [];
  const preRegistered = { id: 'preregistered-mcpwire', secret: 'prereg-secret-5e6f7a8b9c0d1e2f3a4b' };
  const scopes = new Set<string>(['openid', 'offline_access']);
  for (const s of Object.values(options.resources)) for (const x of s.split(' ')) scopes.add(x);

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: introspector.id,
        client_secret: introspector.secret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: preRegistered.id,
        client_secret: preRegistered.secret,
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: [...scopes],
    claims: { openid: ['sub'] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: options.dpop === true },
      registration: { enabled: true },
      revocation: { enabled: true, allowedPolicy: async () => true },
      introspection: { enabled: true, allowedPolicy: async (ctx) => ctx.oidc.client?.clientId === introspector.id },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          const scope = options.resources[resource];
          if (scope === undefined) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return { scope, audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: options.accessTokenTtl ?? 300 };
        },
      },
    },
    pkce: { required: () => true },
    // Refresh tokens whenever the client may use them (no offline_access needed), rotated on every use.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    ttl: { RefreshToken: 24 * 3600, Grant: 24 * 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-not-a-secret'] },
  });
  provider.on('grant.success', (ctx) => {
    const gt = ctx.oidc.params?.grant_type;
    if (gt === 'refresh_token') counts.refreshes++;
    if (gt === 'authorization_code') counts.codeGrants++;
  });
  provider.on('grant.error', (ctx) => {
    if (ctx.oidc?.params?.grant_type === 'refresh_token') counts.refreshFailures++;
  });
  provider.on('registration_create.success', () => counts.registrations++);

  const callback = provider.callback();
  server.on('request', (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.method === 'POST' && req.url?.startsWith('/token/revocation')) res.on('finish', () => res.statusCode === 200 && counts.revocations++);
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (!m) return void callback(req, res);
    void approveInteraction(provider, req, res).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String((err as Error).message));
    });
  });

  return {
    issuer,
    provider,
    introspector,
    counts,
    requests,
    preRegistered,
    approve: (u) => browse(new URL(u), issuer),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Logs `alice` in and grants everything asked for (scopes and resource scopes). */
async function approveInteraction(provider: Provider, req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const clientId = String(details.params.client_id);
  const accountId = 'alice';
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
  if (!grant) throw new Error('grant not found');
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, s] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, s.join(' '));
  const grantId = await grant.save();
  const result = { login: { accountId }, consent: { grantId } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

/**
 * Follows redirects from `start` with a cookie jar while they stay on the AS; the first redirect
 * elsewhere (the client's redirect URI) is returned without being fetched.
 */
async function browse(start: URL, issuer: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`the authorization server answered ${res.status} at ${url.pathname}: ${(await res.text()).slice(0, 300)}`);
    }
    await res.arrayBuffer().catch(() => {});
    const next = new URL(location, url);
    if (next.origin !== new URL(issuer).origin) return next;
    url = next;
  }
  throw new Error('too many redirects at the authorization server');
}
