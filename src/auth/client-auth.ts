/**
 * The client-authentication facts of the OAuth flow that need no OAuth library: which token
 * endpoint auth method to use, the dynamic registration request body (RFC 7591), the client
 * identity shape. Kept apart from flow.ts so that `import('mcpwire')` does not load oauth4webapi
 * (provider.ts imports flow.ts on first use).
 */
import type { AuthorizationServerMetadata } from './discovery.js';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';

export interface ClientIdentity {
  client_id: string;
  client_secret?: string;
  client_secret_expires_at?: number;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  source: 'pre-registered' | 'cimd' | 'dcr' | 'stored';
}

/** The auth method for a client with/without a secret, from what the AS lists (RFC 8414 default: client_secret_basic). */
export function chooseAuthMethod(as: AuthorizationServerMetadata, hasSecret: boolean, hasKey: boolean): TokenEndpointAuthMethod {
  const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (hasKey && supported.includes('private_key_jwt')) return 'private_key_jwt';
  if (hasSecret) {
    if (supported.includes('client_secret_basic')) return 'client_secret_basic';
    if (supported.includes('client_secret_post')) return 'client_secret_post';
    if (supported.includes('none')) return 'none';
    return 'client_secret_basic';
  }
  return 'none';
}

/**
 * basic.authorization.client_registration#16-#18 (2026-07-28): a registration names its
 * `application_type` — OIDC servers default an omitted one to "web", which refuses loopback and
 * private-scheme redirect URIs. "native" for a redirect to this machine (http on localhost or a
 * loopback IP, or an app's own scheme) and for a client without a redirect (mcpwire runs on the
 * user's machine); "web" for an https redirect on another host.
 */
export function applicationTypeFor(redirectUri: string | undefined): 'native' | 'web' {
  if (redirectUri === undefined) return 'native';
  let u: URL;
  try {
    u = new URL(redirectUri);
  } catch {
    return 'native';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'native';
  const host = u.hostname.toLowerCase();
  const local = host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  return local ? 'native' : 'web';
}

export function registrationRequestBody(metadata: Record<string, unknown>, redirectUri: string | undefined, method: TokenEndpointAuthMethod, grantTypes: string[]): Record<string, unknown> {
  return {
    client_name: 'mcpwire',
    application_type: applicationTypeFor(redirectUri),
    ...metadata,
    ...(redirectUri !== undefined ? { redirect_uris: [redirectUri] } : {}),
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: method,
  };
}

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
