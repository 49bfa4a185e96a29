// MRTR requestState for the modern mock: an HMAC-protected, expiring, request-bound token.
// basic/patterns/mrtr.md: state that influences business logic MUST be integrity-protected and
// rejected when verification fails; it SHOULD carry an expiry and an identifier of the
// originating request (method + a digest of its salient parameters).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const b64 = (s) => Buffer.from(s, 'utf8').toString('base64url');
const unb64 = (s) => Buffer.from(s, 'base64url').toString('utf8');

/** A stable digest of what identifies the originating request (never its id: retries get new ids). */
export function requestDigest(method, params) {
  const salient = { method, name: params?.name, uri: params?.uri, arguments: params?.arguments ?? null };
  return createHmac('sha256', 'digest').update(JSON.stringify(salient)).digest('base64url').slice(0, 22);
}

export function createStateCodec({ key = randomBytes(32), ttlMs = 5 * 60_000 } = {}) {
  const mac = (payload) => createHmac('sha256', key).update(payload).digest('base64url');
  return {
    /** data: anything JSON; bound to `digest`, valid for ttlMs. */
    seal(data, digest) {
      const payload = b64(JSON.stringify({ d: data, r: digest, exp: Date.now() + ttlMs }));
      return `${payload}.${mac(payload)}`;
    },
    /** The sealed data, or throws Error(reason) when tampered, expired or from another request. */
    open(token, digest) {
      if (typeof token !== 'string') throw new Error('requestState is not a string');
      const dot = token.lastIndexOf('.');
      const payload = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1));
      const want = Buffer.from(mac(payload));
      if (dot < 0 || given.length !== want.length || !timingSafeEqual(given, want)) throw new Error('requestState failed verification');
      const body = JSON.parse(unb64(payload));
      if (body.exp < Date.now()) throw new Error('requestState expired');
      if (body.r !== digest) throw new Error('requestState belongs to another request');
      return body.d;
    },
  };
}
