/**
 * "Did you mean …?" for a field of a hand-written entry that mcpwire does not know: a typo of a
 * native field (`comand`, `keep_alvie`) or another host's word for it (`type`, `environment`).
 * The matching is the CLI's for commands and options (src/util/close-names.ts).
 */
import { closest } from '../../util/close-names.js';
import { knownEntryKeys } from './schema.js';

/** Words other hosts (and people) use for a native field, mapped to it. */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  type: 'transport',
  environment: 'env',
  arguments: 'args',
  argv: 'args',
  timeout: 'request_timeout_ms',
  serverUrl: 'url',
  endpoint: 'url',
  keepalive: 'keep_alive',
  working_directory: 'cwd',
};

/** ` (did you mean "env"?)` for a misspelt or foreign field name, `` when nothing is close. */
export function unknownFieldHint(key: string): string {
  const near = closest(key, [...knownEntryKeys(), ...Object.keys(FIELD_ALIASES)], 1)[0];
  return near === undefined ? '' : ` (did you mean "${FIELD_ALIASES[near] ?? near}"?)`;
}
