/**
 * `mcpwire mcp update <id> [--to <version>] [--yes]`: an entry added with `mcp add
 * --from-registry` moved to the registry's latest version (or `--to`), making the same choice
 * (package kind or remote) with the same values the user gave. Shows what changes — version,
 * command and arguments or URL, environment and header names — and writes only with `--yes`
 * (the trust of a project entry is kept only when the command stays the same). An MCPB entry
 * shows its bundle's SHA-256 change; the new bundle is downloaded and verified only with `--yes`,
 * before anything is unpacked, written or run (a mismatch writes nothing).
 */
import path from 'node:path';
import { buildEntry, choicesOf, getServer, installBundle, pickChoice, type RegistrySource } from '../../registry-api.js';
import { userConfigDir, type ResolvedServer } from '../../host-api.js';
import { parse, UsageError } from '../args.js';
import { CliFailure, CONFIG_OPTIONS, findServer, loadView, pathOptions, reportFailure, scrubber } from '../config-target.js';
import { printJson, safeText } from '../output.js';
import { TRUST_WORDS, writeEntry } from './mcp-add.js';
import { launcher } from '../registry-add.js';

const OPTIONS = { ...CONFIG_OPTIONS, to: { type: 'string' }, yes: { type: 'boolean' } } as const;

export default async function mcpUpdate(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv, OPTIONS);
    const [id, extra] = positionals;
    if (!id || extra !== undefined) throw new UsageError('usage: mcpwire mcp update <id> [--to <version>] [--yes]');
    const loaded = await loadView(values);
    const s = findServer(loaded, id);
    // The configured entry is read expanded: a secret inside an argument or URL is its value here, never shown.
    const scrub = scrubber(loaded.servers);
    const from = s.config.fromRegistry;
    if (from === undefined) throw new CliFailure(`server "${safeText(id, 64)}" was not added from a registry (no from_registry in its entry): nothing to update from`);
    if (s.source !== 'project' && s.source !== 'global') throw new CliFailure(`server "${safeText(id, 64)}" is defined in an imported file (${s.file}); update it there`);
    const { server } = await getServer(from.registry, from.name, values.to ?? 'latest');
    const choice = pickChoice(choicesOf(server, id), from.package === 'remote' ? { remote: true } : { package: from.package }, server.name);
    if (choice === undefined) throw new CliFailure(`${server.name}@${server.version} no longer offers a ${from.package} choice`);
    const given = new Map(Object.entries(from.inputs ?? {}));
    // An MCPB bundle: its SHA-256 is what changes; the new one is downloaded and verified (before
    // anything is unpacked, written or run) only when the update is applied.
    const pkg = choice.kind === 'mcpb' ? server.packages![choice.index] : undefined;
    const wasSha = bundleSha(s);
    const shaChange = pkg !== undefined && pkg.fileSha256 !== wasSha ? [`bundle: sha256 ${wasSha ?? '(unknown)'} → ${pkg.fileSha256 ?? '(none)'}`] : [];
    if (pkg !== undefined && !values.yes) {
      const changes = [...(server.version !== from.version ? [`version: ${from.version} → ${server.version}`] : []), ...shaChange].map(scrub);
      if (values.json) printJson({ id, from: from.version, to: server.version, changes, written: false });
      else if (changes.length === 0) process.stdout.write(`"${id}" is at ${from.name}@${from.version}, the ${values.to ? 'version asked for' : 'latest version'}: nothing to change\n`);
      else process.stdout.write(`would update "${id}" (${s.source} config ${s.file}):\n${changes.map((c) => `  ${c}`).join('\n')}\nnothing written: run again with --yes to apply (the new bundle is downloaded and checked against its SHA-256 first)\n`);
      return 0;
    }
    const bundle = pkg !== undefined ? await installBundle(pkg, path.join(userConfigDir(pathOptions()), 'bundles')) : undefined;
    const { entry, secrets } = buildEntry(server, choice, { id, registry: from.registry, given, launcher: launcher(), ...(bundle ? { bundle } : {}) });
    const changes = [...diff(s, entry, from), ...shaChange].map(scrub);
    if (values.json && !values.yes) {
      printJson({ id, from: from.version, to: server.version, changes, written: false });
      return 0;
    }
    if (changes.length === 0) {
      process.stdout.write(`"${id}" is at ${from.name}@${from.version}, the ${values.to ? 'version asked for' : 'latest version'}: nothing to change\n`);
      return 0;
    }
    process.stdout.write(`${values.yes ? 'updating' : 'would update'} "${id}" (${s.source} config ${s.file}):\n${changes.map((c) => `  ${c}`).join('\n')}\n`);
    if (!values.yes) {
      process.stdout.write(`nothing written: run again with --yes to apply\n`);
      return 0;
    }
    const flags = values.config !== undefined ? { config: values.config, replace: true } : { scope: s.source, replace: true };
    const written = await writeEntry(id, entry, flags);
    if (values.json) printJson({ id, from: from.version, to: server.version, changes, written: true });
    else process.stdout.write(`updated; ${TRUST_WORDS[written.trust]}${bundle ? `; bundle verified (sha256 ${bundle.sha256}) and unpacked in ${bundle.dir}` : ''}\n`);
    for (const [v, what] of secrets) if (!process.env[v]) process.stderr.write(`mcpwire: note: set ${v} (the ${what}) where mcpwire runs\n`);
    return 0;
  } catch (err) {
    return reportFailure(err);
  }
}

/** The SHA-256 of the bundle an MCPB entry runs (its directory `bundles/<sha256>/` in the command line). */
function bundleSha(s: ResolvedServer): string | undefined {
  for (const a of [s.config.command ?? '', ...s.config.args]) {
    const m = /[\\/]bundles[\\/]([0-9a-f]{64})(?:[\\/]|$)/.exec(a);
    if (m) return m[1];
  }
  return undefined;
}

/** What differs between the configured entry and the rebuilt one, in words (never a value of env or headers). */
function diff(s: ResolvedServer, entry: Record<string, unknown>, from: RegistrySource): string[] {
  const out: string[] = [];
  const next = entry.from_registry as RegistrySource;
  if (next.version !== from.version) out.push(`version: ${from.version} → ${next.version}`);
  const was = s.config;
  // The new entry's references expanded as the loaded one's were, so only real changes show.
  const ex = (v: string) => v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (ref, n: string) => process.env[n] ?? ref);
  const run = (cmd: string | undefined, args: readonly string[]) => [cmd ?? '', ...args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
  if (entry.command !== undefined || was.command !== undefined) {
    const a = run(was.command, was.args);
    const b = run(entry.command === undefined ? undefined : ex(entry.command as string), ((entry.args as string[] | undefined) ?? []).map(ex));
    if (a !== b) out.push(`command: ${safeText(a, 300)} → ${safeText(b, 300)}`);
  }
  const url = entry.url === undefined ? undefined : ex(entry.url as string);
  if ((url ?? '') !== (was.url ?? '')) out.push(`url: ${safeText(was.url ?? '(none)', 200)} → ${safeText(url ?? '(none)', 200)}`);
  const names = (r: unknown) => Object.keys((r as Record<string, string> | undefined) ?? {}).sort().join(', ') || '(none)';
  if (names(was.env) !== names(entry.env)) out.push(`environment variables: ${names(was.env)} → ${names(entry.env)}`);
  if (names(was.headers) !== names(entry.headers)) out.push(`headers: ${names(was.headers)} → ${names(entry.headers)}`);
  return out;
}
