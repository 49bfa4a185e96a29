/**
 * The era verdict of stdio servers kept across processes (basic.versioning#7: clients MAY
 * persist the probe's result across restarts of the same server configuration, re-probing if
 * the cached assumption later fails). A CLI command is a new process: without this, every
 * command against a handshake-era server that is silent to `server/discover` waits the probe's
 * bound again.
 *
 * - Where: `eras.json` beside the global config file (`eraMemoryPath`), mode 0600, written
 *   whole (src/fs/atomic.ts: temp file + rename), so two processes writing at once leave one
 *   of their files, never half of one; the loser's verdict is lost, which costs one probe.
 * - What: per entry (the config file, project and id, hashed) the entry's fingerprint (the
 *   caller's `print`: the daemon's SHA-256 of the whole placed entry), the era, the server's
 *   `name@version` and when. Only `handshake` verdicts are kept: a modern opening is the probe
 *   itself (`server/discover`), knowing it saves nothing.
 * - What invalidates a verdict: a changed entry (another fingerprint: the record is dropped and
 *   the server probed again); an opening with it that fails; a server that answers `initialize`
 *   under another `name@version` than the one recorded (an upgraded server may have become
 *   modern: the next process probes again); age (MAX_AGE_MS). A server that became modern-only
 *   is found at once anyway: its -32022 to `initialize` switches the opening to modern.
 * - Bounded: at most MAX_RECORDS entries (the oldest go first), a file over MAX_FILE_BYTES or
 *   not of this shape is read as empty. Nothing secret is stored: hashes, an era, the server's
 *   own name and version.
 */
import { createHash } from 'node:crypto';
import { readIfExists, writeFileAtomic } from '../fs/atomic.js';
import { Serial } from '../util/serial.js';
import { globalConfigPath, platformPath, type PathOptions } from './config/paths.js';
import type { ResolvedServer } from './config/types.js';

export type KeptEra = 'handshake';

/** What a host asks of the era memory (HostOptions.eraMemory). */
export interface EraMemory {
  /** The verdict kept for `server`'s entry, if any and still valid. */
  recall(server: ResolvedServer): Promise<KeptEra | undefined>;
  /** An opening succeeded in `era`; `recalled`: it opened with this memory's verdict. */
  opened(server: ResolvedServer, era: string | undefined, serverInfo: { name?: string; version?: string } | undefined, recalled: boolean): Promise<void>;
  /** An opening failed: a kept verdict goes (the next opening probes). */
  failed(server: ResolvedServer): Promise<void>;
}

export const MAX_RECORDS = 256;
export const MAX_FILE_BYTES = 256 * 1024;
/** A verdict older than this is probed again (a server that changed without saying so). */
export const MAX_AGE_MS = 7 * 24 * 3600_000;

/** One entry's kept verdict (what the file and a shared store hold). */
export interface EraRecord {
  print: string;
  era: KeptEra;
  server: string;
  at: number;
}

/**
 * Where records live, by the entry's place (`slotOf`): the file here, Redis
 * (src/host/era-shared.ts). `change` gets the record kept now and returns the one to keep,
 * `null` to drop it, or `false` to leave it as it is.
 */
export interface EraRecords {
  get(slot: string): Promise<EraRecord | undefined>;
  change(slot: string, fn: (r: EraRecord | undefined) => EraRecord | null | false): Promise<void>;
}

/** `eras.json` in the directory of the global config file. */
export function eraMemoryPath(o: PathOptions = {}): string {
  const p = platformPath(o);
  return p.join(p.dirname(globalConfigPath(o)), 'eras.json');
}

/** The verdict rules over any records; `print` is the entry's fingerprint. */
export class EraVerdicts implements EraMemory {
  constructor(
    readonly records: EraRecords,
    readonly print: (server: ResolvedServer) => string,
    private readonly now: () => number = Date.now,
  ) {}

  async recall(server: ResolvedServer): Promise<KeptEra | undefined> {
    if (!isStdio(server)) return undefined;
    const r = await this.records.get(slotOf(server));
    return r !== undefined && r.print === this.print(server) && this.fresh(r) ? r.era : undefined;
  }

