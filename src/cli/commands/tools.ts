/**
 * `mcpwire tools [<id> [<tool>]] [--schema] [--names] [--json]`: the tools of the configured
 * servers (all ready ones, or one), connected through the host. People get each tool as a
 * signature — `get-sum(a: number, b: number)`, `?` for optional parameters, enums, defaults,
 * `→ { … }` for an output schema — with its description fitted to the terminal; `--schema` adds
 * the raw JSON Schemas, `--names` the host's public names (`mcp_<server>_<tool>_<hash8>`), and
 * `tools <id> <tool>` shows one tool with every parameter described.
 * `--json` is an array of `{ name, server, tool, description, inputSchema }` where `name` is the
 * public name and `tool` the server's own name (what `mcpwire call <id> <tool>` takes).
 * `--search "<words>" [--limit N]` ranks them instead (`tool-search-view.ts`).
 *
 * `mcpwire --stdio "<cmd>" | --url <url> tools [<tool>] [--json]`: every tool (all pages) of an
 * ad-hoc server; its `--json` is the raw `tools` array as the server sent it.
 */
import { canLogIn } from '../login-hint.js';
import type { Tool } from '../../index.js';
import type { AdaptedTool, McpHost } from '../../host-api.js';
import { UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { CliFailure, CONFIG_OPTIONS, loadView, reportFailure, scrubber } from '../config-target.js';
import { withHost } from '../host-run.js';
import { cellText, outputWidth, printJson, reportError, safeText } from '../output.js';
import { truncate, wrap } from '../layout.js';
import { displayWidth } from '../width.js';
import { pickServer, timeoutHint } from '../server-pick.js';
import { paramLines, params, typeText } from '../signature.js';
import { didYouMean } from '../suggest.js';
import { printSearch, searchLimit } from '../tool-search-view.js';
import { adHocServer, withClient, type TargetFlags } from '../target.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.tools;
const OWN = { imports: CONFIG_OPTIONS.imports, schema: { type: 'boolean' }, names: { type: 'boolean' }, search: { type: 'string' }, limit: { type: 'string' } } as const;

interface ViewFlags {
  schema?: boolean;
  names?: boolean;
  search?: string;
  limit?: string;
}

export default function tools(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: OWN, onError: reportHinted }, async ({ values, positionals }) => {
    if (adHocServer(values) === undefined) return await configTools(values, positionals);
    if (values.search !== undefined) throw new UsageError('--search ranks the configured servers\' tools (no --stdio/--url)');
    if (positionals.length > 1) throw new UsageError('with --stdio/--url, tools takes at most a tool name (no server id)');
    const list = await withClient(values, (client) => client.listTools());
    if (values.json) {
      printJson(positionals[0] === undefined ? list : list.filter((t) => t.name === positionals[0]));
      return 0;
    }
    if (positionals[0] !== undefined) return detail(list, positionals[0], undefined, values);
    if (list.length === 0) {
      process.stdout.write('no tools\n');
      return 0;
    }
    process.stdout.write(listing([{ tools: list.map((tool) => ({ tool })) }], values));
    return 0;
  });
}

/** An ad-hoc server's failure: with the timeout hint, credential-looking text redacted. */
function reportHinted(err: unknown): number {
  if (err instanceof Error && !(err instanceof UsageError)) err.message = timeoutHint(err.message);
  reportError(err);
  return err instanceof UsageError ? 2 : 1;
}

/** One entry of `tools --json` from config. */
export interface ListedTool {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: unknown;
}

