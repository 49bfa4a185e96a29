/**
 * `mcpwire read <id> <uri> [--json]`: `resources/read` on a configured server (or
 * `mcpwire --stdio "<cmd>" | --url <url> read <uri>` on an ad-hoc one). Text contents are
 * printed as they are; binary ones as a `[blob <mimeType>, <n> bytes]` line, or written to
 * `--save-dir DIR` (the extension from the MIME type; the path printed). `--json` prints
 * the ReadResourceResult.
 */
import path from 'node:path';
import type { ReadResourceResult } from '../../index.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { withOneServer } from '../config-client.js';
import { saveBlob } from '../content.js';
import { CONFIG_OPTIONS } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { adHocServer } from '../target.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.read;

export default function read(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: { imports: CONFIG_OPTIONS.imports, 'save-dir': { type: 'string' } } }, async ({ values, positionals }, run) => {
    const adHoc = adHocServer(values) !== undefined;
    const [id, uri] = adHoc ? [undefined, positionals[0]] : positionals;
    if (!uri || positionals.length !== (adHoc ? 1 : 2)) throw new UsageError(USAGE);
    const result: ReadResourceResult = await withOneServer(values, id, run, (client, timeoutMs) =>
      client.readResource(uri, timeoutMs === undefined ? {} : { timeoutMs }),
    );
    if (values.json) {
      printJson(result);
      return 0;
    }
    for (const c of result.contents ?? []) {
      if ('text' in c && typeof c.text === 'string') process.stdout.write(c.text.endsWith('\n') ? c.text : `${c.text}\n`);
      else if ('blob' in c && typeof c.blob === 'string' && values['save-dir'] !== undefined) {
        const stem = path.posix.basename(String(c.uri ?? '')).replace(/\.[A-Za-z0-9]+$/, '') || 'resource';
        process.stdout.write(`${saveBlob(values['save-dir'], stem, c.mimeType, c.blob)}\n`);
      } else if ('blob' in c && typeof c.blob === 'string') {
        process.stdout.write(`[blob ${safeText(c.mimeType ?? 'application/octet-stream', 80)}, ${Buffer.from(c.blob, 'base64').length} bytes: ${safeText(c.uri, 200)}]\n`);
      }
    }
    return 0;
  });
}
