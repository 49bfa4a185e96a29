/** `mcpwire … tools [--json]`: lists every tool (all pages) of a server. */
import { parse, UsageError } from '../args.js';
import { printJson, reportError, safeText, table } from '../output.js';
import { withClient } from '../target.js';

export default async function tools(argv: string[]): Promise<number> {
  try {
    const { values } = parse(argv, {});
    const list = await withClient(values, (client) => client.listTools());
    if (values.json) {
      printJson(list);
      return 0;
    }
    if (list.length === 0) {
      process.stdout.write('no tools\n');
      return 0;
    }
    process.stdout.write(`${table(['name', 'description'], list.map((t) => [safeText(t.name, 64), safeText(t.description ?? '', 80)]))}\n`);
    return 0;
  } catch (err) {
    reportError(err);
    return err instanceof UsageError ? 2 : 1;
  }
}
