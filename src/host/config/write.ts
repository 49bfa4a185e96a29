/**
 * Editing one native config file for `mcpwire mcp add/remove/enable/disable --scope …`: the
 * change touches only `mcp.servers.<id>`, keeps every other key of the file (and
 * the order of keys; a YAML file keeps its comments too), and is written atomically with mode
 * 0600 (`atomic.ts`). Values are written as given: `${VAR}` references stay references. A file that is
 * not valid JSON, or defines a server id twice, is refused rather than rewritten: rewriting
 * would silently drop content. Each edit reads and writes the file holding its lock
 * (`edit-lock.ts`), so edits from parallel commands all land.
 */
import { ConfigError } from '../../errors.js';
import { writeFileAtomic, readIfExists } from '../../fs/atomic.js';
import os from 'node:os';
import { issuesText, parseJsonText } from './diagnostics.js';
import { expandNativeEntry, type ExpandContext } from './expand.js';
import { nativeSyntax } from './formats.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { lockedEdit } from './edit-lock.js';
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

/** An opened config file: a plain view of `mcp.servers`, and edits that keep the rest. */
interface Doc {
  servers: Record<string, unknown>;
  set(id: string, entry: unknown): void;
  remove(id: string): void;
  /** Sets one key of an existing entry (YAML: keeps the entry's comments). */
  setField(id: string, key: string, value: unknown): void;
  save(): Promise<void>;
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
  const replaced = await lockedEdit(file, async () => {
    const doc = await readDoc(file);
    const had = Object.hasOwn(doc.servers, id);
    if (had && !options.replace) throw new ConfigError(`server "${id}" already exists in ${file} (use replace to overwrite)`, { serverId: id });
    doc.set(id, structuredClone(entry));
    await doc.save();
    return had;
  });
  return { replaced, unset: [...new Set(expanded.unset.map((u) => u.name))] };
}

/** Removes server `id` from `file`. Returns false (and writes nothing) when it is not there. */
export async function removeServer(file: string, id: string): Promise<boolean> {
  if ((await readIfExists(file)) === undefined) return false; // nothing to lock (nor a directory to create for the lock)
  return lockedEdit(file, async () => {
    const doc = await readDoc(file);
    if (!Object.hasOwn(doc.servers, id)) return false;
    doc.remove(id);
    await doc.save();
    return true;
  });
}

/**
 * Sets `enabled` of server `id` in `file`. Disabling an id this file does not define writes
 * an override stub `{ "enabled": false }` (it disables a server defined by a lower layer);
 * enabling an id whose entry is such a stub removes the stub. Enabling an id the file does
 * not define is a `ConfigError`.
 */
export async function setServerEnabled(file: string, id: string, enabled: boolean): Promise<SetEnabledOutcome> {
  checkId(id);
  return lockedEdit(file, () => editEnabled(file, id, enabled));
}

async function editEnabled(file: string, id: string, enabled: boolean): Promise<SetEnabledOutcome> {
  const doc = await readDoc(file);
  const entry = doc.servers[id];
  let outcome: SetEnabledOutcome;
  if (!Object.hasOwn(doc.servers, id)) {
    if (enabled) throw new ConfigError(`server "${id}" is not defined in ${file}`, { serverId: id });
    doc.set(id, { enabled: false });
    outcome = 'override-added';
  } else if (!isPlainObject(entry)) {
    throw new ConfigError(`server "${id}" in ${file} is not an object`, { serverId: id });
  } else if (enabled && Object.keys(entry).length === 1 && entry.enabled === false) {
    doc.remove(id);
    outcome = 'override-removed';
  } else if (entry.enabled === enabled || (enabled && entry.enabled === undefined)) {
    return 'unchanged';
  } else {
    doc.setField(id, 'enabled', enabled);
    outcome = 'updated';
  }
  await doc.save();
  return outcome;
}

function checkId(id: string): void {
  if (!isValidServerId(id)) throw new ConfigError('invalid server id (1-64 characters of a-z, A-Z, 0-9, "_", "-")', { field: 'id' });
}

