/**
 * `mcpwire logout <id>`: revokes the server's tokens at its authorization server when that
 * advertises a `revocation_endpoint` (RFC 7009: the refresh token, then the access token), then
 * deletes them from the token store. A revocation that fails is reported, and the local tokens
 * are deleted anyway. Never prints a token.
 */
import { authStore, storePlace, logoutServer, usesOAuth } from '../../host-api.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, cliAuth, scrubber } from '../config-target.js';
import { safeText } from '../output.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.logout;

export default async function logout(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports } }, async ({ values, positionals }, run) => {
    const [id, extra] = positionals;
    if (!id || extra !== undefined) throw new UsageError(USAGE);
    const config = await loadView(values);
    const scrub = (run.scrub = scrubber(config.servers));
    const server = findServer(config, id);
    if (!usesOAuth(server)) throw new CliFailure(`server "${id}" uses the stdio transport: it has no OAuth tokens`);
    const store = authStore(cliAuth());
    const out = await logoutServer(server, {}, store);
    if (!out.hadGrant) {
      process.stdout.write(`not logged in to "${id}": nothing to do\n`);
      return 0;
    }
    const r = out.revocation!;
    if (r.result === 'revoked') process.stdout.write(`revoked at the authorization server (${r.revoked.join(', ')})\n`);
    else if (r.result === 'unsupported') process.stdout.write('the authorization server offers no token revocation (RFC 7009): tokens only deleted locally\n');
    else process.stderr.write(`mcpwire: warning: revocation failed: ${safeText(scrub(r.error ?? 'unknown error'), 300)}; tokens deleted locally anyway\n`);
    process.stdout.write(`logged out of "${id}"; run "mcpwire login ${id}" to authorize again\n`);
    return 0;
  });
}
