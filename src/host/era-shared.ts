/**
 * Era verdicts in the shared store: with a Redis store (`mcp.store`, `MCPWIRE_STORE`) every host
 * on it — CLI commands, workers, the daemon — keeps its verdicts there (src/store/redis-eras.ts),
 * under the same rules as the local file (era-memory.ts: the entry's place and fingerprint, at
 * most MAX_RECORDS, MAX_AGE_MS, dropped when the entry changes or an opening fails).
 *
 * While Redis is away the host falls back to its local memory (the CLI's `eras.json`, or none
 * for a host that was given none) and comes back to Redis once it answers again: a verdict never
 * waits for the store, and a store error never fails an opening.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { RedisEras } from '../store/redis-eras.js';
import type { ResolvedServer } from './config/types.js';
import { EraVerdicts, isEraRecord, type EraMemory, type EraRecord, type EraRecords } from './era-memory.js';

/** Records in Redis, the local ones while Redis cannot be reached. */
class SharedRecords implements EraRecords {
  constructor(
    private readonly shared: RedisEras,
    private readonly local: EraRecords | undefined,
  ) {}

  async get(slot: string): Promise<EraRecord | undefined> {
    let raw: string | undefined;
    try {
      raw = await this.shared.get(slot);
    } catch {
      return this.local?.get(slot);
    }
    return parse(raw);
  }

  async change(slot: string, fn: (r: EraRecord | undefined) => EraRecord | null | false): Promise<void> {
    try {
      const next = fn(parse(await this.shared.get(slot)));
      if (next === false) return;
      if (next === null) await this.shared.drop(slot);
      else await this.shared.put(slot, JSON.stringify(next), next.at);
    } catch {
      await this.local?.change(slot, fn);
    }
  }
}

function parse(raw: string | undefined): EraRecord | undefined {
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return isEraRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The era memory of a host on `shared` (a Redis store's verdicts), falling back to `local`.
 * `local` given by the embedder in another form than `EraVerdicts` is kept as it is (the
 * embedder's own memory); `print` names the entry's fingerprint (default: `local`'s, else
 * `entryPrint`).
 */
export function withSharedEras(local: EraMemory | undefined, shared: RedisEras | undefined, print?: (server: ResolvedServer) => string): EraMemory | undefined {
  if (shared === undefined) return local;
  if (local !== undefined && (!(local instanceof EraVerdicts) || local.records instanceof SharedRecords)) return local;
  return new EraVerdicts(new SharedRecords(shared, local?.records), print ?? local?.print ?? entryPrint);
}

/**
 * A stdio entry's fingerprint for shared verdicts when the host was given none: what decides the
 * program it runs (command, arguments, environment, working directory made absolute), its id,
 * config file and project. A hash: no value of the entry is stored.
 */
export function entryPrint(server: ResolvedServer): string {
  const c = server.config as { command?: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string };
  const env = Object.entries(c.env ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([server.id, server.file === undefined ? null : path.resolve(server.file), server.project ?? null, c.command ?? null, c.args ?? [], env, path.resolve(c.cwd ?? '.')]))
    .digest('hex');
}