async function readDoc(file: string): Promise<Doc> {
  if (nativeSyntax(file) === 'yaml') return readYamlDoc(file);
  const text = await readIfExists(file);
  let root: Record<string, unknown>;
  if (text === undefined) {
    root = { version: 1, mcp: { servers: {} } };
  } else {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new ConfigError(`${file}: ${parsed.message}; not rewritten`);
    if (!isPlainObject(parsed.value)) throw new ConfigError(`${file}: the top level must be a JSON object; not rewritten`);
    root = parsed.value;
    const dup = findDuplicateKeys(text).find((d) => d.path[0] === 'mcp' && d.path[1] === 'servers');
    if (dup) throw new ConfigError(`${file}: key "${[...dup.path, dup.key].join('.')}" is defined ${dup.count} times; fix the file by hand`);
  }
  const servers = serversOf(file, root);
  return {
    servers,
    set: (id, entry) => void (servers[id] = entry),
    remove: (id) => void delete servers[id],
    setField: (id, key, value) => void ((servers[id] as Record<string, unknown>)[key] = value),
    save: () => writeFileAtomic(file, `${JSON.stringify(root, null, 2)}\n`),
  };
}

/** `mcp.servers` of a parsed file (created when missing), or a `ConfigError` when the shape is wrong. */
function serversOf(file: string, root: Record<string, unknown>): Record<string, unknown> {
  if (root.version !== undefined && root.version !== 1) throw new ConfigError(`${file}: unsupported "version"; not rewritten`, { field: 'version' });
  // The list form (entries with "name") is read, but edits write the map form only: adding a map
  // beside the list would hide the listed servers.
  const list = root.mcp === undefined && Array.isArray(root.servers) ? 'servers' : isPlainObject(root.mcp) && Array.isArray(root.mcp.servers) ? 'mcp.servers' : undefined;
  if (list !== undefined) throw new ConfigError(`${file}: "${list}" is a list of entries with "name"; edits write only the map form ("mcp": {"servers": {"<id>": …}}): edit this file by hand; not rewritten`, { field: list });
  // A pasted `mcpServers` block is read while there is no `mcp` section: adding one would hide it.
  if (root.mcp === undefined && isPlainObject(root.mcpServers)) {
    throw new ConfigError(`${file}: holds a pasted "mcpServers" block (the Claude Desktop / Cursor shape); edits write "mcp": {"servers": …}, which would hide it: move its entries under "mcp.servers" (with "transport" for "type"), then edit; not rewritten`, { field: 'mcpServers' });
  }
  const mcp = (root.mcp ??= {});
  if (!isPlainObject(mcp)) throw new ConfigError(`${file}: "mcp" must be an object; not rewritten`, { field: 'mcp' });
  const servers = (mcp.servers ??= {});
  if (!isPlainObject(servers)) throw new ConfigError(`${file}: "mcp.servers" must be an object; not rewritten`, { field: 'mcp.servers' });
  return servers;
}

/** A YAML config file, edited through the `yaml` Document API so comments and layout stay. */
async function readYamlDoc(file: string): Promise<Doc> {
  const YAML = await import('yaml');
  const text = await readIfExists(file);
  const doc = YAML.parseDocument(text ?? 'version: 1\nmcp:\n  servers: {}\n', { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0];
    throw new ConfigError(`${file}: not valid YAML (${e.code === 'DUPLICATE_KEY' ? 'a key is defined twice' : 'syntax error'}${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}); fix the file by hand`);
  }
  const root = (doc.toJS({ maxAliasCount: 100 }) as unknown) ?? {};
  if (!isPlainObject(root)) throw new ConfigError(`${file}: the top level must be a mapping; not rewritten`);
  const servers = serversOf(file, root);
  const at = (id: string, ...rest: string[]) => ['mcp', 'servers', id, ...rest];
  return {
    servers,
    set: (id, entry) => {
      servers[id] = entry;
      // `mcp:` or `servers:` written with no value is a null scalar: make it a mapping first.
      if (!YAML.isMap(doc.getIn(['mcp'], true))) doc.setIn(['mcp'], doc.createNode({ servers: {} }));
      if (!YAML.isMap(doc.getIn(['mcp', 'servers'], true))) doc.setIn(['mcp', 'servers'], doc.createNode({}));
      doc.setIn(at(id), doc.createNode(entry));
    },
    remove: (id) => {
      delete servers[id];
      doc.deleteIn(at(id));
    },
    setField: (id, key, value) => {
      (servers[id] as Record<string, unknown>)[key] = value;
      doc.setIn(at(id, key), value);
    },
    save: () => writeFileAtomic(file, doc.toString()),
  };
}
