/**
 * The JWK SHA-256 thumbprint (RFC 7638) of a DPoP key's public part: what a DPoP-bound token's
 * `cnf.jkt` names (RFC 9449 §6) and what `auth status` shows instead of the key. Node crypto
 * only (no oauth4webapi), so the host can show it without loading the flow modules.
 */
import { createHash } from 'node:crypto';

/** The required members per key type, in the lexicographic order RFC 7638 §3.2 hashes them. */
const MEMBERS: Record<string, readonly string[]> = { EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'], OKP: ['crv', 'kty', 'x'] };

/** base64url(SHA-256(canonical JSON of the public members)), or undefined for an unusable JWK. */
export function jwkThumbprint(jwk: Record<string, unknown> | undefined): string | undefined {
  const members = typeof jwk?.kty === 'string' ? MEMBERS[jwk.kty] : undefined;
  if (jwk === undefined || members === undefined || members.some((m) => typeof jwk[m] !== 'string')) return undefined;
  // Members in order, no whitespace: JSON.stringify of an object built in that order.
  const canonical = JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]])));
  return createHash('sha256').update(canonical).digest('base64url');
}