async function configTools(values: TargetFlags & ViewFlags & { json?: boolean; config?: string; imports?: boolean }, positionals: string[]): Promise<number> {
  let scrub = (s: string) => s;
  try {
    const [id, only] = positionals;
    if (positionals.length > 2 || (values.search !== undefined && only !== undefined)) throw new UsageError(USAGE);
    const limit = values.search !== undefined ? searchLimit(values.limit) : undefined;
    if (values.limit !== undefined && values.search === undefined) throw new UsageError('--limit goes with --search');
    const config = await loadView(values);
    scrub = scrubber(config.servers);
    if (config.servers.length === 0) {
      throw new CliFailure('no server: no MCP servers configured (add one with "mcpwire mcp add") and no --stdio "<cmd>" or --url <url> given');
    }
    const servers = id === undefined ? config.servers : [await pickServer(config, id, values)];
    if (id !== undefined && servers[0].error === undefined && !servers[0].enabled) throw new CliFailure(`server "${id}" is disabled (enable it with "mcpwire mcp enable ${id}")`);
    let failed = false;
    await withHost(
      servers,
      values,
      { capRequests: false, daemon: true, onDiagnostic: (server, message) => process.stderr.write(`mcpwire: warning: ${server ? `server "${server}": ` : ''}${scrub(safeText(message, 500))}\n`) },
      async (host: McpHost) => {
        for (const s of host.status()) {
          if (s.state === 'ready' || (s.state === 'disabled' && id === undefined)) continue;
          if (s.state === 'error' && s.lastError?.startsWith('invalid configuration') && id === undefined) continue; // reported as a config diagnostic
          failed = true;
          const login = s.state === 'auth_required' && servers.some((c) => c.id === s.id && canLogIn(c)) ? `; run \`mcpwire login ${s.id}\`` : '';
          process.stderr.write(`mcpwire: warning: server "${s.id}" is ${s.state}${s.lastError ? `: ${scrub(timeoutHint(safeText(s.lastError, 500)))}` : ''}${login}\n`);
        }
        if (values.search !== undefined) {
          if ((await printSearch(host, values.search, { limit: limit!, ...(id !== undefined ? { server: id } : {}), json: values.json })) !== 0) failed = true;
          return;
        }
        const adapted = host.tools().map((t: AdaptedTool) => ({ adapted: t, original: host.catalog.byName.get(t.name)?.tool }));
        // Printed before the host closes: a server slow to shut down does not delay the list.
        if (values.json) {
          const listed = adapted
            .filter(({ adapted: t }) => only === undefined || t.tool === only)
            .map(({ adapted: t, original }): ListedTool => ({ name: t.name, server: t.server, tool: t.tool, description: original?.description ?? '', inputSchema: original?.inputSchema ?? t.parameters }));
          printJson(listed);
          return;
        }
        const asTool = ({ adapted: t, original }: (typeof adapted)[number]): Tool => original ?? { name: t.tool, description: t.description, inputSchema: t.parameters as Tool['inputSchema'] };
        if (only !== undefined) {
          if (failed) return;
          const code = detail(adapted.map(asTool), only, id, values, new Map(adapted.map((a) => [a.adapted.tool, a.adapted.name])));
          if (code !== 0) failed = true;
          return;
        }
        if (adapted.length === 0) {
          process.stdout.write('no tools\n');
          return;
        }
        const groups = new Map<string, { tool: Tool; name?: string }[]>();
        for (const a of adapted) {
          const list = groups.get(a.adapted.server) ?? [];
          list.push({ tool: asTool(a), name: a.adapted.name });
          groups.set(a.adapted.server, list);
        }
        process.stdout.write(listing([...groups].map(([server, list]) => ({ server, tools: list })), values));
      },
    );
    return failed ? 1 : 0;
  } catch (err) {
    return reportFailure(err, scrub);
  }
}

