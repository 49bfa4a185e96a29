/**
 * `mcpwire auth status [<id>] [--json]`: what the token store holds for each configured server,
 * read from the store: state (`none`, `valid`, `expired`, `not_applicable` for stdio or a server with its own
 * Authorization header),
 * granted scopes, expiry, whether a refresh token is held, and the client kind
 * (`pre-registered` from the config, `registered` by DCR/CIMD), how the grant was obtained
 * (`authorization_code`, `client_credentials`, `jwt-bearer` = workload identity, `id-jag` =
 * enterprise-managed) and whether the token is sender-constrained (`dpop` with the key's RFC 7638
 * thumbprint, never the key). Never a token or secret. The table's `next` suggests `mcpwire login`
 * only where it can work: an HTTP server with nothing stored is asked whether it advertises OAuth
 * at all (metadata, a 401 challenge; src/host/oauth-offer.ts), and one that does not is said to
 * need none.
 */
import { authStatusRows, authStore, storePlace, oauthOffer, type AuthStatusRow, type ResolvedServer } from '../../host-api.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS, findServer, loadView, cliAuth, scrubber } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { table } from '../layout.js';
import { canLogIn, staticAuthorization } from '../login-hint.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.auth;

export default async function auth(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const [sub, id, extra] = positionals;
    if (sub !== 'status' || extra !== undefined) throw new UsageError(USAGE);
    const config = await loadView(values);
    run.scrub = scrubber(config.servers);
    const servers = id === undefined ? config.servers : [findServer(config, id)];
    const store = authStore(cliAuth());
    const rows = await authStatusRows(servers, store);
    if (values.json) {
      printJson(id === undefined ? { store: storePlace(store), servers: rows } : rows[0]);
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write('no MCP servers configured\n');
      return 0;
    }
    const noOAuth = await advertisingNoOAuth(servers.filter((s) => canLogIn(s) && rows.some((r) => r.id === s.id && r.state === 'none')));
    process.stdout.write(`${table(['id', 'state', 'grant', 'bound', 'scopes', 'expires_at', 'refresh', 'client', 'next'], rows.map((r) => cells(r, servers.filter(staticAuthorization).map((x) => x.id), noOAuth)))}\ntoken store: ${storePlace(store)}\n`);
    return 0;
  });
}

/**
 * The ids of HTTP servers with nothing stored that advertise no OAuth (no metadata, no 401
 * challenge), asked concurrently: they need no login, and are not told to run one.
 */
async function advertisingNoOAuth(servers: ResolvedServer[]): Promise<Set<string>> {
  const offers = await Promise.all(servers.map(async (s) => [s.id, (await oauthOffer(s)).kind] as const));
  return new Set(offers.filter(([, kind]) => kind === 'not-offered').map(([id]) => id));
}

function cells(r: AuthStatusRow, ownHeader: string[], noOAuth: ReadonlySet<string>): string[] {
  // A server whose config sets its own Authorization header does not log in with OAuth.
  const loginNeeded = !ownHeader.includes(r.id) && (r.state === 'none' || (r.state === 'expired' && !r.refreshable));
  const next = noOAuth.has(r.id) ? 'none: the server advertises no OAuth' : loginNeeded ? `mcpwire login ${r.id}` : '';
  return [safeText(r.id, 64), r.state, grantLabel(r.grant), boundLabel(r.sender_constrained), safeText(r.scopes.join(' ') || '-', 80), r.expires_at ?? '-', r.refreshable ? 'yes' : 'no', r.client ?? '-', next];
}

/** The grant kind as a person reads it. */
export function grantLabel(grant: AuthStatusRow['grant']): string {
  if (grant === 'jwt-bearer') return 'jwt-bearer (workload identity)';
  if (grant === 'id-jag') return 'token-exchange/ID-JAG (enterprise)';
  return grant ?? '-';
}

/** `DPoP jkt=<thumbprint>` for a sender-constrained token, `bearer` otherwise. */
export function boundLabel(bound: AuthStatusRow['sender_constrained']): string {
  return bound === null ? 'bearer' : `DPoP jkt=${safeText(bound.jkt, 64)}`;
}
