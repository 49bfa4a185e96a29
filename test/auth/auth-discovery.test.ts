/**
 * Pure parts of src/auth/: challenge parsing, the well-known URL orders, the resource check,
 * scope selection, PKCE refusal. Each test names the basic.authorization clause it proves.
 */
import { describe, expect, it } from 'vitest';
import { parseBearerChallenge } from '../../src/auth/challenge.js';
import { authorizationServerMetadataUrls, canonicalResource, protectedResourceMetadataUrls, resourceMatches, validateAsMetadata } from '../../src/auth/discovery.js';
import { assertPkceS256, basicCredentials, chooseAuthMethod } from '../../src/auth/flow.js';
import { selectScope, unionScopes } from '../../src/auth/scope.js';
import type { AuthorizationServerMetadata } from '../../src/auth/discovery.js';

const AS: AuthorizationServerMetadata = { issuer: 'https://as.example' };

describe('WWW-Authenticate parsing', () => {
  it('basic.authorization#18: reads resource_metadata, scope and error from a Bearer challenge among others', () => {
    const ch = parseBearerChallenge(
      'Basic realm="x", Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", error_description="need \\"write\\""',
    );
    expect(ch?.error).toBe('insufficient_scope');
    expect(ch?.scope).toBe('files:read files:write');
    expect(ch?.resource_metadata).toBe('https://mcp.example/.well-known/oauth-protected-resource/mcp');
    expect(ch?.error_description).toBe('need "write"');
  });

  it('basic.authorization#18: no Bearer challenge → undefined; token68 and unquoted values are tolerated', () => {
    expect(parseBearerChallenge('Basic abc==')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
    expect(parseBearerChallenge('bearer scope=read,error=invalid_token')).toMatchObject({ scope: 'read', error: 'invalid_token' });
  });
});

describe('discovery URL orders', () => {
  it('basic.authorization#13: PRM well-known URIs: path-aware first, then the root', () => {
    expect(protectedResourceMetadataUrls('https://example.com/public/mcp').map(String)).toEqual([
      'https://example.com/.well-known/oauth-protected-resource/public/mcp',
      'https://example.com/.well-known/oauth-protected-resource',
    ]);
    expect(protectedResourceMetadataUrls('https://example.com/').map(String)).toEqual(['https://example.com/.well-known/oauth-protected-resource']);
  });

  it('basic.authorization#21: an issuer with a path: OAuth path insertion, OIDC path insertion, OIDC path appending', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1').map(String)).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('basic.authorization#22: an issuer without a path: OAuth then OIDC', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com').map(String)).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });

  it('RFC 8414 §3.3: metadata naming another issuer is refused — compared as identical strings, so a trailing slash is another issuer', () => {
    expect(() => validateAsMetadata({ issuer: 'https://evil.example' }, 'https://auth.example.com')).toThrow(/issuer/);
    expect(() => validateAsMetadata({ issuer: 'https://auth.example.com/' }, 'https://auth.example.com')).toThrow(/issuer/);
    expect(() => validateAsMetadata({ issuer: 'https://auth.example.com/tenant1' }, 'https://auth.example.com/tenant1/')).toThrow(/issuer/);
    expect(validateAsMetadata({ issuer: 'https://auth.example.com/tenant1' }, 'https://auth.example.com/tenant1').issuer).toBe('https://auth.example.com/tenant1');
  });
});

describe('resource', () => {
  it('basic.authorization#43/#45/#46: the canonical URI lower-cases scheme and host, drops fragment and trailing slash', () => {
    expect(canonicalResource('HTTPS://MCP.Example.com/mcp/#frag')).toBe('https://mcp.example.com/mcp');
    expect(canonicalResource('https://mcp.example.com/')).toBe('https://mcp.example.com');
    expect(canonicalResource('https://mcp.example.com:8443')).toBe('https://mcp.example.com:8443');
  });

  it('basic.authorization#42: a PRM resource matches the server only on the same origin and a path prefix', () => {
    expect(resourceMatches('https://mcp.example.com/mcp', 'https://mcp.example.com/mcp')).toBe(true);
    expect(resourceMatches('https://mcp.example.com', 'https://mcp.example.com/mcp')).toBe(true);
    expect(resourceMatches('https://evil.example.com/mcp', 'https://mcp.example.com/mcp')).toBe(false);
    expect(resourceMatches('https://mcp.example.com/mc', 'https://mcp.example.com/mcp')).toBe(false);
    expect(resourceMatches('https://mcp.example.com/other', 'https://mcp.example.com/mcp')).toBe(false);
  });
});

describe('scope selection', () => {
  it('basic.authorization#15/#16/#39: the challenge scope wins over scopes_supported, even disjoint from it (no set relationship assumed)', () => {
    expect(selectScope({ challenge: 'a b', prm: ['x', 'y'], as: AS, wantRefresh: true })).toBe('a b');
  });
  it('basic.authorization#19/#39: without a challenge scope, all of scopes_supported; else omitted', () => {
    expect(selectScope({ prm: ['x', 'y'], as: AS, wantRefresh: true })).toBe('x y');
    expect(selectScope({ as: AS, wantRefresh: true })).toBeUndefined();
  });
  it('basic.authorization#38: offline_access only when the AS lists it', () => {
    expect(selectScope({ prm: ['x'], as: { ...AS, scopes_supported: ['x', 'offline_access'] }, wantRefresh: true })).toBe('x offline_access');
    expect(selectScope({ prm: ['x'], as: { ...AS, scopes_supported: ['x'] }, wantRefresh: true })).toBe('x');
    expect(selectScope({ prm: ['x'], as: { ...AS, scopes_supported: ['offline_access'] }, wantRefresh: false })).toBe('x');
  });
  it('basic.authorization#64: step-up asks for the union of held and challenged scopes', () => {
    expect(unionScopes('a b', 'b c')).toBe('a b c');
  });
});

describe('PKCE and client authentication', () => {
  it('basic.authorization#79/#81: no code_challenge_methods_supported → refuse', () => {
    expect(() => assertPkceS256(AS)).toThrow(/PKCE/);
  });
  it('basic.authorization#77: S256 missing from the methods → refuse', () => {
    expect(() => assertPkceS256({ ...AS, code_challenge_methods_supported: ['plain'] })).toThrow(/S256/);
    expect(() => assertPkceS256({ ...AS, code_challenge_methods_supported: ['plain', 'S256'] })).not.toThrow();
  });
  it('basic.authorization#67: the token endpoint auth method is one the AS supports (RFC 8414 default client_secret_basic)', () => {
    expect(chooseAuthMethod(AS, true, false)).toBe('client_secret_basic');
    expect(chooseAuthMethod({ ...AS, token_endpoint_auth_methods_supported: ['client_secret_post'] }, true, false)).toBe('client_secret_post');
    expect(chooseAuthMethod({ ...AS, token_endpoint_auth_methods_supported: ['none'] }, true, false)).toBe('none');
    expect(chooseAuthMethod(AS, false, false)).toBe('none');
    expect(chooseAuthMethod({ ...AS, token_endpoint_auth_methods_supported: ['private_key_jwt'] }, false, true)).toBe('private_key_jwt');
  });
  it('basic.authorization#67: client_secret_basic form-encodes id and secret (RFC 6749 §2.3.1)', () => {
    const h = basicCredentials('my-client', 'a b:c');
    expect(Buffer.from(h.slice(6), 'base64').toString()).toBe('my-client:a+b%3Ac');
  });
});
