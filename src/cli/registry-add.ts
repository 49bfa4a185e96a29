/**
 * `mcpwire mcp add [<id>] --from-registry <name>[@version] [--package <kind> | --remote]
 * [--set <KEY>=<VALUE>]… [--registry <url>]`: fetches the server.json (validated), picks the package
 * or remote (by flag, the only one, or asked on a terminal), checks its runner is installed,
 * takes the values it needs (`--set`, defaults, asked on a terminal; a missing one is an error
 * naming it), verifies an MCPB bundle, and writes the entry through the same writer and trust
 * rules as `mcp add`. Secrets become `${VAR}` references: it prints which variables to set.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { SERVER_ID_PATTERN, userConfigDir } from '../host-api.js';
import {
  buildEntry,
  choicesOf,
  findCommand,
  getServer,
  installBundle,
  parseRef,
  pickChoice,
  registryUrl,
  RegistryError,
  type Choice,
  type NeededInput,
  type ServerJson,
} from '../registry-api.js';
import { UsageError } from './args.js';
import { TRUST_WORDS, writeEntry, type AddValues } from './commands/mcp-add.js';
import { loadView, pathOptions, reportFailure } from './config-target.js';
import { printJson, safeText } from './output.js';

/** `--set <KEY>=<VALUE>`… as key → values (a key given twice: a repeated argument). */
export function parseSets(list: readonly string[] = []): Map<string, string[]> {
  const out = new Map<string, string[]>();
  list.forEach((item, n) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set must look like <KEY>=<VALUE> (occurrence ${n + 1} has no KEY= part)`);
    const k = item.slice(0, eq);
    out.set(k, [...(out.get(k) ?? []), item.slice(eq + 1)]);
  });
  return out;
}

/** A server id from a registry name: its last part, made a valid id (`io.github.x/weather` → `weather`). */
export function idFromName(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  const id = last || 'server';
  return SERVER_ID_PATTERN.test(id) ? id : `s-${id}`.slice(0, 64);
}

/**
 * The registry a command uses: `--registry`, else `MCPWIRE_REGISTRY`, else `mcp.registry` of the
 * global config (read only when neither says), else the official MCP Registry.
 */
export async function chosenRegistry(flag: string | undefined): Promise<string> {
  if (flag !== undefined || process.env.MCPWIRE_REGISTRY) return registryUrl(flag);
  const global = await loadView({}, 'global');
  // A setting that is there but unusable stops here: falling back to the official registry would install from elsewhere than asked.
  const bad = global.diagnostics.find((d) => d.field === 'mcp.registry' && d.severity === 'error');
  if (bad !== undefined) throw new RegistryError('unsupported', `${bad.message.replace(/; ignored$/, '')}; fix it, or say the registry with --registry <url> or MCPWIRE_REGISTRY`);
  return registryUrl(undefined, process.env, global.host?.registry);
}

/**
 * How an entry starts a package that serves HTTP: this mcpwire (node and its CLI script, absolute
 * paths) running `registry launch`, which starts the package and relays stdio to its URL.
 */
export function launcher(): { command: string; args: string[] } {
  const script = process.argv[1] ?? '';
  let real = script;
  try {
    real = realpathSync(script);
  } catch {
    // as given
  }
  return { command: process.execPath, args: [real, 'registry', 'launch'] };
}

const interactive = () => process.stdin.isTTY === true && process.stderr.isTTY === true;

/** One line about an input: key, where it goes, required/secret/default. */
export function inputLine(i: NeededInput): string {
  const bits = [i.where, i.required ? 'required' : 'optional'];
  if (i.secret) bits.push(`secret: set ${i.envVar} in the environment`);
  if (i.default !== undefined) bits.push(`default ${JSON.stringify(i.default)}`);
  if (i.choices) bits.push(`one of ${i.choices.join(', ')}`);
  if (i.repeated) bits.push('repeatable');
  return `${safeText(i.key, 80)} (${bits.join('; ')})${i.description ? ` — ${safeText(i.description, 160)}` : ''}`;
}

export async function addFromRegistry(idArg: string | undefined, ref: string, values: AddValues): Promise<number> {
  try {
    if (values.package !== undefined && values.remote === true) throw new UsageError('--package and --remote exclude each other');
    for (const k of ['command', 'url', 'transport', 'arg', 'env', 'header', 'cwd', 'sandbox', 'sandbox-read', 'sandbox-write', 'sandbox-allow', 'sandbox-env'] as const) {
      if (values[k] !== undefined) throw new UsageError(`--${k} does not go with --from-registry (the server.json says how it runs; give its values with --set <KEY>=<VALUE>)`);
    }
    const registry = await chosenRegistry(values.registry);
    const { name, version } = parseRef(ref);
    const { server } = await getServer(registry, name, version);
    const id = idArg ?? idFromName(server.name);
    const choices = choicesOf(server, id);
    const choice = pickChoice(choices, { ...(values.package !== undefined ? { package: values.package } : {}), remote: values.remote === true }, server.name) ?? (await askChoice(server, choices));
    checkRunner(server, choice);
    const given = parseSets(values.set);
    await askMissing(choice, given);
    const bundle = choice.kind === 'mcpb' ? await installBundle(server.packages![choice.index], path.join(userConfigDir(pathOptions()), 'bundles')) : undefined;
    const { entry, secrets } = buildEntry(server, choice, { id, registry, given, launcher: launcher(), ...(bundle ? { bundle } : {}) });
    const written = await writeEntry(id, entry, values);
    if (values.json === true) {
      printJson({ id, scope: written.target.scope, file: written.target.file, from_registry: entry.from_registry, choice: choice.label, replaced: written.replaced, set_variables: [...secrets.keys()], ...(bundle ? { bundle: bundle.dir } : {}) });
      return 0;
    }
    process.stdout.write(`${written.replaced ? 'replaced' : 'added'} server "${id}" (${choice.label}) from ${server.name}@${server.version} of ${registry} in ${written.target.label} ${written.target.file}; ${TRUST_WORDS[written.trust]}\n`);
    if (bundle) process.stdout.write(`bundle verified (sha256 ${bundle.sha256}) and unpacked in ${bundle.dir}\n`);
    for (const [v, what] of secrets) process.stdout.write(`set ${v} in the environment where mcpwire runs (the ${what}; the entry holds \${${v}}, never the value)\n`);
    return 0;
  } catch (err) {
    if (err instanceof Error && err.message.endsWith('(use replace to overwrite)')) err.message = err.message.replace('(use replace to overwrite)', '(use --replace to overwrite, or another id: mcp add <id> --from-registry …)');
    return reportFailure(err);
  }
}

/** Several choices fit and no flag said which: asked on a terminal, else an error listing them. */
async function askChoice(server: ServerJson, choices: Choice[]): Promise<Choice> {
  const usable = choices.filter((c) => c.unsupported === undefined);
  const flags = usable.map((c) => `${c.kind === 'remote' ? '--remote' : `--package ${c.kind}`} (${c.label})`);
  if (!interactive()) throw new RegistryError('no-choice', `${server.name} offers several ways to install it; say which: ${flags.join(', ')}`);
  const { createInterface } = await import('node:readline/promises'); // on a terminal only
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    usable.forEach((c, n) => process.stderr.write(`  ${n + 1}. ${c.label} (${c.transport})\n`));
    const answer = await rl.question(`install ${server.name} how? [1-${usable.length}] `);
    const pick = usable[Number(answer.trim()) - 1];
    if (pick === undefined) throw new UsageError(`no choice ${JSON.stringify(answer.trim().slice(0, 20))}; say which with ${flags.join(' or ')}`);
    return pick;
  } finally {
    rl.close();
  }
}

/** The runner of a package (npx, uvx, docker, dnx…) must be installed. */
function checkRunner(server: ServerJson, choice: Choice): void {
  if (choice.runner === undefined || findCommand(choice.runner) !== undefined) return;
  const others = choicesOf(server, 'x').filter((c) => c.kind !== choice.kind && c.unsupported === undefined).map((c) => (c.kind === 'remote' ? '--remote' : `--package ${c.kind}`));
  throw new RegistryError('missing-runtime', `${server.name}: the ${choice.kind} package runs with "${choice.runner}", which is not installed here (not found on PATH); install it${others.length ? `, or choose ${others.join(' or ')}` : ''}`);
}

/** On a terminal, asks for each required value that has no default and was not given. */
async function askMissing(choice: Choice, given: Map<string, string[]>): Promise<void> {
  const missing = choice.inputs.filter((i) => i.required && !i.secret && i.default === undefined && !given.has(i.key));
  if (missing.length === 0 || !interactive()) return; // buildEntry names what is missing
  const { createInterface } = await import('node:readline/promises'); // on a terminal only
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (const i of missing) {
      const answer = (await rl.question(`${inputLine(i)}\n  ${i.key} = `)).trim();
      if (answer !== '') given.set(i.key, [answer]);
    }
  } finally {
    rl.close();
  }
}
