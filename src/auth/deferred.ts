/**
 * `createOAuthProvider` as `import('mcpwire')` exports it: the same provider (provider.ts), whose
 * module — with client authentication and scope selection — loads on the provider's first
 * asynchronous use (`headers`, `onUnauthorized`, `authorize`, `logout`, `status`), not when the
 * package is imported. What a caller sees at once stays synchronous and the same: an invalid
 * `serverUrl` throws here, the client secret is reported to `onSecret` here and listed by
 * `secrets()`, listeners registered before the load hear every secret learned after it.
 */
import type { AuthCallOptions, AuthHeadersOptions, AuthStatus, OAuthClientProvider, OAuthProviderOptions, StoredGrant, UnauthorizedInfo } from './types.js';
import type { RevocationOutcome, RevokeOptions } from './revoke.js';

export function createOAuthProvider(options: OAuthProviderOptions): OAuthClientProvider {
  return new DeferredProvider(options);
}

class DeferredProvider implements OAuthClientProvider {
  private real: OAuthClientProvider | undefined;
  private loading: Promise<OAuthClientProvider> | undefined;
  /** Secrets reported before the load (the client secret), never reported twice. */
  private readonly known = new Set<string>();
  private readonly listeners = new Set<(values: string[]) => void>();

  constructor(private readonly options: OAuthProviderOptions) {
    new URL(options.serverUrl); // an invalid server URL throws at creation, as provider.ts does
    const secret = options.clientSecret;
    if (typeof secret === 'string' && secret !== '') {
      this.known.add(secret);
      options.onSecret?.([secret]);
    }
  }

  private load(): Promise<OAuthClientProvider> {
    this.loading ??= import('./provider.js').then(({ createOAuthProvider: create }) => {
      const onSecret = this.options.onSecret;
      const real = create({
        ...this.options,
        onSecret: onSecret === undefined ? undefined : (values) => {
          const fresh = values.filter((v) => !this.known.has(v));
          if (fresh.length > 0) onSecret(fresh);
        },
      });
      real.onSecrets((values) => {
        for (const l of this.listeners) l(values);
      });
      this.real = real;
      return real;
    });
    return this.loading;
  }

  headers(options?: AuthHeadersOptions): Promise<Record<string, string>> {
    return this.real !== undefined ? this.real.headers(options) : this.load().then((p) => p.headers(options));
  }
  onUnauthorized(info: UnauthorizedInfo, attempt: number, options?: AuthCallOptions): Promise<boolean> {
    return this.load().then((p) => p.onUnauthorized(info, attempt, options));
  }
  authorize(options?: AuthCallOptions & { scope?: string }): Promise<StoredGrant> {
    return this.load().then((p) => p.authorize(options));
  }
  logout(options?: AuthCallOptions): Promise<void> {
    return this.load().then((p) => p.logout(options));
  }
  status(options?: AuthCallOptions): Promise<AuthStatus> {
    return this.load().then((p) => p.status(options));
  }
  secrets(): string[] {
    return this.real !== undefined ? this.real.secrets() : [...this.known];
  }
  onSecrets(listener: (values: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * `revokeGrant` as `mcpwire/host` exports it: revoke.ts (with oauth4webapi) loads on the first
 * call — a logout is the only path that revokes, so a command that lists or connects never loads it.
 */
export async function revokeGrant(grant: StoredGrant, options: RevokeOptions): Promise<RevocationOutcome> {
  const { revokeGrant: revoke } = await import('./revoke.js');
  return revoke(grant, options);
}
