/**
 * `mcpwire snapshot <id> | --stdio "<cmd>" | --url <url> [-o surface.json]`: the server's surface (either era)
 * (server info, capabilities, tools with schemas, resources, templates, prompts), normalized
 * and sorted, as JSON (to the file, or stdout).
 *
 * `mcpwire snapshot diff old.json new.json [--json]`: breaking vs additive changes; exit 1 when
 * anything is breaking (a removed tool, a new required argument, a narrowed type…), else 0.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { asSurface, diffSurfaces, takeSnapshot, type SurfaceChange } from '../../check-api.js';
import { toConnectConfig } from '../../host-api.js';
import { parseTimeout, UsageError } from '../args.js';
import { reportJudgeFailure, runCommand } from '../command.js';
import { CONFIG_OPTIONS, findServer, loadView, scrubber, usableServer } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { adHocServer } from '../target.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.snapshot;

async function readSurface(file: string) {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return asSurface(JSON.parse(text), file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function line(c: SurfaceChange): string {
  return `  ${c.path}: ${safeText(c.message, 300)}`;
}

export default function snapshot(argv: string[]): Promise<number> {
  const options = { output: { type: 'string', short: 'o' }, imports: CONFIG_OPTIONS.imports } as const;
  return runCommand(argv, { usage: USAGE, options, onError: reportJudgeFailure }, async ({ values, positionals }, run) => {
    if (positionals[0] === 'diff') {
      if (positionals.length !== 3) throw new UsageError(USAGE);
      const d = diffSurfaces(await readSurface(positionals[1]), await readSurface(positionals[2]));
      if (values.json) printJson(d);
      else {
        if (d.breaking.length > 0) process.stdout.write(`breaking (${d.breaking.length}):\n${d.breaking.map(line).join('\n')}\n`);
        if (d.additive.length > 0) process.stdout.write(`additive (${d.additive.length}):\n${d.additive.map(line).join('\n')}\n`);
        if (d.other.length > 0) process.stdout.write(`other (${d.other.length}):\n${d.other.map(line).join('\n')}\n`);
        if (d.breaking.length + d.additive.length + d.other.length === 0) process.stdout.write('no changes\n');
      }
      return d.breaking.length > 0 ? 1 : 0;
    }
    let target = adHocServer(values);
    let protocolVersion = values['protocol-version'];
    if (target !== undefined && positionals.length > 0) throw new UsageError(`with --stdio/--url, snapshot takes no server id\n${USAGE}`);
    if (target === undefined) {
      if (positionals.length !== 1) throw new UsageError(`no server: give a configured server id, --stdio "<command line>" or --url <url>\n${USAGE}`);
      const config = await loadView(values);
      run.scrub = scrubber(config.servers);
      const server = findServer(config, positionals[0]);
      usableServer(server);
      target = toConnectConfig(server);
      protocolVersion ??= server.config.protocolVersion;
    }
    const surface = await takeSnapshot(target, { timeoutMs: parseTimeout(values['timeout-ms']) ?? 10_000, closeOnExit: true, ...(protocolVersion !== undefined ? { protocolVersion } : {}) });
    const text = `${JSON.stringify(surface, null, 2)}\n`;
    if (values.output !== undefined) {
      await writeFile(values.output, text);
      process.stderr.write(`wrote ${values.output}: ${surface.tools.length} tools, ${surface.resources.length} resources, ${surface.resourceTemplates.length} templates, ${surface.prompts.length} prompts\n`);
    } else process.stdout.write(text);
    return 0;
  });
}
