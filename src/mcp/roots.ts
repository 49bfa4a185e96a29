/**
 * client/roots: the roots the client offers, as `file://` URIs (client.roots#3), and the
 * state behind `roots/list` and `notifications/roots/list_changed` (client.roots#2).
 *
 * Directories from the host's config become URIs with `pathToFileURL` (absolute, `..` resolved,
 * every character that needs it percent-encoded: spaces, `#`, `?`, `%`, non-ASCII). A Root given
 * as a URI must be a `file:` URL; it is normalised by the WHATWG parser, so dot segments
 * (`..`, `%2e%2e`) are refused: a root names exactly one directory (client.roots#5).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../errors.js';
import type { Root } from './types.js';

/** A directory as a Root: `file://` URI, percent-encoded; the name defaults to the base name. */
export function directoryRoot(dir: string, name?: string): Root {
  const abs = path.resolve(dir);
  const href = pathToFileURL(abs).href;
  return { uri: href, name: name ?? (path.basename(abs) || abs) };
}

/** `root` with a canonical `file://` URI, or a ConfigError (client.roots#3, #5). */
export function checkRoot(root: unknown): Root {
  if (root === null || typeof root !== 'object' || typeof (root as Root).uri !== 'string') {
    throw new ConfigError('a root needs a "uri"');
  }
  const r = root as Root;
  if (!URL.canParse(r.uri)) throw new ConfigError(`root "${r.uri}" is not a valid URI`);
  // client.roots#5: dot segments (also percent-encoded) could point outside the named directory.
  const rawPath = r.uri.replace(/^file:\/\/[^/]*/i, '').split(/[?#]/)[0];
  if (rawPath.split('/').some((seg) => /^(\.|%2e){1,2}$/i.test(seg))) {
    throw new ConfigError(`root "${r.uri}" contains "." or ".." path segments (path traversal)`);
  }
  const u = new URL(r.uri);
  if (u.protocol !== 'file:') throw new ConfigError(`root "${r.uri}" is not a file:// URI (client/roots: roots MUST be file:// URIs)`);
  if (u.search !== '' || u.hash !== '') throw new ConfigError(`root "${r.uri}" has a query or fragment; encode "?" and "#" in paths as %3F and %23`);
  const out: Root = { uri: u.href };
  if (r.name !== undefined) out.name = String(r.name);
  if (r._meta !== undefined) out._meta = r._meta;
  return out;
}

export type RootsSource = Root[] | (() => Root[] | Promise<Root[]>);

/** The roots a client serves; `set` says whether the list really changed. */
export class RootsState {
  private source: RootsSource;

  constructor(initial: RootsSource) {
    this.source = typeof initial === 'function' ? initial : initial.map(checkRoot);
  }

  /** The current list, each root checked (a bad root from a function is an internal error). */
  async list(): Promise<Root[]> {
    const roots = typeof this.source === 'function' ? await this.source() : this.source;
    return roots.map(checkRoot);
  }

  /** Replaces the roots; true when the list differs from the previous fixed list (or was a function). */
  set(roots: RootsSource): boolean {
    const next = typeof roots === 'function' ? roots : roots.map(checkRoot);
    const changed = typeof next === 'function' || typeof this.source === 'function' || JSON.stringify(next) !== JSON.stringify(this.source);
    this.source = next;
    return changed;
  }
}

/**
 * The roots of a list of authorized directories, asked on every `roots/list`: a directory that
 * is gone or unreadable is left out (client.roots#5: only roots with appropriate permissions,
 * accessibility monitored).
 */
export function authorizedDirectoryRoots(dirs: readonly string[]): () => Root[] {
  return () => dirs.filter(readableDirectory).map((d) => directoryRoot(d));
}

function readableDirectory(dir: string): boolean {
  try {
    if (!fs.statSync(dir).isDirectory()) return false;
    fs.accessSync(dir, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
