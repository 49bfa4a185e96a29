/**
 * The auth side of both HTTP transports, written once: the provider's headers merged into a
 * request's, and what happens after a 401/403 (basic.authorization#18): the provider sees the
 * refusal — with the Authorization value the refused request carried — and decides whether the
 * exchange is made again, at most MAX_AUTH_REPLAYS times. Knows no OAuth: the provider does.
 */
import { AuthRequiredError } from '../errors.js';
import { MAX_AUTH_REPLAYS, type HttpAuthProvider } from './http-common.js';

/** What one attempt of an exchange ended with when the server refused it with 401/403. */
export class Refused {
  constructor(
    readonly error: AuthRequiredError,
    readonly status: number,
  ) {}
}

/** What `headers()` is told about the request the headers go on. */
export interface AuthRequest {
  refresh?: false;
  signal?: AbortSignal;
  method?: string;
  url?: string;
}

/** The headers of a GET of the configured URL (one object for every GET). */
export const GET_REQUEST: AuthRequest = Object.freeze({ method: 'GET' });

export class HttpAuth {
  constructor(private readonly provider: HttpAuthProvider | undefined) {}

  /**
   * `base` with the provider's headers added (names lower-cased; a provider header wins).
   * Without a provider `base` itself comes back: nothing is allocated per message.
   * `refresh: false` asks for the credential held now, never a refresh (a bounded close);
   * `method`/`url` name a request other than a POST to the configured URL (a DPoP proof signs them).
   */
  async headers(base: Record<string, string>, options?: AuthRequest): Promise<Record<string, string>> {
    const provider = this.provider;
    if (provider === undefined) return base;
    const extra = await (options !== undefined ? provider.headers(options) : provider.headers());
    const out: Record<string, string> = { ...base };
    for (const k of Object.keys(extra)) out[k.toLowerCase()] = extra[k];
    return out;
  }

  /**
   * Shows a 401/403 to the provider; true when the refused exchange should be made again.
   * `sent` are the headers the refused request carried; `attempt` counts the replays so far.
   */
  async again(refused: Refused, attempt: number, sent: Record<string, string>, open: boolean): Promise<boolean> {
    const provider = this.provider;
    if (provider?.onUnauthorized === undefined || attempt >= MAX_AUTH_REPLAYS || !open) return false;
    const { error, status } = refused;
    const sentAuthorization = sent.authorization;
    const info = {
      status: (status === 403 ? 403 : 401) as 401 | 403,
      ...(error.wwwAuthenticate !== undefined ? { wwwAuthenticate: error.wwwAuthenticate } : {}),
      ...(sentAuthorization !== undefined ? { sentAuthorization } : {}),
      ...(error.dpopNonce !== undefined ? { dpopNonce: error.dpopNonce } : {}),
    };
    return provider.onUnauthorized(info, attempt);
  }

  /**
   * Runs `once` with `base()` plus the auth headers; when it comes back `Refused` and the
   * provider re-authorized, runs it again with fresh headers (bounded), else throws the refusal's
   * error. `isOpen` is asked before each replay: a closing transport replays nothing. `request`
   * names the request when it is not a POST to the configured URL.
   */
  async replaying<T>(
    base: () => Record<string, string>,
    isOpen: () => boolean,
    once: (headers: Record<string, string>, attempt: number) => Promise<T | Refused>,
    request?: AuthRequest,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const headers = await this.headers(base(), request);
      const outcome = await once(headers, attempt);
      if (!(outcome instanceof Refused)) return outcome;
      if (!(await this.again(outcome, attempt, headers, isOpen()))) throw outcome.error;
    }
  }
}
