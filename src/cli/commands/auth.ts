/**
 * `mcpwire auth status [<id>] [--json]`: what the token store holds for each configured server,
 * read locally (nothing is sent): state (`none`, `valid`, `expired`, `not_applicable` for stdio or a server with its own
 * Authorization header),
 * granted scopes, expiry, whether a refresh token is held, and the client kind
 * (`pre-registered` from the config, `registered` by DCR/CIMD), how the grant was obtained
 * (`authorization_code`, `client_credentials`, `jwt-bearer` = workload identity, `id-jag` =
 * enterprise-managed) and whether the token is sender-constrained (`dpop` with the key's RFC 7638
 * thumbprint, never the key). Never a token or secret.
 */
import { authStatusRows, authStorePath, FileTokenStore, type AuthStatusRow } from '../../host-api.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CONFIG_OPTIONS, findServer, loadView, pathOptions, scrubber } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { table } from '../layout.js';
import { staticAuthorization } from '../login-hint.js';

const USAGE = 'usage: mcpwire auth status [<id>] [--json] [--config <file>] [--imports]';

export default async function auth(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const [sub, id, extra] = positionals;
    if (sub !== 'status' || extra !== undefined) throw new UsageError(USAGE);
    const config = await loadView(values);
    run.scrub = scrubber(config.servers);
    const servers = id === undefined ? config.servers : [findServer(config, id)];
    const store = new FileTokenStore(authStorePath(pathOptions()));
    const rows = await authStatusRows(servers, store);
    if (values.json) {
      printJson(id === undefined ? { store: store.file, servers: rows } : rows[0]);
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write('no MCP servers configured\n');
      return 0;
    }
    process.stdout.write(`${table(['id', 'state', 'grant', 'bound', 'scopes', 'expires_at', 'refresh', 'client', 'next'], rows.map((r) => cells(r, servers.filter(staticAuthorization).map((x) => x.id))))}\ntoken store: ${store.file}\n`);
    return 0;
  });
}

function cells(r: AuthStatusRow, ownHeader: string[]): string[] {
  // A server whose config sets its own Authorization header does not log in with OAuth.
  const next = !ownHeader.includes(r.id) && (r.state === 'none' || (r.state === 'expired' && !r.refreshable)) ? `mcpwire login ${r.id}` : '';
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
