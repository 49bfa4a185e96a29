/**
 * client/roots: the roots the client offers, as `file://` URIs (client.roots#3), and the
 * state behind `roots/list` and `notifications/roots/list_changed` (client.roots#2).
 *
 * Directories from the host's config become URIs with `fileUriFromPath` (absolute, `..` resolved,
 * every character that needs it percent-encoded: spaces, `#`, `?`, `%`, non-ASCII; on Windows
 * drive letters, backslashes and UNC shares as in `file:///C:/…` and `file://server/share/…`). A Root given
 * as a URI must be a `file:` URL; it is normalised by the WHATWG parser, so dot segments
 * (`..`, `%2e%2e`) are refused: a root names exactly one directory (client.roots#5).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { Root } from './types.js';

/** Which platform's paths a root is made from (default: this process's), and relative to what. */
export interface RootPathOptions {
  platform?: NodeJS.Platform;
  /** What a relative `dir` is relative to (default: the current directory). */
  cwd?: string;
}

/** A directory as a Root: `file://` URI, percent-encoded; the name defaults to the base name. */
export function directoryRoot(dir: string, name?: string, options: RootPathOptions = {}): Root {
  const platform = options.platform ?? process.platform;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const abs = p.resolve(options.cwd ?? process.cwd(), dir);
  return { uri: fileUriFromPath(abs, platform), name: name ?? (p.basename(abs) || abs) };
}

/**
 * The `file://` URI of an absolute path, as Node's `pathToFileURL` writes it on that platform —
 * a pure function of (path, platform), so Windows paths are encoded the same on any machine
 * and with any Node version: every character but letters, digits and `!$&'()*+,-.:;=@_` is
 * percent-encoded as UTF-8 (spaces, `%`, `?`, `#`, `~`, brackets, controls, non-ASCII). POSIX: a
 * backslash is a file name character (`%5C`).
 * Windows: `C:\a b` → `file:///C:/a%20b`; `\\server\share\d` → `file://server/share/d`; the
 * `\\?\` long-path prefixes are dropped. A UNC host that is not a valid host name is refused.
 */
export function fileUriFromPath(absPath: string, platform: NodeJS.Platform): string {
  if (platform !== 'win32') {
    const resolved = path.posix.resolve('/', absPath);
    return new URL(`file://${encodePathChars(resolved)}`).href;
  }
  const p = stripLongPathPrefix(absPath);
  // Drive-relative (`C:x`) and root-relative (`\x`) paths depend on a current drive: refused.
  if (!path.win32.isAbsolute(p) || /^[\\/](?![\\/])/.test(p)) throw new ConfigError(`"${absPath}" is not an absolute Windows path (drive letter or \\\\server\\share)`);
  const resolved = path.win32.resolve(p).replace(/\\/g, '/');
  if (!resolved.startsWith('//')) return new URL(`file:///${encodePathChars(resolved)}`).href;
  // UNC: the server is the URI's host, the share and what follows its path (`..` stays inside the share).
  const slash = resolved.indexOf('/', 2);
  const host = slash === -1 ? resolved.slice(2) : resolved.slice(2, slash);
  const rest = slash === -1 ? '/' : resolved.slice(slash);
  let u: URL | undefined;
  try {
    u = new URL(`file://${host}${encodePathChars(rest)}`);
  } catch {
    u = undefined;
  }
  // `localhost` would become the empty host (another file): refused like an invalid name.
  if (u === undefined || u.hostname === '') throw new ConfigError(`"${absPath}": "${host}" is not a server name a file:// URI can carry`);
  return u.href;
}

/** `\\?\C:\x` → `C:\x`, `\\?\UNC\srv\sh` → `\\srv\sh` (the same file, without the prefix). */
function stripLongPathPrefix(p: string): string {
  if (/^\\\\\?\\UNC\\/i.test(p)) return `\\\\${p.slice(8)}`;
  if (/^\\\\[?.]\\[a-z]:/i.test(p)) return p.slice(4);
  return p;
}

/** Characters a path keeps as they are in a file URI (the set Node's `pathToFileURL` keeps). */
const KEPT = /[A-Za-z0-9!$&'()*+,\-.:;=@_/]/;

/** Percent-encodes every other character as UTF-8 (a lone surrogate as U+FFFD, as the URL parser does). */
function encodePathChars(p: string): string {
  let out = '';
  for (const ch of p) {
    if (KEPT.test(ch)) out += ch;
    else if (ch === '~') out += '%7E'; // the one character encodeURIComponent keeps that Node encodes
    else out += encodeURIComponent(ch.length === 1 && ch >= '\uD800' && ch <= '\uDFFF' ? '\uFFFD' : ch);
  }
  return out;
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
