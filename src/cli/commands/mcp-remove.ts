/**
 * `mcpwire mcp remove <id> [--scope project|global]`: deletes the entry from that one file
 * (removing it from the project leaves a global definition in effect — said so).
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
    if (!removed) throw new CliFailure(`server "${id}" is not defined in ${target.label} ${target.file}${await elsewhereHint(values, id, target.scope)}`);
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

/** Where else `id` is defined, and how to remove it there (e.g. "--scope global"). */
async function elsewhereHint(values: { config?: string; imports?: boolean; scope?: string }, id: string, scope: string): Promise<string> {
  if (values.config !== undefined) return '';
  const other = await effectiveEntry(values, id, true);
  if (other === undefined) return '';
  if ((other.source === 'global' || other.source === 'project') && other.source !== scope) {
    return `; it is defined in the ${whereLabel(other)}: remove it with "mcpwire mcp remove ${id} --scope ${other.source}"`;
  }
  if (other.source !== 'global' && other.source !== 'project') {
    return `; it comes from the ${whereLabel(other)} (read with --imports), which mcpwire does not edit: change that file, or hide it with "mcpwire mcp disable ${id}"`;
  }
  return '';
}
