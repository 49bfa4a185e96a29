/**
 * Whether a configured HTTP server advertises OAuth at all, asked before telling anyone to log
 * in: protected resource metadata (RFC 9728) or authorization server metadata at its root (the
 * 2025-03-26 fallback), a client or endpoints named in the config, or a `401` challenge to an
 * unauthenticated request. A server with none of these needs no login: `login` says so instead
 * of failing at Dynamic Client Registration, and `auth status` does not suggest it.
 */
import { parseBearerChallenge } from '../auth/challenge.js';
import { discover } from '../auth/discovery.js';
import type { ResolvedServer } from './config/types.js';
import { discoverProbe } from '../mcp/eras/modern.js';

/** What the probe found: `offered` (with how), `not-offered` (with what was asked), or `unknown` (it could not tell). */
export type OAuthOffer = { kind: 'offered'; via: string } | { kind: 'not-offered'; detail: string } | { kind: 'unknown'; detail: string };

export interface OAuthOfferOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Per HTTP exchange (default 5000 ms). */
  timeoutMs?: number;
}

/** Asks the server (metadata first, then one unauthenticated request) whether it advertises OAuth. */
export async function oauthOffer(server: ResolvedServer, o: OAuthOfferOptions = {}): Promise<OAuthOffer> {
  const c = server.config.oauth ?? {};
  if (c.clientId !== undefined || c.authorizationUrl !== undefined || c.tokenUrl !== undefined) return { kind: 'offered', via: 'the config' };
  const url = server.config.url;
  if (url === undefined) return { kind: 'unknown', detail: 'no URL' };
  const f = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? 5000;
  let challenge: string | undefined;
  try {
    const status = await unauthenticated(server, url, f, timeoutMs, o.signal);
    if (status.code === 401) challenge = parseBearerChallenge(status.wwwAuthenticate)?.resource_metadata ?? '';
  } catch (err) {
    return { kind: 'unknown', detail: `the server did not answer: ${(err as Error).message}` };
  }
  try {
    const d = await discover({ fetch: f, timeoutMs }, url, challenge || undefined, o.signal);
    if (d.via !== 'legacy-defaults') return { kind: 'offered', via: d.via === 'prm' ? 'protected resource metadata' : 'authorization server metadata' };
  } catch (err) {
    // a metadata document that is there but wrong still means the server meant OAuth
    return { kind: 'offered', via: `metadata (${(err as Error).message})` };
  }
  if (challenge !== undefined) return { kind: 'offered', via: 'a 401 challenge' };
  return { kind: 'not-offered', detail: 'no protected resource metadata, no authorization server metadata, and an unauthenticated request was not refused with a 401 challenge' };
}

/** One unauthenticated request, as a client's first: its status and challenge (the body is dropped). */
async function unauthenticated(server: ResolvedServer, url: string, f: typeof fetch, timeoutMs: number, signal?: AbortSignal): Promise<{ code: number; wwwAuthenticate: string | undefined }> {
  const s = AbortSignal.timeout(timeoutMs);
  const probe = discoverProbe('mcpwire-oauth-probe');
  const res = await f(url, {
    method: 'POST',
    headers: {
      ...(server.config.headers ?? {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...probe.headers,
    },
    body: JSON.stringify(probe.body),
    signal: signal === undefined ? s : AbortSignal.any([signal, s]),
    redirect: 'manual',
  });
  await res.body?.cancel().catch(() => undefined);
  return { code: res.status, wwwAuthenticate: res.headers.get('www-authenticate') ?? undefined };
}
