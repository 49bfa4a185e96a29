/**
 * The one `store` setting (host config `store`, env `MCPWIRE_STORE`): where shared state lives.
 *
 * - absent or `file`: today's behaviour — tokens in `mcp-auth.json` under its file lock;
 * - `memory`: this process only;
 * - `redis://[user:pass@]host:port[/db]` or `rediss://…` (TLS): Redis, shared by every worker and
 *   replica pointed at it. An optional `?prefix=name` namespaces the keys (default `mcpwire`).
 *
 * The URL's password is a secret: only `shown` (password replaced by `***`) appears in errors
 * and status.
 */
import { StoreError } from './errors.js';

export type StoreSetting =
  | { kind: 'file' }
  | { kind: 'memory' }
  | {
      kind: 'redis';
      /** The URL as given (carries the password: never shown). */
      url: string;
      /** The URL with its password replaced, for errors and status. */
      shown: string;
      /** Key prefix (`prefix` query parameter, default `mcpwire`). */
      prefix: string;
      tls: boolean;
    };

/** The URL with any password replaced by `***` (and nothing shown of an unparsable one). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** Parses the setting; `where` names its source (`MCPWIRE_STORE`, a config file) in errors. */
export function parseStoreSetting(value: string | undefined, where = 'store'): StoreSetting {
  const v = value?.trim();
  if (v === undefined || v === '' || v === 'file') return { kind: 'file' };
  if (v === 'memory') return { kind: 'memory' };
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new StoreError('MCPWIRE_STORE_CONFIG', `${where}: expected "file", "memory" or a redis:// / rediss:// URL, got ${JSON.stringify(shownUrl(v) === '(an unparsable URL)' ? v.replace(/:[^:@/]*@/, ':***@').slice(0, 80) : shownUrl(v))}`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new StoreError('MCPWIRE_STORE_CONFIG', `${where}: the scheme ${JSON.stringify(u.protocol)} is not supported (use redis:// or rediss://)`);
  }
  if (u.hostname === '') throw new StoreError('MCPWIRE_STORE_CONFIG', `${where}: ${shownUrl(v)} names no host`);
  const prefix = u.searchParams.get('prefix') ?? 'mcpwire';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) throw new StoreError('MCPWIRE_STORE_CONFIG', `${where}: prefix must be 1-64 of A-Z a-z 0-9 _ . : -`);
  u.searchParams.delete('prefix');
  const url = u.toString();
  return { kind: 'redis', url, shown: shownUrl(url), prefix, tls: u.protocol === 'rediss:' };
}

/** The setting from the environment (`MCPWIRE_STORE`), else `fallback` (the config's `store`). */
export function storeSettingFrom(env: NodeJS.ProcessEnv = process.env, fallback?: string): StoreSetting {
  if (env.MCPWIRE_STORE !== undefined && env.MCPWIRE_STORE !== '') return parseStoreSetting(env.MCPWIRE_STORE, 'MCPWIRE_STORE');
  return parseStoreSetting(fallback, 'the config\'s "store"');
}
