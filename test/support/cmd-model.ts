/**
 * A model of how cmd.exe and the Microsoft C runtime read a command line, after the documented
 * rules (cmd /? for /s /c; "How does the Windows Command Interpreter (CMD.EXE) parse scripts",
 * phases 1 and 2; "Parsing C++ command-line arguments" for argv) — to check on any machine what
 * an argument becomes on Windows and whether cmd.exe would see an operator of its own in it.
 *
 * Modelled: `%VAR%` expansion of defined variables (an undefined one stays as written, the
 * command-line rule), `^` escapes and `"` quoting, the operators `&`, `|`, `<`, `>` that start
 * another command or a redirection, the command token ending at an unescaped, unquoted space,
 * the C runtime's backslash/quote rules, and how a batch file gets its arguments (`batchArguments`:
 * `%*` the argument text as it is, `%1`…`%9` split at unquoted delimiters, `%~1` without its
 * surrounding quotes), each put into a line of the file that is then parsed again (phase 2). Not modelled: delayed `!` expansion (off unless
 * cmd /v or the registry turns it on) and `(`/`)` blocks (cmd.exe only groups at the start of a
 * command; escaped here anyway).
 */

export interface CmdParse {
  /** The line after expansion and escape removal. */
  text: string;
  /** Where the first (command) token ends in `text`. */
  commandEnd: number;
  /** Operators cmd.exe would act on (each one a second command or a redirection). */
  operators: string[];
}

/** Phase 1: `%NAME%` replaced when NAME is set in `env` (case-insensitively); else left as is. */
export function expandPercent(line: string, env: Record<string, string>): string {
  const lookup = (name: string) => Object.entries(env).find(([k]) => k.toUpperCase() === name.toUpperCase())?.[1];
  let out = '';
  let i = 0;
  while (i < line.length) {
    const close = line[i] === '%' ? line.indexOf('%', i + 1) : -1;
    if (close === -1) {
      out += line[i++];
      continue;
    }
    const value = lookup(line.slice(i + 1, close));
    if (value === undefined) {
      out += line[i++]; // the closing % may open the next reference
      continue;
    }
    out += value;
    i = close + 1;
  }
  return out;
}

/** Phase 2: escapes, quotes and operators. */
export function parseSpecial(line: string): CmdParse {
  let text = '';
  let quoted = false;
  let commandEnd = -1;
  const operators: string[] = [];
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"') quoted = false;
      text += c;
      continue;
    }
    if (c === '^') {
      if (i + 1 < line.length) text += line[++i];
      continue;
    }
    if (c === '"') quoted = true;
    if ('&|<>'.includes(c)) operators.push(c);
    if ((c === ' ' || c === '\t') && commandEnd === -1 && text.length > 0) commandEnd = text.length;
    text += c;
  }
  return { text, commandEnd: commandEnd === -1 ? text.length : commandEnd, operators };
}

/** What `cmd.exe /d /s /c "<line>"` parses: the outer quotes stripped (/s), then phases 1 and 2. */
export function cmdSlashC(args: readonly string[], env: Record<string, string>): CmdParse {
  if (args.length !== 4 || args[0] !== '/d' || args[1] !== '/s' || args[2] !== '/c') throw new Error(`not a cmd /d /s /c line: ${args.join(' ')}`);
  const quotedLine = args[3];
  if (!quotedLine.startsWith('"') || !quotedLine.endsWith('"')) throw new Error('the /s line must be quoted');
  return parseSpecial(expandPercent(quotedLine.slice(1, -1), env));
}

/** The C runtime's argv from a command line (arguments after the program name). */
export function crtArgv(line: string): string[] {
  const args: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) return args;
    let arg = '';
    let quoted = false;
    while (i < line.length) {
      const c = line[i];
      if (c === '\\') {
        let k = 0;
        while (line[i + k] === '\\') k++;
        if (line[i + k] === '"') {
          arg += '\\'.repeat(Math.floor(k / 2));
          i += k;
          if (k % 2 === 1) {
            arg += '"';
            i++;
          }
        } else {
          arg += '\\'.repeat(k);
          i += k;
        }
        continue;
      }
      if (c === '"') {
        if (quoted && line[i + 1] === '"') {
          arg += '"';
          i += 2;
          continue;
        }
        quoted = !quoted;
        i++;
        continue;
      }
      if (!quoted && (c === ' ' || c === '\t')) break;
      arg += c;
      i++;
    }
    args.push(arg);
  }
}

/** cmd.exe's delimiters between batch parameters (outside quotes): space, tab, comma, semicolon, equals. */
const PARAM_DELIMITERS = ' \t,;=';

/**
 * What a batch file started by `cmd /c "<file> <args>"` gets: `all` (`%*`, the argument text after
 * the delimiters that follow the file name) and `params` (`%1`, `%2`, …: split at unquoted
 * delimiters, `"` toggling quoting; a `^` is an ordinary character by now, the first parse took
 * the escapes). `argText` is the line after the command token, as `cmdSlashC` leaves it.
 */
export function batchArguments(argText: string): { all: string; params: string[] } {
  let i = 0;
  while (i < argText.length && PARAM_DELIMITERS.includes(argText[i])) i++;
  const all = argText.slice(i);
  const params: string[] = [];
  while (i < argText.length) {
    while (i < argText.length && PARAM_DELIMITERS.includes(argText[i])) i++;
    if (i >= argText.length) break;
    let token = '';
    let quoted = false;
    while (i < argText.length && (quoted || !PARAM_DELIMITERS.includes(argText[i]))) {
      if (argText[i] === '"') quoted = !quoted;
      token += argText[i++];
    }
    params.push(token);
  }
  return { all, params };
}

/** `%~n`: the parameter without one pair of surrounding quotes (a leading `"`, and a trailing one then). */
export function tildeParam(param: string): string {
  if (!param.startsWith('"')) return param;
  return param.endsWith('"') && param.length > 1 ? param.slice(1, -1) : param.slice(1);
}
