/**
 * Public tool names: `mcp_<serverId>_<toolSlug>_<hash8>`.
 *
 * - Only `[a-zA-Z0-9_-]`, at most 64 characters: the strictest common limit of LLM providers.
 * - `hash8` is the first 8 hex digits of sha256(`serverId + "\0" + originalName`), so a name
 *   is stable across restarts and different tools differ even when their slugs are equal.
 * - When too long, the slug is truncated first (keeping at least 16 characters of it when it
 *   has them), then the server id; the hash is never truncated.
 * - Collisions (equal hash prefixes) are resolved deterministically by `assignToolNames`:
 *   tools are named in (serverId, name) order and a later colliding tool is re-hashed with a
 *   counter (`serverId + "\0" + name + "\0" + k`, k = 1, 2, …) until its name is free.
 */
import { createHash } from 'node:crypto';

/** The longest public name produced. */
export const MAX_TOOL_NAME_LENGTH = 64;
const PREFIX = 'mcp_';
const HASH_LENGTH = 8;
const MIN_SLUG = 16;

/** A hash function from text to hex (injectable so tests can force collisions). */
export type HashHex = (input: string) => string;

/** sha256 as lowercase hex. */
export const sha256Hex: HashHex = (input) => createHash('sha256').update(input, 'utf8').digest('hex');

/** `name` reduced to `[a-zA-Z0-9_-]`: other characters become `_`, runs of `_` collapse. */
export function toolSlug(name: string): string {
  const slug = name
    .replace(/[^a-zA-Z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug === '' ? 'tool' : slug;
}

/** The 8-hex-digit hash of (serverId, tool name), with an optional collision counter. */
export function toolNameHash(serverId: string, toolName: string, counter = 0, hash: HashHex = sha256Hex): string {
  const input = counter === 0 ? `${serverId}\0${toolName}` : `${serverId}\0${toolName}\0${counter}`;
  return hash(input).slice(0, HASH_LENGTH).toLowerCase().padEnd(HASH_LENGTH, '0');
}

/** Builds `mcp_<serverId>_<toolSlug>_<hash>` within 64 characters (see the module comment). */
export function publicToolName(serverId: string, toolName: string, hashHex = toolNameHash(serverId, toolName)): string {
  const id = toolSlug(serverId);
  let slug = toolSlug(toolName);
  const budget = MAX_TOOL_NAME_LENGTH - PREFIX.length - 2 - hashHex.length;
  let idPart = id;
  if (id.length + slug.length > budget) {
    const slugKeep = Math.min(slug.length, MIN_SLUG);
    idPart = trimEdge(id.slice(0, Math.max(1, budget - slugKeep)));
    slug = trimEdge(slug.slice(0, budget - idPart.length));
  }
  return `${PREFIX}${idPart}_${slug}_${hashHex}`;
}

function trimEdge(s: string): string {
  return s.replace(/[_-]+$/, '') || s.slice(0, 1);
}

/** One tool to name. */
export interface NameRequest {
  serverId: string;
  toolName: string;
}

/**
 * Assigns a unique public name to each request. Requests are processed in (serverId,
 * toolName) order, so the result does not depend on the order servers listed their tools.
 * `taken` holds names already in use (e.g. the host tools); it is not modified. Requests must
 * be distinct (the caller drops duplicate tool names of one server).
 */
export function assignToolNames(requests: readonly NameRequest[], taken: Iterable<string> = [], hash: HashHex = sha256Hex): Map<NameRequest, string> {
  const used = new Set(taken);
  const out = new Map<NameRequest, string>();
  const ordered = [...requests].sort((a, b) => compare(a.serverId, b.serverId) || compare(a.toolName, b.toolName));
  for (const r of ordered) {
    let name = publicToolName(r.serverId, r.toolName, toolNameHash(r.serverId, r.toolName, 0, hash));
    for (let k = 1; used.has(name); k++) {
      if (k > 10_000) throw new Error(`cannot find a free public name for tool "${r.toolName}"`);
      name = publicToolName(r.serverId, r.toolName, toolNameHash(r.serverId, r.toolName, k, hash));
    }
    used.add(name);
    out.set(r, name);
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
