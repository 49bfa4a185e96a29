/**
 * DPoP (RFC 9449): proof-of-possession for access tokens. One ES256 key pair per grant, kept in
 * the token store beside it (`dpop_jwk`, the private JWK: a secret like the tokens), so a
 * refresh keeps the key and the token stays bound to it. Proofs are made by oauth4webapi's DPoP
 * handle: a fresh one per request (`htm`, `htu` without query or fragment, `iat`, `jti`, and
 * `ath` when an access token goes with it), carrying the server's nonce when it asked for one
 * (`use_dpop_nonce`, remembered per origin: RFC 9449 §8 at the AS, §9 at the resource server).
 *
 * Loaded on first use (it brings oauth4webapi), like flow.ts.
 */
import { webcrypto } from 'node:crypto';
import * as oauth from 'oauth4webapi';

/** The JWS algorithm of our proofs (the one every DPoP server must accept in practice). */
export const DPOP_ALG = 'ES256';

/** A private EC JWK (with `d`), as stored. */
export type DpopJwk = webcrypto.JsonWebKey;

/** A fresh P-256 key pair, as the private JWK to store beside the grant. */
export async function newDpopJwk(): Promise<DpopJwk> {
  const pair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return webcrypto.subtle.exportKey('jwk', pair.privateKey);
}

/** Signs proofs with one grant's key; remembers the nonces servers handed out, per origin. */
export class DpopSigner {
  private constructor(
    readonly jwk: DpopJwk,
    readonly handle: oauth.DPoPHandle,
  ) {}

  static async fromJwk(jwk: DpopJwk): Promise<DpopSigner> {
    const { d: _private, key_ops: _ops, ...pub } = jwk;
    const privateKey = await webcrypto.subtle.importKey('jwk', { ...jwk, key_ops: ['sign'] }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    const publicKey = await webcrypto.subtle.importKey('jwk', { ...pub, key_ops: ['verify'] }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
    const pair = { privateKey, publicKey } as unknown as Parameters<typeof oauth.DPoP>[1];
    return new DpopSigner(jwk, oauth.DPoP({}, pair));
  }

  /** The `DPoP` header value for a request (`accessToken`: the token it carries, bound through `ath`). */
  async proof(method: string, url: string | URL, accessToken?: string): Promise<string> {
    const headers = new Headers();
    await (this.handle as unknown as { addProof(u: URL, h: Headers, htm: string, at?: string): Promise<void> }).addProof(new URL(url), headers, method.toUpperCase(), accessToken);
    return headers.get('dpop')!;
  }

  /** Remembers the nonce a server of `url`'s origin asked for (a `DPoP-Nonce` header). */
  rememberNonce(url: string | URL, nonce: string): void {
    (this.handle as unknown as { cacheNonce(r: { headers: Headers }, u: URL): void }).cacheNonce({ headers: new Headers({ 'dpop-nonce': nonce }) }, new URL(url));
  }
}
