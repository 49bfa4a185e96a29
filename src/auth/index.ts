/** The OAuth layer (basic/authorization): the provider the HTTP transport plugs in, and its parts. */
export type {
  AssertionSource,
  AuthCallOptions,
  AuthorizationInteraction,
  AuthStatus,
  BearerChallenge,
  CreateOAuthProvider,
  OAuthClientProvider,
  OAuthProviderOptions,
  PrivateKeyJwtConfig,
  StoredGrant,
  TokenStore,
  UnauthorizedInfo,
} from './types.js';
/** The provider, its module loaded on first use (deferred.ts); src/host uses provider.ts directly. */
export { createOAuthProvider } from './deferred.js';
export { MemoryTokenStore } from './memory-store.js';
export { AuthError, isAuthError } from './errors.js';
export { parseBearerChallenge } from './challenge.js';
export { canonicalResource } from './discovery.js';
export { idJagAssertion, type IdJagOptions } from './id-jag.js';
