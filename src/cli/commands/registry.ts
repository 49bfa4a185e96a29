/**
 * `mcpwire registry search <words…> [--limit N] [--cursor C]` and `mcpwire registry show
 * <name>[@version]`, against `--registry <url>`, `MCPWIRE_REGISTRY`, or the official MCP Registry.
 * search: one page (name, version, what it offers, description) and the cursor of the next.
 * show: the validated server.json as choices — each package or remote, the command it would
 * run, whether its runner is installed, and every value it needs (`--set <KEY>=<VALUE>`).
 */
import {
  choicesOf,
  findCommand,
  getServer,
  parseRef,
  searchServers,
  type ServerSummary,
} from '../../registry-api.js';
import { parse, UsageError } from '../args.js';
import { reportFailure } from '../config-target.js';
import { table } from '../layout.js';
import { cellText, printJson, safeText } from '../output.js';
import { chosenRegistry, idFromName, inputLine } from '../registry-add.js';
import { USAGES } from '../usages.js';

const OPTIONS = {
  registry: { type: 'string' },
  url: { type: 'string' },
  'legacy-sse': { type: 'boolean' },
  'wait-ms': { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
} as const;

const USAGE = USAGES.registry;

export default async function registry(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub === 'launch') return await launch(argv, values, rest);
    const base = await chosenRegistry(values.registry);
    if (sub === 'search') return await search(base, rest.join(' '), values);
    if (sub === 'show') {
      if (rest.length !== 1) throw new UsageError('usage: mcpwire registry show <name>[@version]');
      return await show(base, rest[0], values.json === true);
    }
    throw new UsageError(sub === undefined ? USAGE : `unknown subcommand "registry ${safeText(sub, 40)}"\n${USAGE}`);
  } catch (err) {
    return reportFailure(err);
  }
}

async function search(base: string, words: string, values: { limit?: string; cursor?: string; json?: boolean }): Promise<number> {
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit must be an integer from 1 to 100');
  }
  const page = await searchServers(base, { ...(words ? { search: words } : {}), ...(values.cursor ? { cursor: values.cursor } : {}), ...(limit ? { limit } : {}) });
  if (values.json) {
    printJson({ registry: base, servers: page.servers, next_cursor: page.nextCursor ?? null });
    return 0;
  }
  if (page.servers.length === 0) process.stdout.write(`no servers${words ? ` matching "${safeText(words, 80)}"` : ''} in ${base}\n`);
  else process.stdout.write(`${table(['name', 'version', 'offers', 'description'], page.servers.map(row))}\n`);
  if (page.skipped) process.stderr.write(`mcpwire: note: ${page.skipped} item(s) of the answer were not server documents (skipped)\n`);
  if (page.nextCursor) {
    const again = ['mcpwire registry search', words ? quote(words) : '', values.limit ? `--limit ${values.limit}` : '', `--cursor ${quote(page.nextCursor)}`].filter(Boolean).join(' ');
    process.stderr.write(`more: ${again}\n`);
  }
  return 0;
}

/** `registry launch --url <url> -- <command…>`: what an entry of a package serving HTTP runs (../registry-launch.ts). */
async function launch(argv: string[], values: { url?: string; 'legacy-sse'?: boolean; 'wait-ms'?: string }, rest: string[]): Promise<number> {
  const usage = 'usage: mcpwire registry launch --url <http://127.0.0.1:PORT/path> [--legacy-sse] [--wait-ms N] -- <command> [args…]';
  if (values.url === undefined || !argv.includes('--') || rest.length === 0) throw new UsageError(usage);
  const waitMs = values['wait-ms'] === undefined ? 30_000 : Number(values['wait-ms']);
  if (!Number.isInteger(waitMs) || waitMs < 1) throw new UsageError('--wait-ms must be a whole number of milliseconds from 1');
  const { launchHttpPackage } = await import('../registry-launch.js');
  const code = await launchHttpPackage({ url: values.url, legacySse: values['legacy-sse'] === true, waitMs, command: rest[0], args: rest.slice(1) });
  // stdin may still be open (the host keeps it): leave now.
  process.exit(code);
}

function row(s: ServerSummary): string[] {
  const offers = [...s.packageKinds, ...(s.remote ? ['remote'] : [])].join(', ') || '(nothing to install)';
  const title = s.title ? `${s.title}: ` : '';
  return [cellText(s.name, 60), cellText(s.version, 20), offers, cellText(`${title}${s.description}${s.status && s.status !== 'active' ? ` [${s.status}]` : ''}`, 80)];
}

const quote = (s: string) => (/^[\w@./:=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

async function show(base: string, ref: string, json: boolean): Promise<number> {
  const { name, version } = parseRef(ref);
  const { server } = await getServer(base, name, version);
  const id = idFromName(server.name);
  const choices = choicesOf(server, id).map((c) => ({ ...c, runner_installed: c.runner === undefined ? null : findCommand(c.runner) !== undefined }));
  if (json) {
    printJson({ registry: base, server, id, choices });
    return 0;
  }
  const out: string[] = [`${safeText(server.name, 120)}@${safeText(server.version, 40)}${server.title ? ` — ${safeText(server.title, 80)}` : ''}`, `  ${safeText(server.description, 300)}`];
  if (server.repository?.url) out.push(`  repository: ${safeText(server.repository.url, 200)}`);
  if (server.websiteUrl) out.push(`  website: ${safeText(server.websiteUrl, 200)}`);
  out.push('', choices.length ? 'choices:' : 'nothing to install (see its website for how to set it up)');
  for (const c of choices) {
    const flag = c.kind === 'remote' ? '--remote' : `--package ${c.kind}`;
    const runner = c.runner === undefined ? '' : c.runner_installed ? `; runs with ${c.runner}` : `; runs with ${c.runner}, NOT installed here`;
    out.push(`  ${flag}: ${safeText(c.label, 200)} (${c.transport}${runner})${c.unsupported ? ` — cannot install: ${c.unsupported}` : ''}`);
    for (const i of c.inputs) out.push(`      ${inputLine(i)}`);
  }
  if (choices.length) out.push('', `install: mcpwire mcp add ${id} --from-registry ${server.name}@${server.version} [${choices.map((c) => (c.kind === 'remote' ? '--remote' : `--package ${c.kind}`)).filter((v, i, a) => a.indexOf(v) === i).join(' | ')}] [--set <KEY>=<VALUE>]…`);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
