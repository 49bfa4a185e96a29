/**
 * `mcp enable` / `mcp disable` (default scope project). Disabling an id that the
 * file does not define writes an override stub `{ "enabled": false }` — only when some layer
 * (or import file) defines the id; enabling removes such a stub.
 */
import { setServerEnabled, type SetEnabledOutcome } from '../host-api.js';
import { parse, UsageError } from './args.js';
import { CliFailure, CONFIG_OPTIONS, reportFailure, writeTarget } from './config-target.js';
import { effectiveEntry, whereLabel } from './mcp-edit.js';
import { printJson } from './output.js';

const DONE: Record<SetEnabledOutcome, (what: string, where: string) => string> = {
  updated: (what, where) => `${what} in ${where}`,
  unchanged: (what, where) => `${what.replace(/^(\w+) (server ".*")$/, '$2 is already $1')} in ${where} (nothing written)`,
  'override-added': (what, where) => `${what}: wrote an override { "enabled": false } in ${where} (the server is defined in a lower layer)`,
  'override-removed': (what, where) => `${what}: removed the override from ${where}; the lower layer's definition applies`,
};

export async function setEnabledCommand(argv: string[], enabled: boolean): Promise<number> {
  const verb = enabled ? 'enable' : 'disable';
  try {
    const { values, positionals } = parse(argv, CONFIG_OPTIONS);
    const [id] = positionals;
    if (!id || positionals.length > 1) throw new UsageError(`usage: mcpwire mcp ${verb} <id> [--scope project|global]`);
    const target = writeTarget(values);
    const before = await effectiveEntry(values, id, true);
    let outcome: SetEnabledOutcome;
    try {
      if (!enabled && before === undefined && values.config === undefined) throw new CliFailure(`unknown server "${id}": no layer defines it`);
      outcome = await setServerEnabled(target.file, id, enabled);
    } catch (err) {
      if (enabled && before !== undefined && before.file !== target.file) {
        throw new CliFailure(`server "${id}" is not defined in ${target.label} ${target.file}; it is defined in the ${whereLabel(before)}${before.source === 'global' ? ' (use --scope global)' : ''}`);
      }
      throw err;
    }
    const after = await effectiveEntry(values, id, true);
    const what = `${enabled ? 'enabled' : 'disabled'} server "${id}"`;
    if (values.json) printJson({ id, scope: target.scope, file: target.file, enabled, outcome, effective_enabled: after ? after.enabled : null });
    else {
      process.stdout.write(`${DONE[outcome](what, `${target.label} ${target.file}`)}\n`);
      if (after !== undefined && after.enabled !== enabled && after.file !== target.file) {
        process.stdout.write(`note: the effective config still has "${id}" ${after.enabled ? 'enabled' : 'disabled'}: the ${whereLabel(after)} takes precedence\n`);
      }
    }
    return 0;
  } catch (err) {
    return reportFailure(err);
  }
}
