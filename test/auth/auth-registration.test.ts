/**
 * The dynamic registration body (src/auth/client-auth.ts): which `application_type` a redirect
 * URI makes (basic.authorization.client_registration#16-#18 of 2026-07-28).
 */
// clauses: 2026-07-28
import { describe, expect, it } from 'vitest';
import { applicationTypeFor, registrationRequestBody } from '../../src/auth/client-auth.js';

describe('application_type of a dynamic registration', () => {
  it.each([
    ['http://127.0.0.1:53123/callback', 'native'],
    ['http://127.8.9.10/cb', 'native'],
    ['http://localhost:3000/callback', 'native'],
    ['http://app.localhost/cb', 'native'],
    ['http://[::1]:8080/cb', 'native'],
    ['com.example.app:/oauth2redirect', 'native'],
    ['https://app.example.com/callback', 'web'],
    ['https://127.0.0.1.example.com/cb', 'web'],
  ] as const)('basic.authorization.client_registration#17/#18: redirect %s → %s', (uri, type) => {
    expect(applicationTypeFor(uri)).toBe(type);
  });

  it('basic.authorization.client_registration#16: a registration without a redirect (client_credentials) still names one', () => {
    expect(registrationRequestBody({}, undefined, 'client_secret_basic', ['client_credentials']).application_type).toBe('native');
  });

  it('basic.authorization.client_registration#16: the body names the type its redirect makes, unless the metadata gives one', () => {
    expect(registrationRequestBody({}, 'https://app.example.com/cb', 'none', ['authorization_code']).application_type).toBe('web');
    expect(registrationRequestBody({ application_type: 'native' }, 'https://app.example.com/cb', 'none', ['authorization_code']).application_type).toBe('native');
  });
});
