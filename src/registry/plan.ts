/**
 * From a server.json to a native config entry: the choices it offers (each package, each
 * remote), what each needs from the user, and the entry one choice makes with the user's values.
 * Versions are pinned to the resolved ones; secrets are `${VAR}` references listed in
 * `secret_names`; the entry records where it came from (`from_registry`).
 */
import { RegistryError } from './errors.js';
import { inputsOf, Resolution, type GivenValues, type NeededInput } from './inputs.js';
import { DEFAULT_RUNNER, packageCommand } from './runtime.js';
import type { ArgumentSpec, PackageSpec, ServerJson, TransportSpec } from './types.js';

/** One way to install a server: a package of some kind, or a remote. */
export interface Choice {
  /** `npm`, `pypi`, `oci`, `nuget`, `mcpb`, or `remote`. */
  kind: string;
  /** Index among the server's packages (or remotes). */
  index: number;
  /** What it is, in words: `npm @scope/pkg@1.2.3`, `remote https://…`. */
  label: string;
  /** The MCP transport: `stdio`, `streamable-http`, `sse`. */
  transport: string;
  /** The program that runs it (packages), to be found on PATH. */
  runner?: string;
  inputs: NeededInput[];
  /** Why mcpwire cannot install it, when it cannot. */
  unsupported?: string;
}

/** Where an entry came from (`from_registry` of the native entry). */
export interface RegistrySource {
  registry: string;
  name: string;
  version: string;
  /** The kind chosen (`npm`, `remote`…), so an update makes the same choice. */
  package: string;
  /** Non-secret values the user gave, given again by `mcp update`. */
  inputs?: Record<string, string[]>;
}

/** A bundle already downloaded and verified (MCPB): the command its manifest gives. */
export interface BundleLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const KINDS = new Set(['npm', 'pypi', 'oci', 'nuget', 'mcpb']);

/** Every choice the server offers, packages first, in the document's order. */
export function choicesOf(server: ServerJson, id: string): Choice[] {
  const out: Choice[] = [];
  (server.packages ?? []).forEach((p, index) => out.push(packageChoice(p, index, id)));
  (server.remotes ?? []).forEach((r, index) => out.push(remoteChoice(r, index, id)));
  return out;
}

function packageChoice(p: PackageSpec, index: number, id: string): Choice {
  const inputs = [
    ...argInputs(p.runtimeArguments ?? [], id),
    ...argInputs(p.packageArguments ?? [], id),
    ...(p.environmentVariables ?? []).flatMap((e) => inputsOf(e, e.name, 'environment variable', id)),
  ];
  const label = p.registryType === 'mcpb' ? `mcpb ${p.identifier}` : `${p.registryType} ${p.identifier}${p.version ? `@${p.version}` : ''}`;
  const c: Choice = { kind: p.registryType, index, label, transport: p.transport?.type ?? 'stdio', inputs };
  if (p.registryType !== 'mcpb') c.runner = p.runtimeHint ?? DEFAULT_RUNNER[p.registryType] ?? p.registryType;
  if (!KINDS.has(p.registryType)) c.unsupported = `mcpwire does not know how to run ${JSON.stringify(p.registryType)} packages`;
  else if (c.transport !== 'stdio' && c.transport !== 'streamable-http' && c.transport !== 'sse') c.unsupported = `the package's transport ${JSON.stringify(c.transport)} is not one mcpwire knows`;
  else if (c.transport !== 'stdio' && !p.transport?.url) c.unsupported = `the package serves ${c.transport} once started but its server.json gives no transport.url to connect to`;
  return c;
}

function remoteChoice(r: TransportSpec, index: number, id: string): Choice {
  const vars = Object.entries(r.variables ?? {}).filter(([v]) => (r.url ?? '').includes(`{${v}}`));
  const inputs = [...vars.flatMap(([v, s]) => inputsOf(s, v, 'variable', id)), ...(r.headers ?? []).flatMap((h) => inputsOf(h, h.name, 'header', id))];
  return { kind: 'remote', index, label: `remote ${r.url ?? ''}`, transport: r.type, inputs };
}

