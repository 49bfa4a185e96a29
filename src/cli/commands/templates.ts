/**
 * `mcpwire templates [<id>] [--json]`: `resources/templates/list` (all pages) of the configured
 * servers (or of `--stdio` / `--url`): URI templates (RFC 6570) to fill in and `read`.
 * `--json`: an array of the ResourceTemplate objects, each with `server` (from config).
 */
import type { ResourceTemplate } from '../../index.js';
import { browse } from '../browse.js';
import { safeText } from '../output.js';
import { table } from '../layout.js';

export default function templates(argv: string[]): Promise<number> {
  return browse<ResourceTemplate>(argv, {
    command: 'templates',
    noun: 'resource templates',
    capability: 'resources',
    fetch: (client) => client.listResourceTemplates(),
    render(items) {
      const withServer = items[0]?.server !== undefined;
      const rows = items.map(({ server, item: t }) => [
        ...(withServer ? [safeText(server, 64)] : []),
        safeText(t.uriTemplate, 300),
        safeText(t.title ?? t.name, 80),
        safeText(t.description ?? '', 300),
      ]);
      process.stdout.write(`${table([...(withServer ? ['server'] : []), 'uri template', 'name', 'description'], rows)}\n`);
    },
  });
}
