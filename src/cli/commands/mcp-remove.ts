/**
 * `mcpwire mcp remove <id> [--scope project|global]`: deletes the entry from that one file
 * (seed §5.2: removing it from the project leaves a global definition in effect — said so).
 */
import { removeServer } from '../../host-api.js';
import { parse, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, reportFailure, writeTarget } from '../config-target.js';
import { effectiveEntry, whereLabel } from '../mcp-edit.js';
import { printJson } from '../output.js';

export default async function mcpRemove(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, CONFIG_OPTIONS);
    const [id] = positionals;
    if (!id || positionals.length > 1) throw new UsageError('usage: mcpwire mcp remove <id> [--scope project|global]');
    const target = writeTarget(values);
    const removed = await removeServer(target.file, id);
    if (!removed) throw new CliFailure(`server "${id}" is not defined in ${target.label} ${target.file}`);
    const still = await effectiveEntry(values, id);
    if (values.json) printJson({ id, scope: target.scope, file: target.file, removed: true, still_defined_in: still ? still.source : null });
    else {
      process.stdout.write(`removed server "${id}" from ${target.label} ${target.file}\n`);
      if (still) process.stdout.write(`note: "${id}" is still defined in the ${whereLabel(still)} and stays in the effective config\n`);
    }
    return 0;
  } catch (err) {
    return reportFailure(err);
  }
}