function argInputs(args: ArgumentSpec[], id: string): NeededInput[] {
  return args.flatMap((a) => inputsOf(a, argKey(a), 'argument', id, a.isRepeated === true));
}

const argKey = (a: ArgumentSpec) => (a.type === 'named' ? (a.name ?? '') : (a.valueHint ?? a.name ?? 'value'));

/**
 * Picks the choice: `--package <kind>`, `--remote`, or the only one there is (packages of a kind
 * mcpwire cannot run do not count). Several that fit and no flag: undefined (the caller asks).
 */
export function pickChoice(choices: Choice[], want: { package?: string; remote?: boolean }, name: string): Choice | undefined {
  const usable = choices.filter((c) => c.unsupported === undefined);
  if (want.remote) {
    const remotes = usable.filter((c) => c.kind === 'remote');
    if (remotes.length === 0) throw new RegistryError('no-choice', `${name} has no remote endpoint (it offers: ${offers(choices)})`);
    return remotes.find((c) => c.transport === 'streamable-http') ?? remotes[0];
  }
  if (want.package !== undefined) {
    const all = choices.filter((c) => c.kind === want.package);
    if (all.length === 0) throw new RegistryError('no-choice', `${name} has no ${want.package} package (it offers: ${offers(choices)})`);
    const ok = all.find((c) => c.unsupported === undefined);
    if (ok === undefined) throw new RegistryError('unsupported', `${name}: ${all[0].label}: ${all[0].unsupported}`);
    return ok;
  }
  if (choices.length === 0) throw new RegistryError('no-choice', `${name} offers neither a package nor a remote to install (see its websiteUrl for how to set it up)`);
  if (usable.length === 0) throw new RegistryError('unsupported', `${name}: ${choices[0].label}: ${choices[0].unsupported}`);
  return usable.length === 1 ? usable[0] : undefined;
}

function offers(choices: Choice[]): string {
  return choices.length ? [...new Set(choices.map((c) => c.kind))].join(', ') : 'nothing to install';
}

export interface BuildOptions {
  /** The entry's id (secret variables are named after it). */
  id: string;
  registry: string;
  given: GivenValues;
  env?: NodeJS.ProcessEnv;
  /** The verified bundle, for an MCPB choice. */
  bundle?: BundleLaunch;
  /**
   * The command that starts a package serving HTTP and relays stdio to its URL (`mcpwire registry
   * launch`): the entry runs `<launcher> --url <url> [--legacy-sse] -- <package command>`.
   */
  launcher?: { command: string; args: string[] };
}

export interface BuiltEntry {
  entry: Record<string, unknown>;
  /** Environment variables to set (secrets), each with what it is for. */
  secrets: Map<string, string>;
}

/** The native config entry of `choice`, or a RegistryError naming every required value not given. */
export function buildEntry(server: ServerJson, choice: Choice, o: BuildOptions): BuiltEntry {
  const r = new Resolution(o.id, o.given, o.env ?? process.env);
  const entry = choice.kind === 'remote' ? remoteEntry(server.remotes![choice.index], r) : packageEntry(server.packages![choice.index], r, o.bundle, o.launcher);
  r.finish();
  const names = [...r.secrets.keys()];
  const headerSecrets = choice.kind === 'remote' ? (server.remotes![choice.index].headers ?? []).filter((h) => h.isSecret && (entry.headers as Record<string, string> | undefined)?.[h.name] !== undefined).map((h) => h.name) : [];
  const secretNames = [...new Set([...names, ...headerSecrets])];
  if (secretNames.length) entry.secret_names = secretNames;
  const source: RegistrySource = { registry: o.registry, name: server.name, version: server.version, package: choice.kind };
  if (r.used.size) source.inputs = Object.fromEntries(r.used);
  entry.from_registry = source;
  return { entry, secrets: r.secrets };
}