  opened(server: ResolvedServer, era: string | undefined, serverInfo: { name?: string; version?: string } | undefined, recalled: boolean): Promise<void> {
    if (!isStdio(server)) return Promise.resolve();
    const print = this.print(server);
    const who = `${String(serverInfo?.name ?? '')}@${String(serverInfo?.version ?? '')}`.slice(0, 300);
    return this.records.change(slotOf(server), (r) => {
      if (era !== 'handshake') return r === undefined ? false : null;
      if (r !== undefined && r.print === print && r.server === who && this.fresh(r)) return false;
      // opened with the kept verdict, but the server is another program now: probe next time
      if (recalled && r !== undefined && r.server !== who) return null;
      return { print, era: 'handshake', server: who, at: this.now() };
    });
  }

  failed(server: ResolvedServer): Promise<void> {
    if (!isStdio(server)) return Promise.resolve();
    return this.records.change(slotOf(server), (r) => (r === undefined ? false : null));
  }

  private fresh(r: EraRecord): boolean {
    const age = this.now() - r.at;
    return age >= 0 && age < MAX_AGE_MS;
  }
}

/** The era memory in `file`; `print` is the entry's fingerprint. */
export class EraFile extends EraVerdicts {
  constructor(file: string, print: (server: ResolvedServer) => string, now: () => number = Date.now) {
    super(new FileRecords(file), print, now);
  }
}

/** The records in one JSON file, written whole. */
class FileRecords implements EraRecords {
  private readonly serial = new Serial();

  constructor(private readonly file: string) {}

  async get(slot: string): Promise<EraRecord | undefined> {
    return (await this.read())[slot];
  }

  /** Read, change, write back when `fn` changed something; one at a time in this process. */
  change(slot: string, fn: (r: EraRecord | undefined) => EraRecord | null | false): Promise<void> {
    return this.serial.run(async () => {
      const records = await this.read();
      const next = fn(records[slot]);
      if (next === false) return;
      if (next === null) delete records[slot];
      else records[slot] = next;
      await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, eras: bounded(records) })}\n`);
    });
  }

  private async read(): Promise<Record<string, EraRecord>> {
    const text = await readIfExists(this.file).catch(() => undefined);
    if (text === undefined || text.length > MAX_FILE_BYTES) return {};
    try {
      const data = JSON.parse(text) as { version?: unknown; eras?: unknown };
      if (data.version !== 1 || typeof data.eras !== 'object' || data.eras === null) return {};
      const out: Record<string, EraRecord> = {};
      for (const [k, v] of Object.entries(data.eras as Record<string, unknown>)) if (isEraRecord(v)) out[k] = v;
      return out;
    } catch {
      return {};
    }
  }
}

/** The entry's place: config file, project and id (a changed entry at the same place replaces its record). */
export function slotOf(server: ResolvedServer): string {
  return createHash('sha256')
    .update(JSON.stringify([server.file ?? null, server.project ?? null, server.id]))
    .digest('hex')
    .slice(0, 32);
}

function isStdio(server: ResolvedServer): boolean {
  return server.transport === 'stdio';
}

/** The newest MAX_RECORDS records. */
function bounded(records: Record<string, EraRecord>): Record<string, EraRecord> {
  const entries = Object.entries(records);
  if (entries.length <= MAX_RECORDS) return records;
  return Object.fromEntries(entries.sort((a, b) => b[1].at - a[1].at).slice(0, MAX_RECORDS));
}

/** A record of this shape (what a file or a shared store returns is checked before it is believed). */
export function isEraRecord(v: unknown): v is EraRecord {
  const r = v as Partial<EraRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.print === 'string' &&
    r.print.length <= 128 &&
    r.era === 'handshake' &&
    typeof r.server === 'string' &&
    r.server.length <= 300 &&
    typeof r.at === 'number' &&
    Number.isFinite(r.at)
  );
}
