/**
 * The registry API (the generic registry API of modelcontextprotocol/registry, `/v0.1`): search
 * a page of servers, fetch one server.json by name and version. Every answer is bounded in bytes
 * and checked for its shape; a server.json to install is validated against the schema. A name the
 * registry does not have is a `not-found` with names close to it (did-you-mean, from its search);
 * a version it does not have is a `version-not-found` listing the versions it has.
 */
import { closest } from '../util/close-names.js';
import { RegistryError } from './errors.js';
import { getJson, shortUrl } from './http.js';
import type { ServerJson, ServerList, ServerResponse } from './types.js';
import { checkServerJson } from './validate.js';

/** The official MCP Registry. */
export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';
/** Bounds of the answers: a page of servers, one server, the list of versions. */
export const MAX_LIST_BYTES = 4 * 1024 * 1024;
export const MAX_SERVER_BYTES = 1024 * 1024;
/** Largest page asked for (the official registry caps it at 100). */
export const MAX_LIMIT = 100;

/**
 * The registry to use, first found: `--registry`, `MCPWIRE_REGISTRY`, the global config's
 * `mcp.registry` (`configured`), the official one. An unusable URL is an error naming where it came from.
 */
export function registryUrl(flag?: string, env: NodeJS.ProcessEnv = process.env, configured?: string): string {
  const [raw, from] =
    flag !== undefined ? [flag, '--registry'] : env.MCPWIRE_REGISTRY ? [env.MCPWIRE_REGISTRY, 'MCPWIRE_REGISTRY'] : configured !== undefined ? [configured, 'mcp.registry of the global config'] : [DEFAULT_REGISTRY_URL, 'the default'];
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new RegistryError('unsupported', `the registry URL ${JSON.stringify(raw.slice(0, 200))} (${from}) is not an absolute URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RegistryError('unsupported', `the registry URL (${from}) must be http(s), not ${u.protocol}`);
  if (u.username || u.password) throw new RegistryError('unsupported', `the registry URL (${from}) must not hold credentials`);
  return u.href.replace(/\/+$/, '');
}

/** One line of a search: what `registry search` shows. */
export interface ServerSummary {
  name: string;
  title?: string;
  description: string;
  version: string;
  /** `npm`, `pypi`, `oci`, `nuget`, `mcpb` (each kind once). */
  packageKinds: string[];
  /** Has a remote (hosted) endpoint. */
  remote: boolean;
  /** Has a package to run here. */
  local: boolean;
  /** The registry's status of this version (`active`, `deprecated`…), when it says. */
  status?: string;
}

export interface SearchPage {
  servers: ServerSummary[];
  nextCursor?: string;
  /** Items of the answer that were not server documents (skipped). */
  skipped: number;
}

export interface SearchOptions {
  search?: string;
  cursor?: string;
  limit?: number;
  signal?: AbortSignal;
}

/** One page of `GET /v0.1/servers?search=…&version=latest`. */
export async function searchServers(base: string, o: SearchOptions = {}): Promise<SearchPage> {
  const q = new URLSearchParams();
  if (o.search) q.set('search', o.search);
  if (o.cursor) q.set('cursor', o.cursor);
  q.set('limit', String(Math.min(Math.max(1, o.limit ?? 30), MAX_LIMIT)));
  q.set('version', 'latest');
  const url = `${base}/v0.1/servers?${q}`;
  const { value } = await getJson(url, { maxBytes: MAX_LIST_BYTES, ...(o.signal ? { signal: o.signal } : {}) }).catch((err: unknown) => {
    throw said(err, `searching ${base}${o.search ? ` for ${JSON.stringify(o.search.slice(0, 80))}` : ''}`);
  });
  const list = asServerList(value, url);
  const servers: ServerSummary[] = [];
  let skipped = 0;
  for (const item of list.servers) {
    const s = summaryOf(item);
    if (s === undefined) skipped++;
    else servers.push(s);
  }
  const next = list.metadata?.nextCursor;
  return { servers, skipped, ...(typeof next === 'string' && next !== '' ? { nextCursor: next } : {}) };
}

function asServerList(value: unknown, url: string): ServerList {
  const v = value as ServerList;
  if (v === null || typeof v !== 'object' || !Array.isArray(v.servers)) {
    throw new RegistryError('bad-response', `${shortUrl(url)} answered JSON that is not a server list (no "servers" array)`);
  }
  return v;
}

function summaryOf(item: ServerResponse): ServerSummary | undefined {
  const s = item?.server;
  if (s === null || typeof s !== 'object' || typeof s.name !== 'string' || typeof s.version !== 'string') return undefined;
  const packages = Array.isArray(s.packages) ? s.packages : [];
  const kinds = [...new Set(packages.map((p) => (typeof p?.registryType === 'string' ? p.registryType : '?')))];
  const official = item._meta?.['io.modelcontextprotocol.registry/official'] as { status?: unknown } | undefined;
  return {
    name: s.name,
    ...(typeof s.title === 'string' ? { title: s.title } : {}),
    description: typeof s.description === 'string' ? s.description : '',
    version: s.version,
    packageKinds: kinds,
    remote: Array.isArray(s.remotes) && s.remotes.length > 0,
    local: packages.length > 0,
    ...(typeof official?.status === 'string' ? { status: official.status } : {}),
  };
}

/** A server.json fetched from a registry, validated, with where it came from. */
export interface ResolvedServer {
  registry: string;
  server: ServerJson;
  /** The registry's metadata of this version (`_meta`). */
  meta: Record<string, unknown>;
}

/** `name@version` split (a scoped `@` at the start is part of no name here: names are `ns/name`). */
export function parseRef(ref: string): { name: string; version: string } {
  const at = ref.lastIndexOf('@');
  if (at > 0) return { name: ref.slice(0, at), version: ref.slice(at + 1) || 'latest' };
  return { name: ref, version: 'latest' };
}

/**
 * `GET /v0.1/servers/{name}/versions/{version}` (`latest` by default), validated against the
 * schema. A name or version the registry does not have is a RegistryError saying which.
 */
export async function getServer(base: string, name: string, version = 'latest', signal?: AbortSignal): Promise<ResolvedServer> {
  const url = `${base}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
  const { status, value } = await getJson(url, { maxBytes: MAX_SERVER_BYTES, pass: [404], ...(signal ? { signal } : {}) }).catch((err: unknown) => {
    throw said(err, `${name}@${version}`);
  });
  if (status === 404) throw await missing(base, name, version, signal);
  const r = value as ServerResponse;
  if (r === null || typeof r !== 'object' || r.server === null || typeof r.server !== 'object') {
    throw new RegistryError('bad-response', `${shortUrl(url)} answered JSON that is not a server (no "server" object)`);
  }
  const server = checkServerJson(r.server, `${name}@${version} from ${base}`);
  if (server.name !== name) throw new RegistryError('bad-response', `${shortUrl(url)} answered the server ${JSON.stringify(server.name.slice(0, 200))}, not ${name}`);
  return { registry: base, server, meta: r._meta && typeof r._meta === 'object' ? r._meta : {} };
}

/**
 * A failure of the registry itself (down, garbage, too large) said with what was asked for and
 * what to do; other errors unchanged.
 */
function said(err: unknown, what: string): unknown {
  if (!(err instanceof RegistryError) || !['unreachable', 'bad-response', 'too-large'].includes(err.reason)) return err;
  const todo = err.reason === 'unreachable' ? 'check the registry URL and your connection, or try again later' : 'the registry does not speak the MCP Registry API (/v0.1) as expected; check its URL';
  return new RegistryError(err.reason, `${what}: ${err.message}; nothing was written (${todo}: --registry <url>, MCPWIRE_REGISTRY or mcp.registry of the global config choose it)`, { cause: err });
}

/** The versions the registry lists for `name`, newest first (empty when it lists none). */
export async function listVersions(base: string, name: string, signal?: AbortSignal): Promise<string[]> {
  const url = `${base}/v0.1/servers/${encodeURIComponent(name)}/versions`;
  const { status, value } = await getJson(url, { maxBytes: MAX_LIST_BYTES, pass: [404], ...(signal ? { signal } : {}) });
  if (status === 404) return [];
  return asServerList(value, url).servers.map((s) => s?.server?.version).filter((v): v is string => typeof v === 'string');
}

async function missing(base: string, name: string, version: string, signal?: AbortSignal): Promise<RegistryError> {
  const versions = version === 'latest' ? [] : await listVersions(base, name, signal);
  if (versions.length > 0) {
    const shown = versions.slice(0, 10).join(', ');
    return new RegistryError('version-not-found', `${base} has no version ${version} of ${name} (it has ${shown}${versions.length > 10 ? ', …' : ''})`);
  }
  const suggestions = await nearNames(base, name, signal);
  const hint = suggestions.length ? `; did you mean ${suggestions.join(' or ')}?` : ' (try `mcpwire registry search <words>`)';
  return new RegistryError('not-found', `${base} has no server named ${name}${hint}`, { suggestions });
}

/** Names in the registry close to `name`: its search by the name's last part, then by its namespace. */
async function nearNames(base: string, name: string, signal?: AbortSignal): Promise<string[]> {
  const slash = name.indexOf('/');
  const words = [name.slice(slash + 1), slash > 0 ? name.slice(0, slash) : '', name.slice(slash + 1).slice(0, 4)].filter((w) => w.length >= 2);
  const names = new Set<string>();
  for (const w of words) {
    try {
      const page = await searchServers(base, { search: w, limit: MAX_LIMIT, ...(signal ? { signal } : {}) });
      for (const s of page.servers) names.add(s.name);
    } catch {
      break; // the suggestion is a courtesy: the error stays "not found"
    }
    const near = closest(name, names);
    if (near.length) return near;
  }
  return [];
}