function remoteEntry(t: TransportSpec, r: Resolution): Record<string, unknown> {
  let url = t.url ?? '';
  for (const [v, s] of Object.entries(t.variables ?? {})) {
    if (!url.includes(`{${v}}`)) continue;
    const got = r.values(s, v, 'variable');
    if (got !== undefined) url = url.split(`{${v}}`).join(got[0]);
  }
  const headers: Record<string, string> = {};
  for (const h of t.headers ?? []) {
    const got = r.values(h, h.name, 'header');
    if (got !== undefined) headers[h.name] = got[0];
  }
  const entry: Record<string, unknown> = { transport: t.type === 'sse' ? 'sse' : 'http', url };
  if (Object.keys(headers).length) entry.headers = headers;
  // A secret inside the URL is read from its variable: the variable is in env too (with its name in
  // secret_names), so every redaction that knows the entry's configured secrets knows its value.
  const urlSecrets = [...r.secrets].filter(([, what]) => what.startsWith('variable '));
  if (urlSecrets.length) entry.env = Object.fromEntries(urlSecrets.map(([v]) => [v, `\${${v}}`]));
  return entry;
}

function packageEntry(p: PackageSpec, r: Resolution, bundle: BundleLaunch | undefined, launcher: BuildOptions['launcher']): Record<string, unknown> {
  const env: Record<string, string> = {};
  for (const e of p.environmentVariables ?? []) {
    const got = r.values(e, e.name, 'environment variable');
    if (got !== undefined) env[e.name] = got[0];
  }
  const runtimeArgs = args(p.runtimeArguments ?? [], r);
  const packageArgs = args(p.packageArguments ?? [], r);
  // A secret inside an argument is read from its variable: set it in env too, so redaction knows its value.
  for (const [v, what] of r.secrets) if (!what.startsWith('environment variable') && env[v] === undefined) env[v] = `\${${v}}`;
  let launch: { command: string; args: string[] };
  if (p.registryType === 'mcpb') {
    if (bundle === undefined) throw new RegistryError('unsupported', 'an MCPB package is installed from its verified bundle');
    launch = { command: bundle.command, args: [...bundle.args, ...packageArgs] };
    for (const [k, v] of Object.entries(bundle.env)) env[k] ??= v;
  } else {
    launch = packageCommand(p, runtimeArgs, packageArgs, Object.keys(env));
  }
  if (p.transport?.type === 'streamable-http' || p.transport?.type === 'sse') launch = viaLauncher(p, launch, r, launcher);
  const entry: Record<string, unknown> = { transport: 'stdio', command: launch.command };
  if (launch.args.length) entry.args = launch.args;
  if (Object.keys(env).length) entry.env = env;
  return entry;
}

/**
 * A package that serves HTTP once started: the launcher starts it and relays stdio to its URL,
 * whose `{name}` pieces are the values of its arguments (by flag or value hint) and environment
 * variables, as the entry has them.
 */
function viaLauncher(p: PackageSpec, launch: { command: string; args: string[] }, r: Resolution, launcher: BuildOptions['launcher']): { command: string; args: string[] } {
  if (launcher === undefined) throw new RegistryError('unsupported', `the package serves ${p.transport.type} once started; this caller cannot start it`);
  const template = p.transport.url ?? '';
  const url = template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const v = r.resolved.get(name);
    if (v === undefined && r.missing.some((m) => m.key === name)) return `{${name}}`; // finish() names it
    if (v === undefined) throw new RegistryError('missing-value', `the package's URL ${template} needs {${name}}, which none of its arguments or environment variables gives (give it with --set ${name}=<VALUE> if it is one of them)`);
    return v;
  });
  return { command: launcher.command, args: [...launcher.args, '--url', url, ...(p.transport.type === 'sse' ? ['--legacy-sse'] : []), '--', launch.command, ...launch.args] };
}

function args(list: ArgumentSpec[], r: Resolution): string[] {
  const out: string[] = [];
  for (const a of list) {
    const got = r.values(a, argKey(a), 'argument');
    if (got === undefined) continue;
    const values = a.isRepeated ? got : got.slice(0, 1);
    for (const v of values) {
      if (a.type === 'named') out.push(a.name ?? '', v);
      else out.push(v);
    }
  }
  return out;
}