/** `name(a: number, b?: string)` broken at parameter boundaries to fit `width` (continuations indented). */
function signatureLines(tool: Tool, indent: number, width: number): string[] {
  const name = safeText(tool.name, 128);
  const parts = params(tool.inputSchema);
  const tail = `)${tool.outputSchema !== undefined ? ` → ${typeText(tool.outputSchema)}` : ''}`;
  const pad = ' '.repeat(indent);
  const cont = ' '.repeat(indent + 4);
  const lines: string[] = [];
  let cur = `${pad}${name}(`;
  parts.forEach((p, i) => {
    const piece = `${p}${i < parts.length - 1 ? ',' : ''}`;
    const sep = cur.endsWith('(') ? '' : ' ';
    if (displayWidth(cur) + sep.length + displayWidth(piece) > width && cur.trim() !== '' && !cur.endsWith('(')) {
      lines.push(cur);
      cur = `${cont}${piece}`;
    } else cur += `${sep}${piece}`;
  });
  if (displayWidth(cur) + displayWidth(tail) > width && cur.trim() !== '' && tail.length > 1) {
    lines.push(`${cur})`);
    cur = `${cont}${tail.slice(2)}`;
  } else cur += tail;
  lines.push(cur);
  return lines.map((l) => truncate(l, width));
}

/** The first paragraph of a description, wrapped into at most `max` lines. */
function descriptionLines(description: string | undefined, indent: number, width: number, max: number): string[] {
  const first = cellText(String(description ?? '').split(/\n\s*\n/)[0], 2000);
  if (first === '') return [];
  const lines = wrap(first, width - indent);
  const kept = lines.slice(0, max);
  if (lines.length > max) kept[max - 1] = truncate(`${kept[max - 1]} ${lines[max]}`, width - indent);
  return kept.map((l) => `${' '.repeat(indent)}${l}`);
}

function schemaLines(tool: Tool, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const block = (label: string, v: unknown) => [`${pad}${label}:`, ...JSON.stringify(v, null, 2).split('\n').map((l) => `${pad}  ${l}`)];
  return [...block('inputSchema', tool.inputSchema), ...(tool.outputSchema !== undefined ? block('outputSchema', tool.outputSchema) : [])];
}

/** The default view: per server, each tool as a signature with its description under it. */
function listing(groups: { server?: string; tools: { tool: Tool; name?: string }[] }[], flags: ViewFlags): string {
  const width = Math.max(40, outputWidth());
  const out: string[] = [];
  for (const g of groups) {
    const base = g.server === undefined ? 0 : 2;
    if (g.server !== undefined) out.push(`${safeText(g.server, 64)} (${g.tools.length} tool${g.tools.length === 1 ? '' : 's'})`);
    for (const { tool, name } of g.tools) {
      out.push(...signatureLines(tool, base, width));
      out.push(...descriptionLines(tool.description, base + 4, width, flags.schema ? 20 : 2));
      if (flags.names && name !== undefined) out.push(truncate(`${' '.repeat(base + 4)}name: ${name}`, width));
      if (flags.schema) out.push(...schemaLines(tool, base + 4));
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** `tools <id> <tool>`: one tool in full; an unknown name gets a "did you mean". */
function detail(list: readonly Tool[], name: string, server: string | undefined, flags: ViewFlags, publicNames?: Map<string, string>): number {
  const tool = list.find((t) => t.name === name);
  if (tool === undefined) {
    process.stderr.write(`mcpwire: unknown tool "${safeText(name, 64)}"${server ? ` on server "${server}"` : ''}${didYouMean(name, list.map((t) => t.name))}\n`);
    return 1;
  }
  const width = Math.max(40, outputWidth());
  const out = [...signatureLines(tool, 0, width)];
  const desc = safeText(tool.description ?? '', 10_000);
  if (desc !== '') out.push('', ...wrap(desc, width));
  const lines = paramLines(tool.inputSchema);
  if (lines.length > 0) out.push('', 'parameters:', ...lines.flatMap((l) => wrap(l, width - 6).map((w, i) => `${i === 0 ? '  ' : '      '}${w}`)));
  const pub = publicNames?.get(tool.name);
  if (flags.names && pub !== undefined) out.push('', `name: ${pub}`);
  if (flags.schema) out.push('', ...schemaLines(tool, 0));
  if (server !== undefined) out.push('', ...wrap(`call it: mcpwire call ${server} ${safeText(tool.name, 128)}${Object.keys((tool.inputSchema as { properties?: object })?.properties ?? {}).map((k) => ` ${safeText(k, 64)}=…`).join('')}`, width));
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
