/**
 * The daemon's side of the socket: accepts the CLI's connections (the 0700 directory and the
 * 0600 socket are the access check), answers each op, forwards a server's elicitation to the
 * command whose call is running on that server, and shuts down on `stop` or after `idleMs`
 * without a request.
 */
import fs from 'node:fs';
import net from 'node:net';
import type { ResolvedServer } from '../host/index.js';
import type { ElicitResult } from '../mcp/types.js';
import type { HandlerContext } from '../mcp/client-features.js';
import { timerMs } from '../util/sleep.js';
import { HeldServers } from './held.js';
import type { DaemonPaths } from './paths.js';
import { runRequest, wireError, type InFlight } from './requests.js';
import { LineChannel, type WireMessage } from './wire.js';

export interface DaemonOptions {
  paths: DaemonPaths;
  /** Shut down after this long without a request (0: never). */
  idleMs: number;
  log: (line: string) => void;
}

export class Daemon {
  readonly held: HeldServers;
  private readonly server = net.createServer((socket) => this.accept(socket));
  private readonly inflight = new Set<InFlight>();
  private readonly asks = new Map<number, { resolve: (r: ElicitResult) => void; reject: (e: Error) => void }>();
  private nextAsk = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  readonly startedAt = Date.now();
  private lastRequestAt = Date.now();
  private stopping: Promise<void> | undefined;
  /** Resolves once the daemon has shut down. */
  readonly done: Promise<void>;
  private finish!: () => void;

  constructor(private readonly options: DaemonOptions) {
    this.done = new Promise((r) => (this.finish = r));
    this.held = new HeldServers({ tracesDir: options.paths.traces, logsDir: options.paths.logs, log: options.log, elicit: (p, ctx) => this.elicit(p, ctx) });
  }

