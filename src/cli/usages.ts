/**
 * The usage text of the commands, in one place: each command prints (and throws) these strings,
 * and `main.ts` answers `mcpwire <command> --help` from here without loading the command (the
 * command's own modules cost several times a bare start).
 */
import { parseArgs } from 'node:util';
import type { LoggingLevel } from '../index.js';
import { GLOBAL_OPTIONS } from './args.js';

/** The levels `mcpwire log-level` takes, least severe first. */
export const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export const USAGES = {
  registry: 'usage: mcpwire registry search <words…> [--limit N] [--cursor C] [--json] | registry show <name>[@version] [--json]   (both: [--registry <url>])',
  status: 'usage: mcpwire status [<id>] [--json] [--timeout-ms <ms>] [--config <file>] [--imports]',
  tools: 'usage: mcpwire tools [<id> [<tool>]] [--schema] [--names] [--json]  |  mcpwire tools [<id>] --search "<words>" [--limit <n>] [--json]  |  mcpwire --stdio "<cmd>" tools [<tool>] [--schema] [--json]',
  app: "usage: mcpwire app <id>.<tool> [key=value…] [--args '<json>' | @file | -] [--no-open] [--trace FILE] [--init-timeout-ms N]",
  call: [
    "usage: mcpwire call <id> <tool> [key=value…] [--args '<json>' | --args @file.json | --args -] [--json | --raw | --text | --structured] [--save-dir DIR] [--allow-extra] [--events]",
    '       mcpwire call <id>.<tool> [key=value…] [--args …]',
    '       mcpwire --stdio "<cmd>" call <tool> [key=value…] [--args …]',
  ].join('\n'),
  read: 'usage: mcpwire read <id> <uri> [--json] [--save-dir DIR]  |  mcpwire --stdio "<cmd>" read <uri> [--json] [--save-dir DIR]',
  prompt: "usage: mcpwire prompt <id> <name> [key=value…] [--args '<json>'|@file|-] [--json]  |  mcpwire --stdio \"<cmd>\" prompt <name> [key=value…]",
  request: "usage: mcpwire request <id> <method> ['<params-json>' | @params.json | -]  |  mcpwire --stdio \"<cmd>\" request <method> [<params>]",
  ping: 'usage: mcpwire ping <id> [--json]  |  mcpwire --stdio "<cmd>" ping',
  complete: [
    'usage: mcpwire complete <id> (--prompt <name> | --resource <template-uri>) <argument> <value-prefix> [--context k=v …] [--json]',
    '       mcpwire --stdio "<cmd>" complete (--prompt <name> | --resource <template-uri>) <argument> <value-prefix>',
  ].join('\n'),
  login: 'usage: mcpwire login <id> [--json] [--no-browser] [--oauth-scope <scope>] [--timeout-ms <ms>] [--config <file>] [--imports]',
  logout: 'usage: mcpwire logout <id> [--config <file>] [--imports]',
  auth: 'usage: mcpwire auth status [<id>] [--json] [--config <file>] [--imports]',
  trust: 'usage: mcpwire trust [<dir>] | trust --list | trust --revoke [<dir>] (= untrust [<dir>])   [--json]',
  check: 'usage: mcpwire check (--stdio "<command line>" | --url <url> | <id>… | --all | --server-json <file> [--package <kind> | --remote] [--set <KEY>=<VALUE>]…) [--json] [--junit <file>] ' +
    '[--only <id|group|clause,…>] [--skip <id|group|clause,…>] [--fail-on-warning] [--fixtures <file>] [--allow-calls] [--robustness] ' +
    "[--timeout-ms <ms>] [--slow-tool <name> [--slow-tool-args '<json>']] [--protocol-version <v> | --all-versions] [--verbose] [--list]",
  snapshot: 'usage: mcpwire snapshot (<id> | --stdio "<command line>" | --url <url>) [--protocol-version <v>] [-o <file>]\n       mcpwire snapshot diff <old.json> <new.json> [--json]',
  daemon: [
    'usage: mcpwire daemon start [<id>] [--idle-ms <ms>] [--config <file>] [--imports]',
    '       mcpwire daemon stop [<id>] | restart [<id>] | reload | status [<id>] [--json]',
  ].join('\n'),
  serve: 'usage: mcpwire serve [--http [--listen <host:port>] [--token-env <NAME>] [--store <redis://…> [--secret-env <NAME>] [--advertise <host:port>]] [--public-host <host:port>]…] [--names <as-is|prefixed|host>] [--page-size <n>] [--max-held <n>] [--held-ttl-ms <ms>] [--trace <file>] [--timeout-ms <ms>] [--tool-search [--pin <server/tool>]…] [--config <file>] [--imports]',
  watch: 'usage: mcpwire watch <id> [<uri>…] [--json]  |  mcpwire --stdio "<cmd>" watch [<uri>…]   (until Ctrl-C)',
  trace: `usage:
  mcpwire trace show <file> [--follow] [--color|--no-color]
  mcpwire trace stats <file> [--json]
  mcpwire trace html <file> [-o out.html | -o -]
  mcpwire trace diff <a.jsonl> <b.jsonl> [--json] [--server <id>]`,
  tap: `usage:
  mcpwire tap --trace <file> [--name <id>] [--strict] -- <server command> [args…]
  mcpwire tap --listen <host:port> --upstream <url> --trace <file> [--name <id>] [--strict]`,
  replay: `usage:
  mcpwire replay <trace.jsonl> [--match strict|loose] [--server <id>] [--listen <host:port>]`,
  'log-level': `usage: mcpwire log-level <id> <level> [--follow]  |  mcpwire --stdio "<cmd>" log-level <level> [--follow]\n       levels: ${LOG_LEVELS.join(', ')}`,
} as const;

/** The usage of a listing command (`resources`, `templates`, `prompts`: browse.ts). */
export function browseUsage(command: string): string {
  return `usage: mcpwire ${command} [<id>] [--json] [--timeout-ms <ms>] [--config <file>] [--imports]  |  mcpwire --stdio "<cmd>" ${command} [--json]`;
}

function usageOf(command: string): string | undefined {
  if (command === 'resources' || command === 'templates' || command === 'prompts') return browseUsage(command);
  if (command === 'untrust') return USAGES.trust; // untrust is trust --revoke
  return Object.hasOwn(USAGES, command) ? USAGES[command as keyof typeof USAGES] : undefined;
}

/**
 * What `mcpwire <command> <argv…>` prints for `--help`, when it is sure without the command: argv
 * asks for help and parses with the global options alone (a command's own option, or a bad one,
 * leaves the answer to the command). Undefined otherwise.
 */
export function quickHelp(command: string, argv: string[]): string | undefined {
  const usage = usageOf(command);
  if (usage === undefined) return undefined;
  try {
    const { values } = parseArgs({ args: argv, options: GLOBAL_OPTIONS, allowPositionals: true, strict: true });
    return values.help === true ? usage : undefined;
  } catch {
    return undefined;
  }
}
