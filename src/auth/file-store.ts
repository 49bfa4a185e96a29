/**
 * The persistent token store: `mcp-auth.json`, one entry per server key.
 *
 * ```json
 * { "version": 1, "servers": { "<server>": { "access_token": "…", "refresh_token": "…",
 *   "expires_at": 1760000000000, "token_type": "Bearer", "scope": "files:read",
 *   "client_id": "…", "client_secret": "…" } } }
 * ```
 *
 * - `expires_at` is epoch milliseconds. Extra keys of an entry are kept as they are.
 * - Every change is a read-modify-write under the cross-process lock (`lock.ts`), written to a
 *   temporary file (mode 0600) that is flushed and renamed over the store (directory 0700): a
 *   reader sees the old or the new file, never half of one (basic.authorization#70).
 * - A file that is not a version-1 store is reported (`TokenStoreCorruptError`, naming the file
 *   and what is wrong, never a value) and never overwritten: the user decides what to do with it.
 * - `withLock` (TokenStore's optional method) makes the provider's refresh single-flight across
 *   processes: the first one in refreshes under the lock, later ones re-read the store under
 *   the same lock and take the new grant, so one refresh reaches the authorization server
 *   (whose rotated refresh token would make a second one fail).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { McpWireError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { withFileLock, type FileLockOptions } from './lock.js';
import type { AuthCallOptions, StoredGrant, TokenStore } from './types.js';

/** The whole file. */
export interface TokenFile {
  version: 1;
  servers: Record<string, StoredGrant>;
}

/** The store file exists but is not a valid version-1 token store. */
export class TokenStoreCorruptError extends McpWireError {
  readonly file: string;
  constructor(file: string, reason: string) {
    super('MCPWIRE_TOKEN_STORE_CORRUPT', `the token store ${file} is not valid (${reason}); it was left as it is — fix or remove it, then log in again`, { phase: 'auth' });
    this.name = 'TokenStoreCorruptError';
    this.file = file;
  }
}

export const isTokenStoreCorruptError = (e: unknown): e is TokenStoreCorruptError => e instanceof TokenStoreCorruptError;

/** Options of `FileTokenStore`. */
export interface FileTokenStoreOptions {
  /** Lock waiting/staleness (see `lock.ts`). */
  lock?: Omit<FileLockOptions, 'signal'>;
}

const STRING_FIELDS = ['access_token', 'refresh_token', 'token_type', 'scope', 'client_id', 'client_secret', 'token_endpoint_auth_method', 'issuer', 'resource', 'redirect_uri', 'grant_kind'] as const;
const NUMBER_FIELDS = ['expires_at', 'client_secret_expires_at'] as const;

/** The `mcp-auth.json` store (see the module comment). */
export class FileTokenStore implements TokenStore {
  readonly file: string;

  constructor(
    file: string,
    private readonly options: FileTokenStoreOptions = {},
  ) {
    this.file = path.resolve(file);
  }

  /** The entry of `key`, or undefined. Throws TokenStoreCorruptError for a bad file. */
  async get(key: string, options: AuthCallOptions = {}): Promise<StoredGrant | undefined> {
    options.signal?.throwIfAborted();
    const entry = (await this.readAll()).servers[key];
    return entry === undefined ? undefined : { ...entry };
  }

  /** Every entry, by server key. */
  async list(): Promise<Record<string, StoredGrant>> {
    return (await this.readAll()).servers;
  }

  /** Replaces the entry of `key`. */
  async set(key: string, grant: StoredGrant, options: AuthCallOptions = {}): Promise<void> {
    await this.update(key, () => grant, options);
  }

  /** Removes the entry of `key` (no-op when absent; the file is not rewritten then). */
  async delete(key: string, options: AuthCallOptions = {}): Promise<void> {
    await this.update(key, () => undefined, options);
  }

  /**
   * Runs `fn` holding the store's cross-process lock (the whole file: entries are small and
   * changes rare). `get`/`set`/`delete` called inside `fn` run within the same hold.
   */
  withLock<T>(_key: string, fn: () => Promise<T>, options: AuthCallOptions = {}): Promise<T> {
    return withFileLock(this.file, fn, { ...this.options.lock, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /**
   * Read-modify-write of one entry under the lock: `fn` gets the current entry and returns the
   * new one (undefined removes it). Returns what was stored.
   */
  async update(
    key: string,
    fn: (current: StoredGrant | undefined) => StoredGrant | undefined | Promise<StoredGrant | undefined>,
    options: AuthCallOptions = {},
  ): Promise<StoredGrant | undefined> {
    return this.withLock(
      key,
      async () => {
        const all = await this.readAll();
        const current = all.servers[key];
        const next = await fn(current === undefined ? undefined : { ...current });
        if (next === undefined && current === undefined) return undefined;
        if (next === undefined) delete all.servers[key];
        else all.servers[key] = checkRecord(next, this.file, key);
        await writeFileAtomic(this.file, `${JSON.stringify(all, null, 2)}\n`);
        return next;
      },
      options,
    );
  }

  /** Reads and validates the whole file (missing file = empty store). */
  async readAll(): Promise<TokenFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw err;
    }
    return parseTokenFile(text, this.file);
  }
}

/** Parses and validates the text of a store file; errors name the file and the field, never a value. */
export function parseTokenFile(text: string, file: string): TokenFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // The parser's message may quote the file's content (a token): not repeated here.
    throw new TokenStoreCorruptError(file, 'not JSON');
  }
  if (!isObject(raw)) throw new TokenStoreCorruptError(file, 'not a JSON object');
  if (raw.version !== 1) throw new TokenStoreCorruptError(file, '"version" is not 1');
  if (!isObject(raw.servers)) throw new TokenStoreCorruptError(file, '"servers" is not an object');
  const servers: Record<string, StoredGrant> = {};
  for (const [key, entry] of Object.entries(raw.servers)) servers[key] = checkRecord(entry, file, key);
  return { version: 1, servers };
}

function checkRecord(entry: unknown, file: string, key: string): StoredGrant {
  const where = `servers[${JSON.stringify(key.slice(0, 100))}]`;
  if (!isObject(entry)) throw new TokenStoreCorruptError(file, `${where} is not an object`);
  for (const f of STRING_FIELDS) {
    if (entry[f] !== undefined && typeof entry[f] !== 'string') throw new TokenStoreCorruptError(file, `${where}.${f} is not a string`);
  }
  for (const f of NUMBER_FIELDS) {
    const v = entry[f];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) throw new TokenStoreCorruptError(file, `${where}.${f} is not a number`);
  }
  if (typeof entry.access_token !== 'string') throw new TokenStoreCorruptError(file, `${where}.access_token is missing`);
  return { ...entry } as unknown as StoredGrant;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
