/**
 * The servers the daemon holds: one `McpHost` (reconnects, reload by difference, status) whose
 * `connect` remembers each server's newest client, so the daemon can run a command's request on
 * the very client — the same process and session — every earlier command used. Per server: the
 * fingerprint of the entry it was started from, and the requests served.
 */
import path from 'node:path';
import { createHost, type ConnectFn, type HostClient, type McpHost, type ResolvedServer, type ServerStatus } from '../host/index.js';
import { connect as connectClient, type McpClient } from '../mcp/client.js';
import type { ClientOptions } from '../mcp/client-options.js';
import type { ElicitRequestParams, ElicitResult } from '../mcp/types.js';
import type { HandlerContext } from '../mcp/client-features.js';
import type { ServerConfig } from '../transport/create.js';
import { BoundedLog, MAX_FILE_BYTES, rotateIfOver } from './bounded-files.js';
import { fingerprint, programPrint } from './fingerprint.js';

/** Asks the terminal of the command whose call is running on `serverId` (elicitation/create). */
export type Elicit = (params: ElicitRequestParams, ctx: HandlerContext) => Promise<ElicitResult>;

export interface HeldOptions {
  /** Where each server's trace goes (`<dir>/<id>.jsonl`). */
  tracesDir: string;
  /** Where each stdio server's stderr goes (`<dir>/<id>.log`). */
  logsDir: string;
  elicit: Elicit;
  log: (line: string) => void;
}

/** One server's row in `daemon status`. */
export interface HeldStatus {
  id: string;
  state: ServerStatus['state'];
  transport: string;
  pid?: number;
  /** Epoch ms of the last successful connection (uptime is measured from it). */
  connectedAt?: number;
  calls: number;
  lastError?: string;
}

export class HeldServers {
  readonly host: McpHost;
  private readonly clients = new Map<string, McpClient>();
  private readonly prints = new Map<string, string>();
  private readonly calls = new Map<string, number>();
  private readonly stderr = new Map<string, BoundedLog>();

  constructor(private readonly options: HeldOptions) {
    const connect: ConnectFn = async (config: ServerConfig, co: ClientOptions): Promise<HostClient> => {
      // each connection opens the trace anew: the moment to move an oversized one aside
      if (typeof co.trace === 'object') rotateIfOver(co.trace.file);
      const client = await connectClient(config, co);
      const id = config.id;
      if (id !== undefined) {
        this.clients.set(id, client);
        client.on('close', () => {
          if (this.clients.get(id) === client) this.clients.delete(id);
        });
      }
      return client;
    };
    this.host = createHost([], {
      connect,
      // What the CLI's own client would send, plus the per-server trace file.
      clientOptions: (server: ResolvedServer): ClientOptions => ({
        clientInfo: { name: 'mcpwire-cli', version: '0.1.0' },
        trace: { file: path.join(options.tracesDir, `${fileName(server.id)}.jsonl`), maxFileBytes: MAX_FILE_BYTES },
        onStderr: (chunk: Buffer) => this.stderrOf(server.id).write(chunk),
        onElicitation: options.elicit,
        elicitationModes: ['form', 'url'],
      }),
      closeOnExit: true,
      // on a Redis store (MCPWIRE_STORE: the command's mcp.store, control.ts) era verdicts are
      // kept there under the CLI's fingerprint, so the daemon and the commands share them
      eraPrint: programPrint,
    });
    this.host.on('diagnostic', (d: { server?: string; message: string }) => options.log(`${d.server ? `server "${d.server}": ` : ''}${d.message}`));
    this.host.on('stateChange', (c: { server: string; from?: string; to: string }) => options.log(`server "${c.server}": ${c.from ?? 'new'} → ${c.to}`));
  }

  /** The server's stderr log, appended to across restarts, bounded (bounded-files.ts). */
  private stderrOf(id: string): BoundedLog {
    let out = this.stderr.get(id);
    if (out === undefined) {
      out = new BoundedLog(path.join(this.options.logsDir, `${fileName(id)}.log`), (err) => this.options.log(`server "${id}": stderr log: ${err.message}`));
      this.stderr.set(id, out);
    }
    return out;
  }

  async start(): Promise<void> {
    await this.host.start();
  }

  /** Holds exactly `servers` (enabled or not, as configured): added, changed and removed by difference. */
  async load(servers: readonly ResolvedServer[]): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    const diff = await this.host.reload(servers);
    this.prints.clear();
    for (const s of servers) this.prints.set(s.id, fingerprint(s));
    for (const id of [...this.calls.keys()]) if (!this.prints.has(id)) this.calls.delete(id);
    return { added: diff.added, removed: diff.removed, restarted: diff.restarted };
  }

  /** The ready client of server `id` when the command resolved the same entry; else why not. */
  client(id: string, print: string): McpClient | string {
    if (!this.prints.has(id)) return `the daemon does not hold server "${id}"`;
    if (this.prints.get(id) !== print) return `the daemon's entry for server "${id}" differs from this command's config (run "mcpwire daemon reload")`;
    const state = this.host.serverStatus(id)?.state;
    const client = this.clients.get(id);
    if (state !== 'ready' || client === undefined) return `server "${id}" is ${state ?? 'unknown'} in the daemon`;
    return client;
  }

  /** Whether the daemon holds server `id` from the same entry the command resolved. */
  holds(id: string, print: string): boolean {
    return this.prints.get(id) === print;
  }

  served(id: string): void {
    this.calls.set(id, (this.calls.get(id) ?? 0) + 1);
  }

  status(): HeldStatus[] {
    return this.host.status().map((s) => ({
      id: s.id,
      state: s.state,
      transport: s.transportKind ?? s.transport,
      ...(s.pid !== undefined ? { pid: s.pid } : {}),
      ...(s.state === 'ready' && s.lastConnectedAt !== undefined ? { connectedAt: s.lastConnectedAt } : {}),
      calls: this.calls.get(s.id) ?? 0,
      ...(s.lastError !== undefined ? { lastError: s.lastError } : {}),
    }));
  }

  async close(): Promise<void> {
    await this.host.close();
    for (const out of this.stderr.values()) out.end();
  }
}

/** A server id as a file name (ids are config keys: letters, digits, `-`, `_` in practice). */
function fileName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}
