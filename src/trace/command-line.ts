/**
 * A command line as a trace may show it: credentials given as arguments become `[redacted]`.
 * Servers are often started with their key on the command line (`--api-key sk-…`,
 * `--token=…`, `env GITHUB_TOKEN=… server`, `postgres://user:pass@db`), and a trace is meant to
 * be attached to bug reports. Pure: no I/O, nothing else imported but the marker.
 *
 * - the value after a flag whose name looks like a credential (`--api-key X`, `-token X`,
 *   `--password=X`): names containing token, key, secret, password/passwd/pwd, passphrase, auth,
 *   credential, cookie, session or bearer. One-letter flags (`-p X`) never count: their meaning
 *   is the program's own. `--no-…` flags take no value.
 * - `NAME=value` arguments (env-style, as `env` and `docker run -e` take them) with such a name;
 * - the user info of URLs anywhere in an argument (`scheme://user:[redacted]@host`,
 *   `scheme://[redacted]@host` for a user name alone, which is then the credential).
 */
import { REDACTED } from './redaction-rules.js';

const CREDENTIAL_NAME = /token|key|secret|passw(?:or)?d|pwd|passphrase|auth|credential|cookie|session|bearer/i;
/** `--name`, `-name` (two letters at least), optionally `=value`. */
const FLAG = /^(--?)([A-Za-z][\w.-]+)(?:=([\s\S]*))?$/;
/** `NAME=value`, not a flag. */
const ASSIGNMENT = /^([A-Za-z_][\w.-]*)=([\s\S]*)$/;
/** `scheme://user[:password]@` */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*)(?::([^\s/?#@]*))?@/gi;

export interface RedactedArgs {
  args: string[];
  /** The values taken out, to redact wherever else they appear (messages that echo them). */
  secrets: string[];
}

function isCredentialFlag(name: string): boolean {
  return !/^no-/i.test(name) && CREDENTIAL_NAME.test(name);
}

function redactUrls(arg: string, secrets: string[]): string {
  return arg.replace(USERINFO, (_all, scheme: string, user: string, pass: string | undefined) => {
    if (pass === undefined) {
      if (user) secrets.push(user);
      return `${scheme}${REDACTED}@`;
    }
    if (pass) secrets.push(pass);
    return `${scheme}${user}:${REDACTED}@`;
  });
}

/** The arguments with their credentials replaced by `[redacted]`, and those credentials. */
export function redactArgs(args: readonly string[]): RedactedArgs {
  const out: string[] = [];
  const secrets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flag = FLAG.exec(arg);
    if (flag && isCredentialFlag(flag[2])) {
      if (flag[3] !== undefined) {
        if (flag[3]) secrets.push(flag[3]);
        out.push(flag[3] ? `${flag[1]}${flag[2]}=${REDACTED}` : arg);
        continue;
      }
      out.push(arg);
      const value = args[i + 1];
      if (value !== undefined && !FLAG.test(value)) {
        secrets.push(value);
        out.push(REDACTED);
        i++;
      }
      continue;
    }
    const assignment = flag ? undefined : ASSIGNMENT.exec(arg);
    if (assignment && CREDENTIAL_NAME.test(assignment[1]) && assignment[2]) {
      secrets.push(assignment[2]);
      out.push(`${assignment[1]}=${REDACTED}`);
      continue;
    }
    out.push(redactUrls(arg, secrets));
  }
  return { args: out, secrets };
}

/** `command args…` joined by spaces, as a trace shows it, credentials redacted. */
export function redactCommandLine(command: string, args: readonly string[]): string {
  return [redactUrls(command, []), ...redactArgs(args).args].join(' ');
}
