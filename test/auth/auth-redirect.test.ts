import { describe, expect, it } from 'vitest';
import { sameRedirect } from '../../src/auth/provider.js';

describe('reusing a registered client for another redirect URI', () => {
  it('loopback IP redirects may differ in port only (RFC 8252 §7.3)', () => {
    expect(sameRedirect('http://127.0.0.1:4001/callback', 'http://127.0.0.1:5002/callback')).toBe(true);
    expect(sameRedirect('http://[::1]:4001/callback', 'http://[::1]:5002/callback')).toBe(true);
    expect(sameRedirect('http://127.0.0.1:4001/callback', 'http://127.0.0.1:4001/callback')).toBe(true);
  });

  it('anything else must be the same URI', () => {
    expect(sameRedirect('http://127.0.0.1:4001/callback', 'http://127.0.0.1:5002/other')).toBe(false);
    expect(sameRedirect('http://127.0.0.1:4001/callback', 'http://[::1]:5002/callback')).toBe(false);
    expect(sameRedirect('http://localhost:4001/callback', 'http://localhost:5002/callback')).toBe(false);
    expect(sameRedirect('https://app.example/cb', 'https://app.example:8443/cb')).toBe(false);
    expect(sameRedirect('http://127.0.0.1:4001/callback', undefined)).toBe(false);
    expect(sameRedirect('not a url', 'http://127.0.0.1:1/callback')).toBe(false);
  });
});