  async listen(): Promise<void> {
    await this.held.start();
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.paths.socket, () => resolve());
    });
    fs.chmodSync(this.options.paths.socket, 0o600);
    this.armIdle();
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.options.idleMs <= 0) return;
    const left = this.lastRequestAt + this.options.idleMs - Date.now();
    this.idleTimer = setTimeout(() => {
      if (this.inflight.size > 0 || Date.now() - this.lastRequestAt < this.options.idleMs) return this.armIdle();
      this.options.log(`idle for ${this.options.idleMs} ms: stopping`);
      void this.stop();
    }, timerMs(Math.max(1, left)));
  }

  private accept(socket: net.Socket): void {
    const channel = new LineChannel(socket);
    channel.onmessage = (m) => {
      // Every op but a look (`status`, `hello`) is use for the idle timeout, when it arrives and
      // when it is done (a slow `load` or call too): watching the daemon does not keep it alive.
      const use = m.op !== 'status' && m.op !== 'hello';
      if (use) this.touch();
      void this.handle(channel, m)
        .catch((err: unknown) => channel.send({ id: m.id, error: wireError(err) }))
        .finally(() => use && this.touch());
    };
    channel.onclose = () => {
      // The command is gone (Ctrl-C, killed): its calls are cancelled, the servers stay up.
      for (const f of this.inflight) if (f.channel === channel) f.abort.abort('the command went away');
    };
  }

  private async handle(channel: LineChannel, m: WireMessage): Promise<void> {
    const id = m.id as number;
    const reply = (result: unknown) => channel.send({ id, result });
    switch (m.op) {
      case 'hello':
        return reply({ pid: process.pid, startedAt: this.startedAt });
      case 'status':
        return reply(this.status());
      case 'load':
        // with the store this daemon opened when it started (a changed mcp.store needs a restart)
        return reply({ ...(await this.held.load(m.servers as ResolvedServer[])), store: this.held.host.storeStatus() ?? null });
      case 'stop':
        reply({ pid: process.pid });
        return void this.stop();
      case 'server':
        return reply(await this.serverAction(String(m.action), String(m.server)));
      case 'open':
        return reply(this.open(String(m.server), String(m.fingerprint)));
      case 'request':
        return this.request(channel, m);
      case 'tools':
        return reply(this.tools(m.servers as { id: string; fingerprint: string }[]));
      case 'cancel':
        for (const f of this.inflight) if (f.channel === channel && f.id === m.target) f.abort.abort('cancelled by the command');
        return;
      case 'answer':
        return this.answer(m);
      default:
        channel.send({ id, error: { message: `unknown op "${String(m.op)}"` } });
    }
  }

  private touch(): void {
    this.lastRequestAt = Date.now();
  }

  /** What a command needs before its first request: the server's capabilities and identity. */
  private open(server: string, print: string): unknown {
    const client = this.held.client(server, print);
    if (typeof client === 'string') return { unavailable: client };
    return { serverCapabilities: client.serverCapabilities, serverInfo: client.serverInfo, protocolVersion: client.protocolVersion, pid: process.pid };
  }

  /**
   * `mcpwire tools` through the daemon: the status rows and adapted tools of the servers the
   * command names, when each is held from the same entry and settled (ready, or disabled);
   * otherwise the command connects on its own and reports the failure itself.
   */
  private tools(servers: { id: string; fingerprint: string }[]): unknown {
    const host = this.held.host;
    const ids = new Set(servers.map((s) => s.id));
    for (const s of servers) {
      const state = host.serverStatus(s.id)?.state;
      if (!this.held.holds(s.id, s.fingerprint) || (state !== 'ready' && state !== 'disabled')) return { unavailable: `server "${s.id}" is not ready in the daemon` };
    }
    for (const s of servers) this.held.served(s.id);
    const tools = host.tools().filter((t) => ids.has(t.server));
    return {
      pid: process.pid,
      status: host.status().filter((s) => ids.has(s.id)),
      tools: tools.map((t) => ({ adapted: t, original: host.catalog.byName.get(t.name)?.tool })),
    };
  }

  private async request(channel: LineChannel, m: WireMessage): Promise<void> {
    const server = String(m.server);
    const client = this.held.client(server, String(m.fingerprint));
    if (typeof client === 'string') return channel.send({ id: m.id, error: { message: client, code: 'MCPWIRE_DAEMON_UNAVAILABLE' } });
    const flight: InFlight = { channel, id: m.id as number, server, abort: new AbortController() };
    this.inflight.add(flight);
    this.held.served(server);
    try {
      channel.send(await runRequest(client, m, flight));
    } finally {
      this.inflight.delete(flight);
      flight.abort.abort('the call ended'); // withdraws what the server still asks with it (elicitation)
    }
  }

  private async serverAction(action: string, id: string): Promise<unknown> {
    const host = this.held.host;
    if (action === 'start') return host.startServer(id);
    if (action === 'stop') return host.stopServer(id);
    if (action === 'restart') return host.restart(id).then(() => host.serverStatus(id));
    throw new Error(`unknown server action "${action}"`);
  }

  /**
   * client/elicitation through the daemon: the server asked while a command's call runs on it,
   * so that command's terminal answers (the newest call when several commands share the server).
   */
  private elicit(params: unknown, ctx: HandlerContext): Promise<ElicitResult> {
    const flight = [...this.inflight].reverse().find((f) => f.server === ctx.serverId);
    if (flight === undefined) return Promise.resolve({ action: 'decline' });
    const ask = this.nextAsk++;
    return new Promise<ElicitResult>((resolve, reject) => {
      // The server withdrew it, or the call it came with ended: the command stops asking.
      const gone = () => {
        if (!this.asks.delete(ask)) return;
        flight.channel.send({ ask, id: flight.id, withdrawn: true });
        reject(new Error('the elicitation was withdrawn'));
      };
      ctx.signal.addEventListener('abort', gone, { once: true });
      flight.abort.signal.addEventListener('abort', gone, { once: true });
      this.asks.set(ask, { resolve, reject });
      flight.channel.send({ ask, id: flight.id, method: 'elicitation/create', params, serverId: ctx.serverId });
    });
  }

  private answer(m: WireMessage): void {
    const waiting = this.asks.get(m.ask as number);
    if (waiting === undefined) return;
    this.asks.delete(m.ask as number);
    if (m.error !== undefined) waiting.reject(new Error(String((m.error as { message?: unknown }).message ?? 'elicitation failed')));
    else waiting.resolve(m.result as ElicitResult);
  }

  status(): unknown {
    return {
      pid: process.pid,
      startedAt: this.startedAt,
      lastRequestAt: this.lastRequestAt,
      idleMs: this.options.idleMs,
      socket: this.options.paths.socket,
      log: this.options.paths.log,
      traces: this.options.paths.traces,
      logs: this.options.paths.logs,
      servers: this.held.status(),
      // where the servers' tokens live and whether that store is reachable (never its password)
      store: this.held.host.storeStatus() ?? null,
    };
  }

  /** Closes the socket and every server; idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      for (const f of this.inflight) f.abort.abort('the daemon is stopping');
      // Closing the listener removes our socket file, at once: whatever is at that path afterwards
      // is not ours. A daemon started while the servers below take their time binds its socket
      // there, and the filesystem may give that socket our freed inode number (ext4 does), so no
      // later look at the path, not even its device and inode, could tell its socket from ours.
      this.server.close();
      await this.held.close().catch(() => {});
      this.options.log('stopped');
      this.finish();
    })();
    return this.stopping;
  }
}
