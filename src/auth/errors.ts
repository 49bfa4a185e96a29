/** The auth layer's error: an McpWireError with a stable MCPWIRE_AUTH_* code (phase `auth`). */
import { McpWireError } from '../errors.js';

export class AuthError extends McpWireError {
  /** The AS's OAuth error code (`invalid_grant`, …) when it sent one. */
  readonly oauthError?: string;
  constructor(message: string, code: string, options: { cause?: unknown; oauthError?: string; serverId?: string } = {}) {
    super(code, message, { ...options, phase: 'auth' });
    this.name = 'AuthError';
    if (options.oauthError !== undefined) this.oauthError = options.oauthError;
  }
}

export const isAuthError = (e: unknown): e is AuthError => e instanceof AuthError;
