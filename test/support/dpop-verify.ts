/**
 * A resource server's check of a DPoP proof (RFC 9449 §4.3, §7.1), written on Node crypto alone
 * so that it does not share code with the client under test: one well-formed `dpop+jwt` JWS
 * signed with the public `jwk` of its header, `htm`/`htu` naming this request, `iat` within a
 * window, a `jti` not seen before (replay cache), the server's nonce when it handed one out,
 * `ath` = base64url(SHA-256(access token)); the key's RFC 7638 thumbprint is returned for the
 * caller to compare with the token's `cnf.jkt` (§6.1).
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

export type ProofCheck = { ok: true; jkt: string; jti: string } | { ok: false; error: 'invalid_dpop_proof' | 'use_dpop_nonce'; reason: string };

export interface ProofExpectation {
  method: string;
  /** The request's URL as the server sees it (query and fragment are ignored, §4.3 step 9). */
  url: string;
  accessToken: string;
  /** Seen `jti`s (the replay cache, kept by the caller for the `iat` window). */
  seenJti: Set<string>;
  /** The nonce the server requires, when it requires one. */
  nonce?: string;
  now?: number;
  /** Accepted clock difference for `iat`, seconds (generous: CI machines are loaded). */
  windowSeconds?: number;
}

const b64url = (buf: Buffer): string => buf.toString('base64url');
const json = (part: string): Record<string, unknown> => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

export function checkDpopProof(header: string | string[] | undefined, e: ProofExpectation): ProofCheck {
  const bad = (reason: string): ProofCheck => ({ ok: false, error: 'invalid_dpop_proof', reason });
  if (typeof header !== 'string' || header.includes(',')) return bad('not exactly one DPoP header');
  const parts = header.split('.');
  if (parts.length !== 3) return bad('not a JWS');
  let head: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    head = json(parts[0]);
    claims = json(parts[1]);
  } catch {
    return bad('header or payload is not JSON');
  }
  if (head.typ !== 'dpop+jwt') return bad('typ is not dpop+jwt');
  if (head.alg !== 'ES256') return bad('alg is not ES256');
  const jwk = head.jwk as Record<string, unknown> | undefined;
  if (typeof jwk !== 'object' || jwk === null || jwk.kty !== 'EC' || jwk.crv !== 'P-256') return bad('jwk is not a P-256 public key');
  if ('d' in jwk) return bad('jwk carries a private key');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) }, format: 'jwk' });
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'))) return bad('signature does not verify with jwk');
  if (typeof claims.jti !== 'string' || claims.jti.length < 16) return bad('no jti');
  if (claims.htm !== e.method) return bad(`htm is ${String(claims.htm)}`);
  const target = new URL(e.url);
  target.search = '';
  target.hash = '';
  if (typeof claims.htu !== 'string' || claims.htu !== target.href) return bad(`htu is ${String(claims.htu)}`);
  const now = (e.now ?? Date.now()) / 1000;
  const window = e.windowSeconds ?? 300;
  if (typeof claims.iat !== 'number' || Math.abs(now - claims.iat) > window) return bad('iat outside the window');
  if (claims.ath !== b64url(createHash('sha256').update(e.accessToken).digest())) return bad('ath is not the hash of the token');
  if (e.nonce !== undefined && claims.nonce !== e.nonce) return { ok: false, error: 'use_dpop_nonce', reason: 'nonce missing or stale' };
  if (e.seenJti.has(claims.jti)) return bad('jti replayed');
  e.seenJti.add(claims.jti);
  // RFC 7638: the required members in lexicographic order, no whitespace.
  const canonical = `{"crv":"P-256","kty":"EC","x":"${String(jwk.x)}","y":"${String(jwk.y)}"}`;
  return { ok: true, jkt: b64url(createHash('sha256').update(canonical).digest()), jti: claims.jti };
}
