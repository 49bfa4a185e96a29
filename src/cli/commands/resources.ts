/**
 * `mcpwire resources [<id>] [--json]`: `resources/list` (all pages) of the configured servers
 * (or of `--stdio` / `--url`). The table shows each resource's URI — what `mcpwire read <id>
 * <uri>` takes. `--json`: an array of the Resource objects as the servers sent them, each with
 * `server` (from config; the raw array ad hoc).
 */
import type { Resource } from '../../index.js';
import { browse } from '../browse.js';
import { cellText } from '../output.js';

export default function resources(argv: string[]): Promise<number> {
  return browse<Resource>(argv, {
    command: 'resources',
    noun: 'resources',
    capability: 'resources',
    fetch: (client) => client.listResources(),
    columns: ['uri', 'name', 'mime', 'description'],
    row: (r) => [cellText(r.uri, 300), cellText(r.title ?? r.name, 80), cellText(r.mimeType ?? '', 60), cellText(r.description ?? '', 300)],
  });
}
