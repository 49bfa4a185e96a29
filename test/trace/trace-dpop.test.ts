/**
 * DPoP proofs (RFC 9449 §4) and the server's DPoP-Nonce are bound to requests, but a proof still
 * authorizes its request for its lifetime: neither belongs in a trace, as a header value or as a
 * member of a logged record.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/trace/redact.js';

describe('DPoP headers are credentials in traces', () => {
  it('a dpop or dpop-nonce member is redacted, whatever its spelling', () => {
    const proof = 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImRwb3Arand0In0.eyJodG0iOiJQT1NUIn0.c2lnbmF0dXJl';
    const r = new Redactor();
    const out = r.redact({ headers: { DPoP: proof, 'DPoP-Nonce': 'n-0S6_WzA2Mj', dpop_nonce: 'abc123456789', accept: 'application/json' } }) as {
      headers: Record<string, string>;
    };
    expect(out.headers.DPoP).toBe('[redacted]');
    expect(out.headers['DPoP-Nonce']).toBe('[redacted]');
    expect(out.headers.dpop_nonce).toBe('[redacted]');
    expect(out.headers.accept).toBe('application/json');
  });
});
