/**
 * `mcpwire templates [<id>] [--json]`: `resources/templates/list` (all pages) of the configured
 * servers (or of `--stdio` / `--url`): URI templates (RFC 6570) to fill in and `read`.
 * `--json`: an array of the ResourceTemplate objects, each with `server` (from config).
 */
import type { ResourceTemplate } from '../../index.js';
import { browse } from '../browse.js';
import { cellText } from '../output.js';

export default function templates(argv: string[]): Promise<number> {
  return browse<ResourceTemplate>(argv, {
    command: 'templates',
    noun: 'resource templates',
    capability: 'resources',
    fetch: (client) => client.listResourceTemplates(),
    columns: ['uri template', 'name', 'description'],
    row: (t) => [cellText(t.uriTemplate, 300), cellText(t.title ?? t.name, 80), cellText(t.description ?? '', 300)],
  });
}
