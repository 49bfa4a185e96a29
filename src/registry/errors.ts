/**
 * The one error of the registry room: a registry that cannot be reached or answers garbage, a
 * name or version it does not have, a server.json that does not validate, a package this machine
 * cannot run, a bundle whose SHA-256 differs. `reason` says which (a stable word for tests and
 * `--json`); the message names the server, the registry and the field, never a secret value.
 */
import { McpWireError } from '../errors.js';

export type RegistryErrorReason =
  | 'unreachable'
  | 'bad-response'
  | 'too-large'
  | 'not-found'
  | 'version-not-found'
  | 'invalid-server-json'
  | 'no-choice'
  | 'missing-runtime'
  | 'missing-value'
  | 'secret-value'
  | 'unsupported'
  | 'checksum';

export class RegistryError extends McpWireError {
  readonly reason: RegistryErrorReason;
  /** Names close to a missing one (did-you-mean), from the registry's search. */
  readonly suggestions: readonly string[];
  constructor(reason: RegistryErrorReason, message: string, options: { cause?: unknown; suggestions?: readonly string[] } = {}) {
    super(`MCPWIRE_REGISTRY_${reason.toUpperCase().replace(/-/g, '_')}`, message, options.cause !== undefined ? { cause: options.cause } : {});
    this.name = 'RegistryError';
    this.reason = reason;
    this.suggestions = options.suggestions ?? [];
  }
}

export const isRegistryError = (e: unknown): e is RegistryError => e instanceof RegistryError;
