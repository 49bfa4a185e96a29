/**
 * Editing one native config file for `mcpwire mcp add/remove/enable/disable --scope …` (seed
 * §5.2): the change touches only `mcp.servers.<id>`, keeps every other key of the file (and
 * the order of keys), and is written atomically with mode 0600 (`atomic.ts`). A file that is
 * not valid JSON, or defines a server id twice, is refused rather than rewritten: rewriting
 * would silently drop content.
 */
import { ConfigError } from '../../errors.js';
import { writeFileAtomic, readIfExists } from '../../fs/atomic.js';
import os from 'node:os';
import { issuesText, parseJsonText } from './diagnostics.js';
import { expandNativeEntry, type ExpandContext } from './expand.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { isPlainObject, unknownEntryKeys, validateServerEntry, type ServerEntry } from './schema.js';
import { isValidServerId } from './types.js';

/** Options of `addServer`. */
export interface AddServerOptions {
  /** Overwrite an entry with the same id in this file (`--replace`). */
  replace?: boolean;
  /**
   * What `${VAR}` references are checked against (default: this process's environment and
   * directory). The entry is written as given, references verbatim; an unset variable is not an
   * error here (it may be set where the server runs) but is reported in `unset`.
   */
  expand?: ExpandContext;
}

/** What `setServerEnabled` did. */
export type SetEnabledOutcome = 'updated' | 'unchanged' | 'override-added' | 'override-removed';

interface Doc {
  root: Record<string, unknown>;
  servers: Record<string, unknown>;
}

/**
 * Adds server `id` (native snake_case entry) to the config `file`. Fails with `ConfigError`
 * when the id is invalid, the entry is invalid (fields named, values never), or the id exists
 * and `replace` is not set. Returns whether an entry was replaced.
 */
export async function addServer(
  file: string,
  id: string,
  entry: ServerEntry | Record<string, unknown>,
  options: AddServerOptions = {},
): Promise<{ replaced: boolean; unset: string[] }> {
  checkId(id);
  const unknown = unknownEntryKeys(entry);
  if (unknown.length > 0) throw new ConfigError(`server "${id}": unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')}`, { serverId: id, field: unknown[0] });
  // Validated as it will be used (references expanded); fields holding an unset reference are
  // checked where they are used, not here.
  const ctx = options.expand ?? { env: process.env, workspaceFolder: process.cwd(), userHome: os.homedir() };
  const expanded = expandNativeEntry(entry, ctx);
  const unsetFields = new Set(expanded.unset.map((u) => u.field));
  const v = validateServerEntry(expanded.value);
  const issues = [
    ...expanded.issues.filter((i) => !unsetFields.has(i.field)),
    ...(v.ok ? [] : v.issues.filter((i) => !unsetFields.has(i.field))),
  ];
  if (issues.length > 0) throw new ConfigError(`server "${id}": ${issuesText(issues)}`, { serverId: id, field: issues[0]?.field, phase: 'config' });
  const doc = await readDoc(file);
  const replaced = Object.hasOwn(doc.servers, id);
  if (replaced && !options.replace) throw new ConfigError(`server "${id}" already exists in ${file} (use replace to overwrite)`, { serverId: id });
  doc.servers[id] = structuredClone(entry);
  await writeDoc(file, doc);
  return { replaced, unset: [...new Set(expanded.unset.map((u) => u.name))] };
}

/** Removes server `id` from `file`. Returns false (and writes nothing) when it is not there. */
export async function removeServer(file: string, id: string): Promise<boolean> {
  const doc = await readDoc(file);
  if (!Object.hasOwn(doc.servers, id)) return false;
  delete doc.servers[id];
  await writeDoc(file, doc);
  return true;
}

/**
 * Sets `enabled` of server `id` in `file`. Disabling an id this file does not define writes
 * an override stub `{ "enabled": false }` (it disables a server defined by a lower layer);
 * enabling an id whose entry is such a stub removes the stub. Enabling an id the file does
 * not define is a `ConfigError`.
 */
export async function setServerEnabled(file: string, id: string, enabled: boolean): Promise<SetEnabledOutcome> {
  checkId(id);
  const doc = await readDoc(file);
  const entry = doc.servers[id];
  let outcome: SetEnabledOutcome;
  if (!Object.hasOwn(doc.servers, id)) {
    if (enabled) throw new ConfigError(`server "${id}" is not defined in ${file}`, { serverId: id });
    doc.servers[id] = { enabled: false };
    outcome = 'override-added';
  } else if (!isPlainObject(entry)) {
    throw new ConfigError(`server "${id}" in ${file} is not an object`, { serverId: id });
  } else if (enabled && Object.keys(entry).length === 1 && entry.enabled === false) {
    delete doc.servers[id];
    outcome = 'override-removed';
  } else if (entry.enabled === enabled || (enabled && entry.enabled === undefined)) {
    return 'unchanged';
  } else {
    entry.enabled = enabled;
    outcome = 'updated';
  }
  await writeDoc(file, doc);
  return outcome;
}

function checkId(id: string): void {
  if (!isValidServerId(id)) throw new ConfigError('invalid server id (1-64 characters of a-z, A-Z, 0-9, "_", "-")', { field: 'id' });
}

async function readDoc(file: string): Promise<Doc> {
  const text = await readIfExists(file);
  if (text === undefined) {
    const servers: Record<string, unknown> = {};
    return { root: { version: 1, mcp: { servers } }, servers };
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new ConfigError(`${file}: ${parsed.message}; not rewritten`);
  const root = parsed.value;
  if (!isPlainObject(root)) throw new ConfigError(`${file}: the top level must be a JSON object; not rewritten`);
  if (root.version !== undefined && root.version !== 1) throw new ConfigError(`${file}: unsupported "version"; not rewritten`, { field: 'version' });
  const dup = findDuplicateKeys(text).find((d) => d.path[0] === 'mcp' && d.path[1] === 'servers');
  if (dup) throw new ConfigError(`${file}: key "${[...dup.path, dup.key].join('.')}" is defined ${dup.count} times; fix the file by hand`);
  const mcp = (root.mcp ??= {});
  if (!isPlainObject(mcp)) throw new ConfigError(`${file}: "mcp" must be an object; not rewritten`, { field: 'mcp' });
  const servers = (mcp.servers ??= {});
  if (!isPlainObject(servers)) throw new ConfigError(`${file}: "mcp.servers" must be an object; not rewritten`, { field: 'mcp.servers' });
  return { root, servers };
}

async function writeDoc(file: string, doc: Doc): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(doc.root, null, 2)}\n`);
}
