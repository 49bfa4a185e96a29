/**
 * `mcpwire login <id> [--no-browser] [--oauth-scope <scope>]`: authorizes a configured HTTP server
 * (OAuth 2.1 authorization code + PKCE, basic/authorization) and keeps the grant in the token
 * store (`mcp-auth.json` in the config dir, or `MCPWIRE_AUTH_FILE`).
 *
 * The authorization URL is printed on stderr, then the platform's browser opener is tried (a
 * missing one never fails the login). The browser comes back to a one-shot receiver on
 * 127.0.0.1. `--no-browser` (headless, CI, SSH): nothing is opened; paste the URL the browser
 * was redirected to (or just its `code`) on stdin. On a terminal a paste works in browser mode
 * too. Tokens, codes and client secrets are never printed.
 */
import { createInterface } from 'node:readline';
import { Redactor } from '../../trace-api.js';
import { authStore, storePlace, grantFacts, loginServer, openBrowser, parsePastedRedirect, usesOAuth } from '../../host-api.js';
import { parse, parseTimeout, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, cliAuth, reportFailure, secretsOf, usableServer } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { boundLabel, grantLabel } from './auth.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.login;

export default async function login(argv: string[]): Promise<number> {
  const learned = new Set<string>();
  let configured: string[] = [];
  const scrub = (s: string): string => new Redactor({ secrets: [...configured, ...learned] }).redactString(s);
  const ac = new AbortController();
  let usedStdin = false;
  const onSigint = (): void => ac.abort(new CliFailure('login interrupted (SIGINT)'));
  process.once('SIGINT', onSigint);
  try {
    const { values, positionals } = parse(argv, { 'no-browser': { type: 'boolean' }, 'oauth-scope': { type: 'string' }, imports: CONFIG_OPTIONS.imports });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const [id, extra] = positionals;
    if (!id || extra !== undefined) throw new UsageError(USAGE);
    const config = await loadView(values);
    configured = secretsOf(config.servers);
    const server = findServer(config, id);
    usableServer(server);
    if (!usesOAuth(server)) throw new CliFailure(`server "${id}" uses the stdio transport: OAuth does not apply (credentials come from its environment)`);
    const headless = values['no-browser'] === true;
    const store = authStore(cliAuth());
    const timeoutMs = parseTimeout(values['timeout-ms']);
    const grant = await loginServer(server, timeoutMs !== undefined ? { loginTimeoutMs: timeoutMs } : {}, store, {
      signal: ac.signal,
      onSecret: (v) => v.forEach((x) => learned.add(x)),
      ...(values['oauth-scope'] !== undefined ? { scope: values['oauth-scope'] } : {}),
      onAuthorizationUrl: (url) => {
        const how = headless
          ? 'Open this URL in a browser, authorize, then paste the URL you were redirected to (or its code) here:'
          : 'Opening the browser to authorize. If it does not open, visit:';
        process.stderr.write(`${how}\n\n  ${url.href}\n\n`);
      },
      ...(headless
        ? {}
        : {
            openBrowser: async (url: URL) => {
              if (!(await openBrowser(url.href))) process.stderr.write('mcpwire: could not start a browser; open the URL above yourself\n');
            },
          }),
      ...(headless || process.stdin.isTTY
        ? {
            paste: (info: { redirectUri: string; state: string | undefined }, signal: AbortSignal) => {
              usedStdin = true;
              return readPastedRedirect(info, signal);
            },
          }
        : {}),
    });
    const facts = grantFacts(server, grant);
    if (values.json) {
      const expiresAt = grant.expires_at !== undefined ? new Date(grant.expires_at).toISOString() : null;
      printJson({ id, ...facts, scopes: grant.scope ? grant.scope.split(' ').filter(Boolean) : [], expires_at: expiresAt, store: storePlace(store) });
      return 0;
    }
    const scopes = grant.scope ? ` (scope: ${safeText(grant.scope, 200)})` : '';
    const expires = grant.expires_at !== undefined ? `, expires ${new Date(grant.expires_at).toISOString()}` : '';
    process.stdout.write(`logged in to "${id}"${scopes}${expires}; tokens saved in ${storePlace(store)}\n`);
    process.stdout.write(`grant: ${grantLabel(facts.grant)}; token: ${boundLabel(facts.sender_constrained)}\n`);
    return 0;
  } catch (err) {
    return reportFailure(ac.signal.aborted && ac.signal.reason instanceof Error ? ac.signal.reason : err, scrub);
  } finally {
    process.off('SIGINT', onSigint);
    // Read for a paste: let go of stdin so the process can exit.
    if (usedStdin) process.stdin.destroy();
  }
}

/** Resolves with the first redirect URL (or code) pasted on stdin; rejects at end of input. */
function readPastedRedirect(info: { redirectUri: string; state: string | undefined }, signal: AbortSignal): Promise<URL> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let settled = false;
    const done = (): void => {
      settled = true;
      signal.removeEventListener('abort', onAbort);
      rl.close();
    };
    const onAbort = (): void => done();
    signal.addEventListener('abort', onAbort, { once: true });
    rl.on('line', (line) => {
      let url: URL | undefined;
      try {
        url = parsePastedRedirect(line, info.redirectUri, info.state);
      } catch {
        process.stderr.write('mcpwire: that is not a redirect URL or code; paste the whole URL from the browser\'s address bar\n');
        return;
      }
      if (url === undefined) return;
      resolve(url);
      done();
    });
    rl.on('close', () => {
      if (settled || signal.aborted) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      reject(new CliFailure('no redirect URL was pasted (end of input)'));
    });
  });
}
