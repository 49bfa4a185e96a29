/**
 * `mcpwire check --server-json <file> [--package <kind> | --remote] [--set <KEY>=<VALUE>]…`: what a
 * publisher runs before `mcp-publisher publish`. The file is validated against the server.json
 * schema (refused naming the field), one of its choices becomes an entry as `mcp add
 * --from-registry` would build it, and that entry — `${VAR}` references read from this
 * environment — is the server `check` starts (or the remote it connects to).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ServerConfig } from '../index.js';
import { userConfigDir } from '../host-api.js';
import { buildEntry, checkServerJson, choicesOf, installBundle, pickChoice, RegistryError, SERVER_JSON_SCHEMA_VERSION } from '../registry-api.js';
import { UsageError } from './args.js';
import { pathOptions } from './config-target.js';
import { idFromName, launcher, parseSets } from './registry-add.js';

export interface ServerJsonFlags {
  'server-json'?: string;
  package?: string;
  remote?: boolean;
  set?: string[];
}

/** The server a server.json describes, as a connect config, and the secret values it holds (to scrub). */
export async function serverJsonTarget(flags: ServerJsonFlags): Promise<{ name: string; config: ServerConfig; secrets: string[] }> {
  const file = flags['server-json']!;
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--server-json ${file}: ${(err as Error).message}`);
  }
  const server = checkServerJson(doc, file);
  process.stderr.write(`mcpwire: ${file}: valid against the server.json schema ${SERVER_JSON_SCHEMA_VERSION}\n`);
  const id = idFromName(server.name);
  const choices = choicesOf(server, id);
  const choice = pickChoice(choices, { ...(flags.package !== undefined ? { package: flags.package } : {}), remote: flags.remote === true }, server.name);
  if (choice === undefined) {
    throw new UsageError(`${server.name} offers several ways to run it; say which to check: ${choices.filter((c) => !c.unsupported).map((c) => (c.kind === 'remote' ? '--remote' : `--package ${c.kind}`)).join(', ')}`);
  }
  const bundle = choice.kind === 'mcpb' ? await installBundle(server.packages![choice.index], path.join(userConfigDir(pathOptions()), 'bundles')) : undefined;
  const { entry } = buildEntry(server, choice, { id, registry: '(local file)', given: parseSets(flags.set), launcher: launcher(), ...(bundle ? { bundle } : {}) });
  const secrets: string[] = [];
  const expand = (s: string) =>
    s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, v: string) => {
      const value = process.env[v];
      if (value === undefined || value === '') throw new RegistryError('missing-value', `${server.name}: set ${v} in the environment (the entry reads \${${v}})`);
      secrets.push(value);
      return value;
    });
  const map = (r: unknown) => Object.fromEntries(Object.entries((r as Record<string, string> | undefined) ?? {}).map(([k, v]) => [k, expand(v)]));
  const secretNames = (entry.secret_names as string[] | undefined) ?? [];
  if (entry.transport === 'stdio') {
    return { name: server.name, secrets, config: { transport: 'stdio', id, command: expand(entry.command as string), args: ((entry.args as string[] | undefined) ?? []).map(expand), env: map(entry.env), secretNames } };
  }
  return { name: server.name, secrets, config: { transport: 'http', id, url: expand(entry.url as string), headers: map(entry.headers), secretNames, ...(entry.transport === 'sse' ? { legacySse: true } : {}) } };
}
